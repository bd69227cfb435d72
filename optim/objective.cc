#include "optim/objective.h"

#include "core/error.h"

namespace tg::optim {

Evaluation::Evaluation(std::unique_ptr<Graph> g, Built built, std::shared_ptr<TapeCache> cache)
    : g_(std::move(g)), built_(std::move(built)), lin_(std::make_unique<ad::Linearization>(built_.loss)),
      cache_(std::move(cache)) {}

Evaluation::~Evaluation() {
  lin_.reset();  // it points into the graph
  if (cache_ && g_) cache_->give(std::move(g_));
}

ad::Linearization& Evaluation::linearization() {
  if (!lin_) throw Error("evaluation: this evaluation keeps no single tape (remat_segments, or one combined across ranks)");
  return *lin_;
}

Graph& Evaluation::graph() {
  if (!g_) throw Error("evaluation: this evaluation keeps no single tape (remat_segments, or one combined across ranks)");
  return *g_;
}

const Built& Evaluation::built() const {
  if (!g_) throw Error("evaluation: this evaluation keeps no single tape (remat_segments, or one combined across ranks)");
  return built_;
}

double Evaluation::task_value() const {
  if (!g_ || built_.task_loss.empty()) return value();
  return built_.task_loss.value().item();
}

ParamVec Evaluation::grad() {
  if (!grad_) grad_ = linearization().grad_vec();
  return *grad_;
}

ParamVec Evaluation::gnvp(const ParamVec& v) { return linearization().gnvp(v, built_.curvature); }

ParamVec Evaluation::gnvp_structural(const ParamVec& v, double w) {
  if (!g_) return gnvp(v).axpy(w, structural_gnvp(v));  // subclasses without one tape compose the products
  if (!built_.structural) throw Error("structural damping: this objective has no structural block (no tagged pre-activations)");
  const ad::Block blocks[] = {built_.curvature, *built_.structural};
  const double weights[] = {1.0, w};
  return linearization().gnvp(v, blocks, weights);
}

ParamVec Evaluation::structural_gnvp(const ParamVec& v) {
  if (!built_.structural) throw Error("structural damping: this objective has no structural block (no tagged pre-activations)");
  return linearization().gnvp(v, *built_.structural);
}

ParamVec Evaluation::hvp(const ParamVec& v) { return linearization().hvp(v); }

ParamVec Evaluation::fisher_vp(const ParamVec& v) {
  if (!built_.fisher) throw Error("empirical Fisher: this objective has no per-sequence losses");
  return linearization().gnvp(v, *built_.fisher);
}

std::vector<Tensor> Evaluation::output_values() const {
  std::vector<Tensor> out;
  for (const Var& v : built().outputs) out.push_back(v.value().astype(DType::f64));
  return out;
}

GraphObjective::GraphObjective(ParamSet params, Builder build, GraphOptions options)
    : params_(std::move(params)), build_(std::move(build)), options_(options) {}

std::unique_ptr<Evaluation> GraphObjective::evaluate(const ParamVec& theta, const Data& b) {
  params_.set_values(theta);
  auto g = cache_->take(options_);
  g->bind(params_);
  Built built = build_(*g, b);
  if (built.loss.empty() || built.loss.graph() != g.get()) throw Error("objective: the builder returned no loss on its graph");
  return std::make_unique<Evaluation>(std::move(g), std::move(built), cache_);
}

}  // namespace tg::optim
