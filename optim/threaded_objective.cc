#include "optim/threaded_objective.h"

#include <algorithm>
#include <optional>

#include "core/error.h"
#include "ops/blas.h"
#include "optim/distributed.h"

namespace tg::optim {

namespace {

// Σ_r scales[r] xs[r] in double, added in shard order (skipping shards without a product), in
// `like`'s layout and dtype. The pool's threads each sum one contiguous range of the elements: every
// element's sum is the same whatever the split, and the serial loop was a θ-sized pass the other thread
// waited for.
ParamVec combine(ForkJoin& pool, int threads, const std::vector<std::optional<ParamVec>>& xs,
                 const std::vector<double>& scales, const ParamVec& like) {
  ParamVec out = ParamVec::empty(like.layout(), like.dtype());  // every element is written below
  const int64_t n = out.size();
  for (const auto& x : xs)
    TG_ASSERT(!x || x->size() == n, "a shard's product has {} values, θ has {}", x ? x->size() : 0, n);
  Tensor& o = out.flat();
  pool.run(threads, [&](int part) {
    const int64_t begin = n * part / threads, end = n * (part + 1) / threads;
    std::vector<double> sum(static_cast<size_t>(end - begin), 0.0);
    for (size_t r = 0; r < xs.size(); ++r) {
      if (!xs[r]) continue;
      const Tensor& t = xs[r]->flat();
      const double s = scales[r];
      if (t.dtype() == DType::f64) {
        const double* p = t.data<double>() + begin;
        for (size_t i = 0; i < sum.size(); ++i) sum[i] += s * p[i];
      } else {
        const float* p = t.data<float>() + begin;
        for (size_t i = 0; i < sum.size(); ++i) sum[i] += s * static_cast<double>(p[i]);
      }
    }
    if (o.dtype() == DType::f64) std::copy(sum.begin(), sum.end(), o.data<double>() + begin);
    else std::transform(sum.begin(), sum.end(), o.data<float>() + begin, [](double v) { return static_cast<float>(v); });
  });
  return out;
}

// The shards' evaluations (none for a shard that is empty or carries no loss weight), each used only
// by its own thread, and the weights that turn their means into the batch's.
class ThreadedEvaluation : public Evaluation {
 public:
  ThreadedEvaluation(std::shared_ptr<ForkJoin> pool, std::vector<std::unique_ptr<Evaluation>> parts,
                     std::vector<double> mean_scales, std::vector<double> fisher_scales, ParamVec like)
      : pool_(std::move(pool)), parts_(std::move(parts)), mean_scales_(std::move(mean_scales)),
        fisher_scales_(std::move(fisher_scales)), like_(std::move(like)) {
    for (size_t r = 0; r < parts_.size(); ++r)
      if (parts_[r]) value_ += mean_scales_[r] * parts_[r]->value();
  }
  // Each shard's evaluation ends on the thread that built it: its tensors go back to that thread's
  // allocator cache, for its next step to reuse, and the shards' tapes are released side by side
  // instead of one after the other on this thread.
  ~ThreadedEvaluation() override {
    try {
      pool_->run(static_cast<int>(parts_.size()), [&](int r) { parts_[static_cast<size_t>(r)].reset(); });
    } catch (...) {  // a destructor must not throw: whatever is left is released below, on this thread
    }
  }
  double value() const override { return value_; }
  ParamVec grad() override {
    if (!grad_) grad_ = product(mean_scales_, [](Evaluation& e) { return e.grad(); });
    return *grad_;
  }
  ParamVec gnvp(const ParamVec& v) override {
    return product(mean_scales_, [&](Evaluation& e) { return e.gnvp(v); });
  }
  ParamVec structural_gnvp(const ParamVec& v) override {
    return product(mean_scales_, [&](Evaluation& e) { return e.structural_gnvp(v); });
  }
  ParamVec gnvp_structural(const ParamVec& v, double w) override {
    return product(mean_scales_, [&](Evaluation& e) { return e.gnvp_structural(v, w); });
  }
  ParamVec hvp(const ParamVec& v) override {
    return product(mean_scales_, [&](Evaluation& e) { return e.hvp(v); });
  }
  ParamVec fisher_vp(const ParamVec& v) override {
    return product(fisher_scales_, [&](Evaluation& e) { return e.fisher_vp(v); });
  }
  bool has_structural() const override {
    for (const auto& p : parts_)
      if (p) return p->has_structural();
    return false;
  }
  std::vector<Tensor> output_values() const override {
    throw InternalError("a threaded evaluation has no single output tape: score with the objective itself");
  }

 private:
  template <class F>
  ParamVec product(const std::vector<double>& scales, F shard_product) {
    std::vector<std::optional<ParamVec>> xs(parts_.size());
    pool_->run(static_cast<int>(parts_.size()), [&](int r) {
      if (parts_[static_cast<size_t>(r)]) xs[static_cast<size_t>(r)] = shard_product(*parts_[static_cast<size_t>(r)]);
    });
    return combine(*pool_, static_cast<int>(parts_.size()), xs, scales, like_);
  }
  std::shared_ptr<ForkJoin> pool_;
  std::vector<std::unique_ptr<Evaluation>> parts_;
  std::vector<double> mean_scales_, fisher_scales_;
  ParamVec like_;
  double value_ = 0;
  std::optional<ParamVec> grad_;
};
}  // namespace

ThreadedObjective::ThreadedObjective(std::vector<Objective*> replicas)
    : replicas_(std::move(replicas)), pool_(std::make_shared<ForkJoin>([] { blas::use_one_thread_here(); })) {
  TG_ASSERT(!replicas_.empty(), "a threaded objective needs at least one replica");
  blas::set_threads(1);
}

std::unique_ptr<Evaluation> ThreadedObjective::evaluate(const ParamVec& theta, const Data& b) {
  const double w = weight(b);
  if (!(w > 0)) throw Error("objective: the batch's loss masks select no target");
  const int R = threads();
  std::vector<std::unique_ptr<Evaluation>> parts(static_cast<size_t>(R));
  std::vector<double> mean_scales(static_cast<size_t>(R), 0.0), fisher_scales(static_cast<size_t>(R), 0.0);
  const double n = static_cast<double>(b.size());
  pool_->run(R, [&](int r) {
    const auto [first, count] = DistributedObjective::shard(b.size(), r, R);
    if (count == 0) return;
    const auto part = b.slice(first, count);
    const double w_r = replicas_[static_cast<size_t>(r)]->weight(*part);
    if (!(w_r > 0)) return;
    parts[static_cast<size_t>(r)] = replicas_[static_cast<size_t>(r)]->evaluate(theta, *part);
    mean_scales[static_cast<size_t>(r)] = w_r / w;
    fisher_scales[static_cast<size_t>(r)] = n * w_r * w_r / (static_cast<double>(count) * w * w);
  });
  return std::make_unique<ThreadedEvaluation>(pool_, std::move(parts), std::move(mean_scales), std::move(fisher_scales),
                                              ParamVec(theta.layout(), theta.dtype()));
}

double ThreadedObjective::value(const ParamVec& theta, const Data& b) {
  const double w = weight(b);
  if (!(w > 0)) throw Error("objective: the batch's loss masks select no target");
  const int R = threads();
  std::vector<double> values(static_cast<size_t>(R), 0.0);
  pool_->run(R, [&](int r) {
    const auto [first, count] = DistributedObjective::shard(b.size(), r, R);
    if (count == 0) return;
    const auto part = b.slice(first, count);
    const double w_r = replicas_[static_cast<size_t>(r)]->weight(*part);
    if (w_r > 0) values[static_cast<size_t>(r)] = (w_r / w) * replicas_[static_cast<size_t>(r)]->value(theta, *part);
  });
  double total = 0;
  for (double v : values) total += v;  // in shard order
  return total;
}

}  // namespace tg::optim
