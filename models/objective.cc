#include "models/objective.h"

#include <cmath>

#include "core/error.h"
#include "models/loss.h"
#include "ops/ops.h"

namespace tg::models {

nlohmann::json to_json(const ObjectiveOptions& o) {
  return {{"structural", o.structural},
          {"fisher", o.fisher},
          {"norm_stabilizer", o.norm_stabilizer},
          {"stability_penalty", to_json(o.stability)},
          {"norm_preserving", o.norm_preserving},
          {"input_dropout", o.noise.input_dropout},
          {"output_dropout", o.noise.output_dropout},
          {"weight_noise", o.noise.weight_noise},
          {"check_finite", o.check_finite}};
}

ObjectiveOptions objective_options_from_json(const nlohmann::json& j) {
  ObjectiveOptions o;
  nlohmann::json full = to_json(o);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!full.contains(it.key())) throw Error(fmt::format("objective: unknown option '{}'", it.key()));
    full[it.key()] = it.value();
  }
  try {
    o.structural = full["structural"];
    o.fisher = full["fisher"];
    o.norm_stabilizer = full["norm_stabilizer"];
    o.norm_preserving = full["norm_preserving"];
    o.noise.input_dropout = full["input_dropout"];
    o.noise.output_dropout = full["output_dropout"];
    o.noise.weight_noise = full["weight_noise"];
    o.check_finite = full["check_finite"];
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("objective: bad option value: {}", e.what()));
  }
  o.stability = stability_penalty_from_json(full["stability_penalty"]);
  if (o.norm_stabilizer != 0) {
    if (!(o.norm_stabilizer > 0)) throw Error(fmt::format("objective: norm_stabilizer must be >= 0 (got {})", o.norm_stabilizer));
    if (o.stability.kind != "none" && o.stability.beta != 0)
      throw Error("objective: set norm_stabilizer or stability_penalty, not both");
    o.stability = StabilityPenalty{.kind = "norm", .beta = o.norm_stabilizer, .skip_first = true};
    o.norm_stabilizer = 0;  // resolved into stability_penalty (what to_json reports)
  }
  if (!(o.norm_preserving >= 0)) throw Error(fmt::format("objective: norm_preserving must be >= 0 (got {})", o.norm_preserving));
  check_noise(o.noise);
  if (o.structural != "tanh" && o.structural != "squared" && o.structural != "none")
    throw Error(fmt::format("objective: structural must be tanh, squared or none, not '{}'", o.structural));
  return o;
}

double loss_weight(const optim::Batch& b, OutputKind kind, int64_t out_dim) {
  double w = 0;
  if (b.targets.mask.empty()) w = static_cast<double>(b.steps() * b.size());
  for (const Tensor& m : b.targets.mask)
    for (int64_t i = 0; i < m.size(); ++i) w += m.at(i);
  return kind == OutputKind::softmax ? w : w * static_cast<double>(out_dim);
}

ModelObjective::ModelObjective(std::unique_ptr<Model> model, ObjectiveOptions opt)
    : model_(std::move(model)), opt_(std::move(opt)) {
  if (!model_) throw Error("objective: no model");
}

namespace {
bool any_nonzero(const Tensor& m) {
  for (int64_t i = 0; i < m.size(); ++i)
    if (m.at(i) != 0) return true;
  return false;
}
// Per-sequence loss [B] of one step's outputs (for the empirical Fisher block).
Var per_sequence_step_loss(Graph& g, OutputKind kind, Var z, const Targets& ys, size_t t) {
  const int64_t B = z.shape()[0];
  Var per;
  if (kind == OutputKind::softmax) {
    Var oh = ops::one_hot(g, ys.symbols[t], z.shape()[1], z.dtype());
    per = ops::sub(ops::logsumexp(z, 1), ops::sum(ops::mul(z, oh), 1));
  } else {
    Var y = g.input(ys.dense[t].astype(z.dtype()));
    Var e = kind == OutputKind::logistic ? ops::sub(ops::softplus(z), ops::mul(z, y))
                                         : ops::scale(ops::square(ops::sub(z, y)), 0.5);
    per = ops::sum(e, 1);
  }
  if (!ys.mask.empty()) per = ops::mul(per, g.input(ys.mask[t].astype(z.dtype()).reshaped({B})));
  return per;
}
}  // namespace

std::unique_ptr<optim::Evaluation> ModelObjective::evaluate(const ParamVec& theta, const optim::Batch& b) {
  // Weight noise: the graph is built at θ + ε, so its gradient is the gradient at the noisy weights
  // (a leaf's derivative does not depend on its value's origin).
  if (b.weight_noise) model_->params().set_values(theta.clone().axpy(1.0, *b.weight_noise));
  else model_->params().set_values(theta);
  if ((!b.inputs.input_keep.empty() || !b.inputs.readout_keep.empty()) && !model_->supports_dropout())
    throw Error(fmt::format("objective: model '{}' does not support dropout masks", model_->kind()));
  auto g = std::make_unique<Graph>(GraphOptions{.check_finite = opt_.check_finite});
  Outputs out = model_->unroll(*g, b.inputs);
  const OutputKind kind = model_->output_kind();
  const int64_t out_dim = out.logits.at(0).shape()[1];
  const double weight = loss_weight(b, kind, out_dim);
  if (!(weight > 0)) throw Error("objective: the batch's loss masks select no target");

  optim::Built built;
  built.outputs = out.logits;
  Var loss = matching_loss(kind, out.logits, b.targets, /*mean=*/true);
  // Gauss-Newton block: only the logits the loss reads (others would cost tangents for nothing)
  std::vector<Var> read;
  for (size_t t = 0; t < out.logits.size(); ++t)
    if (b.targets.mask.empty() || any_nonzero(b.targets.mask[t])) read.push_back(out.logits[t]);

  if (opt_.norm_preserving > 0) {
    // Ω's error vectors a_t = ∂E/∂h_t of the task loss E, held constant as in Pascanu et al.
    std::vector<Tensor> adj = hidden_adjoints(loss, out.hidden);
    Var omega = norm_preserving_omega(*g, out.hidden, adj);
    if (!omega.empty()) loss = ops::add(loss, ops::scale(omega, opt_.norm_preserving));
  }
  if (Var r = stability_penalty(out.hidden, out.initial, opt_.stability); !r.empty()) loss = ops::add(loss, r);
  built.loss = loss;
  built.curvature = ad::Block{read, loss};

  if (opt_.structural != "none" && !out.preact.empty()) {
    // the head is normalised like the loss, so μ means the same at any batch size
    Var head;
    for (size_t t = 0; t < out.preact.size(); ++t) {
      Var u = out.preact[t];
      Var h = opt_.structural == "tanh"
                  ? ops::sub(ops::softplus(ops::scale(u, 2.0)), u)  // log cosh u + log 2
                  : ops::scale(ops::square(u), 0.5);
      Var per = ops::sum(h, 1);
      if (!b.inputs.mask.empty()) per = ops::mul(per, g->input(b.inputs.mask[t].astype(u.dtype()).reshaped({u.shape()[0]})));
      head = ops::add(head, ops::sum(per));
    }
    built.structural = ad::Block{out.preact, ops::scale(head, 1.0 / weight)};
  }
  if (opt_.fisher) {
    Var per;
    for (size_t t = 0; t < out.logits.size(); ++t)
      if (b.targets.mask.empty() || any_nonzero(b.targets.mask[t]))
        per = ops::add(per, per_sequence_step_loss(*g, kind, out.logits[t], b.targets, t));
    // L = Σℓ_n / W; empirical Fisher (1/N) Σ_n ∇(N ℓ_n/W) ∇(N ℓ_n/W)ᵀ is the GN of (N / 2W²) Σ ℓ_n²
    const double n = static_cast<double>(b.size());
    built.fisher = ad::Block{{per}, ops::scale(ops::sum(ops::square(per)), n / (2 * weight * weight))};
  }
  return std::make_unique<optim::Evaluation>(std::move(g), std::move(built));
}

}  // namespace tg::models
