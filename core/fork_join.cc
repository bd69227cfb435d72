#include "core/fork_join.h"

namespace tg {

ForkJoin::~ForkJoin() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ForkJoin::run(int n, const std::function<void(int)>& f) {
  if (n <= 1) {
    if (n == 1) f(0);
    return;
  }
  while (static_cast<int>(workers_.size()) < n - 1) {
    const int index = static_cast<int>(workers_.size()) + 1;
    workers_.emplace_back([this, index] { work(index); });
  }
  {
    std::lock_guard lock(mu_);
    job_ = &f;
    job_size_ = n;
    pending_ = n - 1;
    errors_.assign(static_cast<size_t>(n), nullptr);
    ++generation_;
  }
  start_.notify_all();
  try {
    f(0);
  } catch (...) {
    errors_[0] = std::current_exception();  // index 0 is the caller's own slot: no other thread writes it
  }
  std::unique_lock lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
  for (const std::exception_ptr& e : errors_)
    if (e) std::rethrow_exception(e);
}

void ForkJoin::work(int index) {
  if (on_worker_start_) on_worker_start_();
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock lock(mu_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index < job_size_) job = job_;
    }
    if (!job) continue;  // a run with fewer indices than workers
    std::exception_ptr error;
    try {
      (*job)(index);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      errors_[static_cast<size_t>(index)] = error;
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace tg
