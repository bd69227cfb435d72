#include "optim/distributed.h"

#include <vector>

#include "core/error.h"

namespace tg::optim {

ParamVec param_vec_of(std::span<const double> values, const ParamVec& like) {
  ParamVec out(like.layout(), like.dtype());
  Tensor& o = out.flat();
  if (o.dtype() == DType::f64) {
    double* p = o.data<double>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  } else {
    float* p = o.data<float>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<float>(values[i]);
  }
  return out;
}

namespace {

// Σ_r scale_r x_r over ranks, in double, returned in `like`'s layout and dtype. x == nullptr: this
// rank contributes zeros.
ParamVec combine(Communicator& comm, const ParamVec* x, double scale, const ParamVec& like) {
  std::vector<double> buf(static_cast<size_t>(like.size()), 0.0);
  if (x) {
    if (x->size() != like.size()) throw Error(fmt::format("distributed: a product has {} values, θ has {}", x->size(), like.size()));
    const Tensor& t = x->flat();
    if (t.dtype() == DType::f64) {
      const double* p = t.data<double>();
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = scale * p[i];
    } else {
      const float* p = t.data<float>();
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = scale * static_cast<double>(p[i]);
    }
  }
  comm.sum(buf);
  return param_vec_of(buf, like);
}

double combine(Communicator& comm, double x) {
  double v[1] = {x};
  comm.sum(v);
  return v[0];
}

// One rank's part of a distributed evaluation: its shard's evaluation (none when the shard is empty
// or carries no loss weight) and the weights that turn its means into the batch's mean.
class DistributedEvaluation : public Evaluation {
 public:
  DistributedEvaluation(Communicator& comm, std::unique_ptr<Evaluation> local, ParamVec like, double mean_scale,
                        double fisher_scale)
      : comm_(comm), local_(std::move(local)), like_(std::move(like)), mean_scale_(mean_scale), fisher_scale_(fisher_scale) {
    value_ = combine(comm_, local_ ? mean_scale_ * local_->value() : 0.0);
  }
  double value() const override { return value_; }
  ParamVec grad() override {
    if (!grad_) grad_ = mean([&] { return local_->grad(); });
    return *grad_;
  }
  ParamVec gnvp(const ParamVec& v) override { return mean([&] { return local_->gnvp(v); }); }
  ParamVec structural_gnvp(const ParamVec& v) override { return mean([&] { return local_->structural_gnvp(v); }); }
  ParamVec gnvp_structural(const ParamVec& v, double w) override {
    return mean([&] { return local_->gnvp_structural(v, w); });
  }
  ParamVec hvp(const ParamVec& v) override { return mean([&] { return local_->hvp(v); }); }
  ParamVec fisher_vp(const ParamVec& v) override {
    std::optional<ParamVec> x;
    if (local_) x = local_->fisher_vp(v);
    return combine(comm_, x ? &*x : nullptr, fisher_scale_, like_);
  }
  bool has_structural() const override {
    // every rank must answer the same, or one would wait in a product the others never start
    if (!structural_) structural_ = combine(comm_, local_ && local_->has_structural() ? 1.0 : 0.0) > 0;
    return *structural_;
  }

 private:
  template <class F>
  ParamVec mean(F local_product) {
    std::optional<ParamVec> x;
    if (local_) x = local_product();
    return combine(comm_, x ? &*x : nullptr, mean_scale_, like_);
  }
  Communicator& comm_;
  std::unique_ptr<Evaluation> local_;
  ParamVec like_;
  double mean_scale_, fisher_scale_;
  double value_ = 0;
  std::optional<ParamVec> grad_;
  mutable std::optional<bool> structural_;
};
}  // namespace

DistributedObjective::DistributedObjective(Objective& inner, Communicator& comm) : inner_(inner), comm_(comm) {}

std::pair<int64_t, int64_t> DistributedObjective::shard(int64_t n, int rank, int size) {
  const int64_t first = n * rank / size, last = n * (rank + 1) / size;
  return {first, last - first};
}

std::unique_ptr<Evaluation> DistributedObjective::evaluate(const ParamVec& theta, const Data& b) {
  const double w = inner_.weight(b);
  if (!(w > 0)) throw Error("objective: the batch's loss masks select no target");
  auto [first, count] = shard(b.size(), comm_.rank(), comm_.size());
  const auto part_data = b.slice(first, count);
  const Data& part = *part_data;
  const double w_r = count > 0 ? inner_.weight(part) : 0.0;
  std::unique_ptr<Evaluation> local;
  if (w_r > 0) local = inner_.evaluate(theta, part);
  const double n = static_cast<double>(b.size()), n_r = static_cast<double>(count);
  const double fisher_scale = w_r > 0 ? n * w_r * w_r / (n_r * w * w) : 0.0;
  return std::make_unique<DistributedEvaluation>(comm_, std::move(local), ParamVec(theta.layout(), theta.dtype()), w_r / w, fisher_scale);
}

double DistributedObjective::value(const ParamVec& theta, const Data& b) {
  const double w = inner_.weight(b);
  if (!(w > 0)) throw Error("objective: the batch's loss masks select no target");
  auto [first, count] = shard(b.size(), comm_.rank(), comm_.size());
  const auto part_data = b.slice(first, count);
  const Data& part = *part_data;
  const double w_r = count > 0 ? inner_.weight(part) : 0.0;
  return combine(comm_, w_r > 0 ? (w_r / w) * inner_.value(theta, part) : 0.0);
}

}  // namespace tg::optim
