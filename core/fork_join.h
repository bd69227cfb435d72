// ForkJoin: run(n, f) calls f(0), ..., f(n-1) at once, f(0) on the calling thread and the others on
// persistent worker threads, and returns when every call has returned (rethrowing the first
// exception, by index). Hand-written rather than OpenMP: the clang sanitizer builds have no OpenMP
// runtime, and oneDNN's own OpenMP teams must not nest inside ours (the owner passes what each worker
// runs first, e.g. making its BLAS calls single-threaded). Workers start on the first run that needs them.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tg {

class ForkJoin {
 public:
  explicit ForkJoin(std::function<void()> on_worker_start = {}) : on_worker_start_(std::move(on_worker_start)) {}
  ForkJoin(const ForkJoin&) = delete;
  ForkJoin& operator=(const ForkJoin&) = delete;
  ~ForkJoin();
  // Not reentrant: f must not call run on the same pool.
  void run(int n, const std::function<void(int)>& f);

 private:
  void work(int index);
  std::function<void()> on_worker_start_;
  std::mutex mu_;
  std::condition_variable start_, done_;
  std::vector<std::thread> workers_;  // worker w runs index w + 1
  const std::function<void(int)>* job_ = nullptr;
  int job_size_ = 0;
  uint64_t generation_ = 0;  // one per run: a worker runs each generation once
  int pending_ = 0;
  bool stop_ = false;
  std::vector<std::exception_ptr> errors_;
};

}  // namespace tg
