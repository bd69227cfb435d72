#include "models/objective.h"

#include <cmath>
#include <optional>
#include <span>

#include "core/error.h"
#include "core/options.h"
#include "models/ctc.h"
#include "models/loss.h"
#include "ops/ops.h"
#include "optim/remat_evaluation.h"

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
          {"check_finite", o.check_finite},
          {"remat_segments", o.remat_segments}};
}

namespace {
// norm_stabilizer is shorthand for a stability penalty: resolved once, so every path (full tape,
// remat) reads only `stability`, whether the options came from JSON or were set in C++.
void resolve_norm_stabilizer(ObjectiveOptions& o) {
  if (o.norm_stabilizer == 0) return;
  if (!(o.norm_stabilizer > 0)) throw Error(fmt::format("objective: norm_stabilizer must be >= 0 (got {})", o.norm_stabilizer));
  // a resolved config given again with the shorthand (train --resume with the run's own --set) names one penalty
  const bool same = o.stability.kind == "norm" && o.stability.beta == o.norm_stabilizer && o.stability.skip_first;
  if (o.stability.kind != "none" && o.stability.beta != 0 && !same)
    throw Error("objective: set norm_stabilizer or stability_penalty, not both");
  // which states it reads (`on`) may come with the shorthand
  o.stability = StabilityPenalty{.kind = "norm", .beta = o.norm_stabilizer, .skip_first = true, .on = o.stability.on};
  o.norm_stabilizer = 0;  // resolved into stability_penalty (what to_json reports)
}

void check_remat(const ObjectiveOptions& o) {
  if (o.remat_segments < -1)
    throw Error(fmt::format("objective: remat_segments must be 0 (off), -1 (√T) or a segment count, not {}",
                            o.remat_segments));
  if (o.remat_segments != 0 && o.fisher)
    throw Error("objective: remat_segments cannot be used with fisher (the empirical Fisher's head is not a sum over segments)");
  if (o.remat_segments != 0 && o.norm_preserving > 0)
    throw Error("objective: remat_segments cannot be used with norm_preserving (Ω needs the whole unroll's adjoints)");
  if (o.remat_segments != 0 && o.stability.kind != "none" && !(o.stability.kind == "norm" && o.stability.skip_first))
    throw Error(fmt::format("objective: remat_segments supports the norm-stabilizer (kind norm, skip_first true) only, "
                            "not stability_penalty kind '{}'{}", o.stability.kind,
                            o.stability.kind == "norm" ? " with skip_first false" : ""));
  if (o.remat_segments != 0 && o.stability.kind != "none" && o.stability.on != "hidden")
    throw Error("objective: remat_segments supports the norm-stabilizer on the hidden state only, not on = cell");
}
}  // namespace

ObjectiveOptions objective_options_from_json(const nlohmann::json& j) {
  ObjectiveOptions o;
  nlohmann::json full = merge_options("objective", to_json(o), j);
  try {
    o.structural = full["structural"];
    o.fisher = full["fisher"];
    o.norm_stabilizer = full["norm_stabilizer"];
    o.norm_preserving = full["norm_preserving"];
    o.noise.input_dropout = full["input_dropout"];
    o.noise.output_dropout = full["output_dropout"];
    o.noise.weight_noise = full["weight_noise"];
    o.check_finite = full["check_finite"];
    if (!full["remat_segments"].is_number_integer())
      throw Error(fmt::format("objective: remat_segments must be an integer (0: off, -1: √T, N: N segments), not {}",
                              full["remat_segments"].dump()));
    o.remat_segments = full["remat_segments"];
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("objective: bad option value: {}", e.what()));
  }
  o.stability = stability_penalty_from_json(full["stability_penalty"]);
  resolve_norm_stabilizer(o);
  if (!(o.norm_preserving >= 0)) throw Error(fmt::format("objective: norm_preserving must be >= 0 (got {})", o.norm_preserving));
  check_noise(o.noise);
  if (o.structural != "tanh" && o.structural != "squared" && o.structural != "none")
    throw Error(fmt::format("objective: structural must be tanh, squared or none, not '{}'", o.structural));
  check_remat(o);
  return o;
}

double loss_weight(const tasks::Batch& b, OutputKind kind, int64_t out_dim) {
  double w = 0;
  if (b.targets.mask.empty()) w = static_cast<double>(b.steps() * b.size());
  for (const Tensor& m : b.targets.mask)
    for (int64_t i = 0; i < m.size(); ++i) w += m.at(i);
  return kind == OutputKind::softmax ? w : w * static_cast<double>(out_dim);
}

ModelObjective::ModelObjective(std::unique_ptr<Model> model, ObjectiveOptions opt)
    : model_(std::move(model)), opt_(std::move(opt)) {
  if (!model_) throw Error("objective: no model");
  resolve_norm_stabilizer(opt_);
  check_remat(opt_);
  if (opt_.remat_segments != 0 && !model_->can_unroll_steps())
    throw Error(fmt::format("objective: remat_segments needs a model that unrolls in segments (a cell model: rnn, "
                            "lstm, gru, mrnn, mlstm, ...), not '{}'", model_->kind()));
}

namespace {
// Steps [begin, end) of a per-step list (empty stays empty: no masks, or the other kind of targets).
template <class V>
V steps(const V& v, int64_t begin, int64_t end) {
  return v.empty() ? V{} : V(v.begin() + begin, v.begin() + end);
}
Targets slice_targets(const Targets& ys, int64_t begin, int64_t end) {
  return Targets{steps(ys.symbols, begin, end), steps(ys.dense, begin, end), steps(ys.mask, begin, end), {}};
}
bool any_nonzero(const Tensor& m) {
  for (int64_t i = 0; i < m.size(); ++i)
    if (m.at(i) != 0) return true;
  return false;
}
// Per-sequence loss [B] of one step's outputs (for the empirical Fisher block).
Var per_sequence_step_loss(Graph& g, OutputKind kind, Var z, const Targets& ys, size_t t) {
  const int64_t B = z.shape()[0];
  const bool softmax = kind == OutputKind::softmax;
  Var per = per_row_loss(kind, z, softmax ? ys.symbols[t] : ops::Index{},
                         softmax ? Var{} : g.input(ys.dense[t].astype(z.dtype())));
  if (!ys.mask.empty()) per = ops::mul(per, g.input(ys.mask[t].astype(z.dtype()).reshaped({B})));
  return per;
}
// Per-sequence CTC losses [B] of a batch with label-sequence targets (tasks::Targets::labels): the blank is
// the last class, each sequence's length its input mask's count of real steps (trailing padding).
Var ctc_per_sequence(Graph& g, std::span<const Var> logits, const tasks::Batch& b) {
  const CtcBatch c{.labels = b.targets.labels, .lengths = tasks::sequence_lengths(b.inputs),
                   .blank = static_cast<int32_t>(logits[0].shape()[1] - 1)};
  return ctc_neg_log_likelihood(g, logits, c);
}

// Krueger & Memisevic's norm stabiliser before its β/T factor: Σ over consecutive pairs of `hidden` of
// mean_b (‖h_t‖ - ‖h_{t-1}‖)², hidden[0] being the state at step `first_step`; empty for fewer than two
// states. With input masks (a padded batch) each pair's term is weighted per sequence by mask_t / T_b, as
// stability_penalty does on the full tape (unweighted: the caller divides by T).
Var norm_stabilizer_terms(std::span<const Var> hidden, int64_t first_step, const std::vector<Tensor>& mask,
                          const std::vector<int64_t>& lengths) {
  const auto S = static_cast<int64_t>(hidden.size());
  if (S < 2) return {};
  // all the states' norms in one node, as stability_penalty does (models/regularizers.cc says why)
  Var terms = ops::square(step_differences(state_norms(hidden)));  // [S - 1, B]
  if (!mask.empty()) {
    std::vector<size_t> step;
    for (int64_t t = 1; t < S; ++t) step.push_back(static_cast<size_t>(first_step + t));
    terms = ops::mul(terms, step_weight_rows(terms, mask, step, lengths));
  }
  const int64_t B = hidden[0].shape()[0];
  return ops::scale(ops::sum(terms), 1.0 / static_cast<double>(B));  // Σ over pairs of the batch mean
}
}  // namespace

// The unroll in segments of steps [T s / S, T (s+1) / S): each segment's loss is its steps' part of
// the mean loss (the sum of its steps' losses over the whole batch's weight), and its blocks are its
// steps' logits with that loss, and its pre-activations with their part of the structural head.
std::unique_ptr<optim::Evaluation> ModelObjective::evaluate_remat(const tasks::Batch& b) {
  const int64_t T = b.steps();
  const int64_t S = std::min(T, opt_.remat_segments < 0 ? ad::sqrt_segments(T) : opt_.remat_segments);
  const OutputKind kind = model_->output_kind();
  const double weight = loss_weight(b, kind, model_->io().out);
  if (!(weight > 0)) throw Error("objective: the batch's loss masks select no target");
  const bool structural = opt_.structural != "none";
  const Model* model = model_.get();
  const std::string structural_kind = opt_.structural;
  // the norm-stabilizer arrives resolved into stability_penalty (check_remat allows only that kind)
  const double norm_stabilizer = opt_.stability.kind == "norm" ? opt_.stability.beta : 0.0;
  const std::vector<int64_t> lengths = tasks::sequence_lengths(b.inputs);
  ad::SegmentBuilder build = [=](Graph& g, int64_t s, std::span<const Var> state) {
    const int64_t begin = T * s / S, end = T * (s + 1) / S;
    std::vector<Var> st(state.begin(), state.end());
    Outputs out = model->unroll_steps(g, b.inputs, begin, end, st);
    ad::SegmentBuilt built;
    built.state = st;
    built.outputs = out.logits;
    const Targets ys = slice_targets(b.targets, begin, end);
    std::vector<Var> read;
    for (size_t t = 0; t < out.logits.size(); ++t)
      if (ys.mask.empty() || any_nonzero(ys.mask[t])) read.push_back(out.logits[t]);
    Var match;
    if (!read.empty()) match = ops::scale(matching_loss(kind, out.logits, ys, /*mean=*/false), 1.0 / weight);
    Var loss = match;
    if (norm_stabilizer > 0 && T > 1) {
      // this segment's terms t in [max(begin, 1), end); h_{begin-1} is the read-out of the start state
      std::vector<Var> hs;
      if (s > 0) hs.push_back(model->readout(std::vector<Var>(state.begin(), state.end())));
      hs.insert(hs.end(), out.hidden.begin(), out.hidden.end());
      Var total = norm_stabilizer_terms(hs, s > 0 ? begin - 1 : begin, b.inputs.mask, lengths);
      if (!total.empty())
        loss = ops::add(loss, ops::scale(total, b.inputs.mask.empty() ? norm_stabilizer / static_cast<double>(T)
                                                                         : norm_stabilizer));
    }
    built.loss = loss;
    built.blocks.push_back(ad::Block{read, match});  // the stabiliser does not depend on the logits
    if (structural)
      built.blocks.push_back(
          ad::Block{out.preact, structural_damping_head(g, structural_kind, out.preact, b.inputs.mask, begin, 1.0 / weight)});
    return built;
  };
  auto remat = std::make_unique<ad::Remat>(model_->params(), S, std::move(build),
                                           graph_options());
  return std::make_unique<optim::RematEvaluation>(std::move(remat), 0, structural ? std::optional<size_t>(1) : std::nullopt);
}

GraphOptions ModelObjective::graph_options() const {
  // Ω differentiates h_{k+1} by the node h_k, which a fused recurrence does not have
  return GraphOptions{.check_finite = opt_.check_finite, .fuse_recurrences = opt_.norm_preserving == 0};
}

std::unique_ptr<optim::Evaluation> ModelObjective::evaluate(const ParamVec& theta, const tasks::Data& d) {
  const tasks::Batch& b = tasks::data_as<tasks::Batch>(d);
  // Weight noise: the graph is built at θ + ε, so its gradient is the gradient at the noisy weights
  // (a leaf's derivative does not depend on its value's origin).
  if (b.weight_noise) model_->params().set_values(theta.clone().axpy(1.0, *b.weight_noise));
  else model_->params().set_values(theta);
  if ((!b.inputs.input_keep.empty() || !b.inputs.readout_keep.empty()) && !model_->supports_dropout())
    throw Error(fmt::format("objective: model '{}' does not support dropout masks", model_->kind()));
  const bool ctc = !b.targets.labels.empty();  // label sequences: the CTC loss (models/ctc.h)
  if (ctc && (model_->output_kind() != OutputKind::softmax || opt_.remat_segments != 0))
    throw Error(fmt::format("objective: CTC's label sequences need softmax outputs and no remat_segments (model "
                            "'{}' has {} outputs)",
                            model_->kind(), output_kind_name(model_->output_kind())));
  if (opt_.remat_segments != 0) return evaluate_remat(b);
  auto g = cache_->take(graph_options());
  Outputs out = model_->unroll(*g, b.inputs);
  const OutputKind kind = model_->output_kind();
  const int64_t out_dim = out.logits.at(0).shape()[1];
  const double weight = ctc ? static_cast<double>(b.size()) : loss_weight(b, kind, out_dim);
  if (!(weight > 0)) throw Error("objective: the batch's loss masks select no target");

  optim::Built built;
  built.outputs = out.logits;
  // CTC: the mean over sequences of -log p(labels | outputs)
  const Var ctc_losses = ctc ? ctc_per_sequence(*g, out.logits, b) : Var();
  Var loss = ctc ? ops::scale(ops::sum(ctc_losses), 1.0 / weight) : matching_loss(kind, out, b.targets, /*mean=*/true);
  built.task_loss = loss;  // before Ω and the stability penalties
  // Gauss-Newton block: only the logits the loss reads (the loss has no curvature at the others); the
  // stacked logits when the loss reads those (models/loss.h)
  const std::vector<Var> read = ctc ? out.logits : scored_logits(out, b.targets);

  if (opt_.norm_preserving > 0) {
    // Ω's error vectors a_t = ∂E/∂h_t of the task loss E, held constant as in Pascanu et al.
    std::vector<Tensor> adj = hidden_adjoints(loss, out.hidden);
    Var omega = norm_preserving_omega(*g, out.hidden, adj);
    if (!omega.empty()) loss = ops::add(loss, ops::scale(omega, opt_.norm_preserving));
  }
  // one penalty per recurrent state sequence (deep stacks: every layer and direction), each sequence
  // of the batch over its own length
  const bool on_cell = opt_.stability.on == "cell";
  if (on_cell && opt_.stability.kind != "none" && (out.memory.empty() || !out.layer_states.empty()))
    throw Error(fmt::format("objective: stability_penalty on = cell needs a one-layer cell model with a memory c_t "
                            "(lstm, lstm_krause, lstm1997, lstm_peephole, lstm_no_output_tanh, mlstm), and '{}' is "
                            "not one of them",
                            model_->kind()));
  const std::vector<std::vector<Var>> stabilized = on_cell                    ? std::vector<std::vector<Var>>{out.memory}
                                                   : out.layer_states.empty() ? std::vector<std::vector<Var>>{out.hidden}
                                                                              : out.layer_states;
  const Var initial = on_cell ? out.initial_memory : out.layer_states.empty() ? out.initial : Var();
  for (const std::vector<Var>& states : stabilized)
    if (Var r = stability_penalty(states, initial, opt_.stability, b.inputs.mask); !r.empty()) loss = ops::add(loss, r);
  built.loss = loss;
  built.curvature = ad::Block{read, loss};

  // the structural head is normalised like the loss, so μ means the same at any batch size
  if (opt_.structural != "none" && !out.preact.empty())
    built.structural = ad::Block{out.preact, structural_damping_head(*g, opt_.structural, out.preact, b.inputs.mask, 0, 1.0 / weight)};
  if (opt_.fisher) {
    Var per = ctc_losses;
    for (size_t t = 0; t < out.logits.size() && !ctc; ++t)
      if (b.targets.mask.empty() || any_nonzero(b.targets.mask[t]))
        per = ops::add(per, per_sequence_step_loss(*g, kind, out.logits[t], b.targets, t));
    // L = Σℓ_n / W; empirical Fisher (1/N) Σ_n ∇(N ℓ_n/W) ∇(N ℓ_n/W)ᵀ is the GN of (N / 2W²) Σ ℓ_n²
    const double n = static_cast<double>(b.size());
    built.fisher = ad::Block{{per}, ops::scale(ops::sum(ops::square(per)), n / (2 * weight * weight))};
  }
  return std::make_unique<optim::Evaluation>(std::move(g), std::move(built), cache_);
}

}  // namespace tg::models
