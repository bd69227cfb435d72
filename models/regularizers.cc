#include "models/regularizers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/ad.h"
#include "core/error.h"
#include "core/options.h"
#include "ops/ops.h"
#include "tasks/batch.h"

namespace tg::models {

const std::vector<std::string>& stability_penalty_kinds() {
  static const std::vector<std::string> k = {"none",     "norm",          "state_diff",    "relative", "l1_norm",
                                             "target_norm", "initial_final", "abs_diff", "squared_norm"};
  return k;
}

nlohmann::json to_json(const StabilityPenalty& p) {
  return {{"kind", p.kind}, {"beta", p.beta}, {"target", p.target}, {"skip_first", p.skip_first}, {"on", p.on}};
}

StabilityPenalty stability_penalty_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw Error("stability_penalty: expected an object {kind, beta, target, skip_first, on}");
  StabilityPenalty p;
  nlohmann::json full = merge_options("stability_penalty", to_json(p), j);
  try {
    p.kind = full["kind"];
    p.beta = full["beta"];
    p.target = full["target"];
    p.skip_first = full["skip_first"];
    p.on = full["on"];
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("stability_penalty: bad option value: {}", e.what()));
  }
  const auto& kinds = stability_penalty_kinds();
  if (std::find(kinds.begin(), kinds.end(), p.kind) == kinds.end())
    throw Error(fmt::format("stability_penalty: kind must be one of {}, not '{}'", fmt::join(kinds, ", "), p.kind));
  if (!(p.beta >= 0)) throw Error(fmt::format("stability_penalty: beta must be >= 0 (got {})", p.beta));
  if (p.on != "hidden" && p.on != "cell")
    throw Error(fmt::format("stability_penalty: on must be hidden or cell, not '{}'", p.on));
  return p;
}

namespace {
// ‖h‖₂ per row [B]; the ε keeps the derivative finite at h = 0 (zero initial states, dead ReLUs)
Var l2(Var h) { return ops::sqrt(ops::add_scalar(ops::sum(ops::square(h), 1), 1e-12)); }
Var l1(Var h) { return ops::sum(ops::abs(h), 1); }
}  // namespace

Var state_norms(std::span<const Var> states) {
  const Var all = states.size() == 1 ? states[0] : ops::concat(states, 0);
  return ops::reshape(l2(all), Shape{static_cast<int64_t>(states.size()), states[0].shape()[0]});
}

Var step_differences(Var per_state) {
  const int64_t S = per_state.shape()[0];
  return ops::sub(ops::slice(per_state, 0, 1, S), ops::slice(per_state, 0, 0, S - 1));
}

Var stability_penalty(const std::vector<Var>& hidden, Var h0, const StabilityPenalty& p) {
  return stability_penalty(hidden, h0, p, {});
}

Var stability_penalty(const std::vector<Var>& hidden, Var h0, const StabilityPenalty& p, const std::vector<Tensor>& mask) {
  if (p.kind == "none" || p.beta == 0 || hidden.empty()) return {};
  if (!mask.empty() && mask.size() != hidden.size())
    throw Error(fmt::format("stability_penalty: {} step masks for {} steps", mask.size(), hidden.size()));
  const size_t T = hidden.size();
  const bool needs_h0 = !p.skip_first && p.kind != "target_norm" && p.kind != "squared_norm";
  if (needs_h0 && h0.empty())
    throw Error(fmt::format("stability_penalty '{}' with skip_first=false needs the model's initial state, which "
                            "this model does not record",
                            p.kind));
  // states[0] = h_0 (when used), then h_1..h_T
  std::vector<Var> states;
  if (needs_h0) states.push_back(h0);
  states.insert(states.end(), hidden.begin(), hidden.end());

  // Every state in one [S·B, H] node, and each kind's terms as one [K, B] node: a few nodes over all steps
  // instead of a dozen small ones per step, which is what a small RNN's step pays for (an IRNN of 100 units
  // on batches of 16, T = 400, made 0.56 as many updates per CPU second with the norm penalty built per step).
  const int64_t B = hidden[0].shape()[0];
  const auto S = static_cast<int64_t>(states.size());
  auto rows = [B](Var flat, int64_t n) { return ops::reshape(flat, Shape{n, B}); };  // [n·B] -> [n, B]
  Var terms;                 // [K, B]
  std::vector<size_t> step;  // the last step (index into hidden) each row of terms reads
  const size_t first = needs_h0 ? 1 : 0;  // states[k] is hidden[k - first]
  if (p.kind == "target_norm" || p.kind == "squared_norm") {
    const Var all = T == 1 ? hidden[0] : ops::concat(hidden, 0);
    terms = rows(p.kind == "target_norm" ? ops::square(ops::add_scalar(l2(all), -p.target)) : ops::sum(ops::square(all), 1),
                 static_cast<int64_t>(T));
    for (size_t t = 0; t < T; ++t) step.push_back(t);
  } else if (p.kind == "initial_final") {
    if (!mask.empty()) throw Error("stability_penalty 'initial_final' does not take sequences of different lengths");
    terms = rows(ops::square(ops::sub(l2(states.front()), l2(states.back()))), 1);
    step.push_back(T - 1);
  } else {
    if (S < 2) return {};
    if (p.kind == "state_diff") {
      const Var all = ops::concat(states, 0);
      const Var before = ops::slice(all, 0, 0, (S - 1) * B), after = ops::slice(all, 0, B, S * B);  // states t-1, t
      terms = rows(ops::sum(ops::square(ops::sub(after, before)), 1), S - 1);
    } else if (p.kind == "l1_norm") {
      terms = ops::square(step_differences(rows(l1(ops::concat(states, 0)), S)));
    } else {
      const Var n = state_norms(states);
      const Var nb = ops::slice(n, 0, 1, S), d = step_differences(n);
      if (p.kind == "norm") terms = ops::square(d);
      else if (p.kind == "relative") terms = ops::square(ops::div(d, nb));
      else if (p.kind == "abs_diff") terms = ops::abs(d);
      else throw InternalError(fmt::format("stability_penalty: kind '{}' has no rule", p.kind));
    }
    for (size_t t = 1; t < states.size(); ++t) step.push_back(t - first);
  }
  // Σ over terms of the batch mean: the sum of [K, B] over B
  const double per_row = 1.0 / static_cast<double>(B);
  if (mask.empty()) return ops::scale(ops::sum(terms), p.beta * per_row / static_cast<double>(T));
  const std::vector<int64_t> length = tasks::sequence_lengths(mask, static_cast<int64_t>(T), mask[0].size());
  return ops::scale(ops::sum(ops::mul(terms, step_weight_rows(terms, mask, step, length))), p.beta * per_row);
}

Var step_weight_rows(Var like, const std::vector<Tensor>& mask, const std::vector<size_t>& step,
                     const std::vector<int64_t>& lengths) {
  const size_t B = lengths.size();
  std::vector<double> w(step.size() * B);
  for (size_t k = 0; k < step.size(); ++k)
    for (size_t b = 0; b < B; ++b)
      w[k * B + b] = mask[step[k]].at(static_cast<int64_t>(b)) != 0 ? 1.0 / static_cast<double>(lengths[b]) : 0.0;
  return like.graph()->input(
      Tensor::from({static_cast<int64_t>(step.size()), static_cast<int64_t>(B)}, w, DType::f64).astype(like.dtype()));
}

std::vector<Tensor> hidden_adjoints(Var loss, const std::vector<Var>& hidden) {
  Graph& g = *loss.graph();
  Var one = ops::constant(g, Tensor::scalar(1.0, loss.dtype()));
  ad::Seed seed{loss, one};
  std::vector<Var> adj = ad::vjp(std::span<const ad::Seed>(&seed, 1), hidden, /*independent=*/false);
  std::vector<Tensor> out;
  for (size_t t = 0; t < hidden.size(); ++t)
    out.push_back(ad::value_or_zeros(adj[t], hidden[t].shape(), hidden[t].dtype()).clone());
  return out;
}

Var norm_preserving_omega(Graph& g, const std::vector<Var>& hidden, const std::vector<Tensor>& adjoints) {
  if (adjoints.size() != hidden.size())
    throw Error(fmt::format("norm_preserving: {} adjoints for {} hidden states", adjoints.size(), hidden.size()));
  if (hidden.size() < 2) return {};
  // h_{k+1} must be a function of the node h_k: two slices of one node are steps of a fused recurrence
  const Node& n0 = g.node(hidden[0].id());
  const Node& n1 = g.node(hidden[1].id());
  if (n0.prim->name == std::string_view("slice") && n1.prim->name == std::string_view("slice") && n0.in == n1.in)
    throw Error("norm_preserving: the hidden states are slices of one fused recurrence, whose steps cannot be "
                "differentiated one by one; unroll the model in a graph without GraphOptions::fuse_recurrences");
  const int64_t B = hidden[0].shape()[0];
  const DType dt = hidden[0].dtype();
  Var total;
  for (size_t k = 0; k + 1 < hidden.size(); ++k) {
    const Tensor& a = adjoints[k + 1];
    // 1/‖a_{k+1}‖ per sequence, and which sequences have a term at all
    std::vector<double> inv(B), used(B);
    const int64_t H = a.size() / B;
    bool any = false;
    for (int64_t n = 0; n < B; ++n) {
      double s = 0;
      for (int64_t i = 0; i < H; ++i) s += a.at(n * H + i) * a.at(n * H + i);
      const double norm = std::sqrt(s);
      inv[n] = norm > 0 ? 1.0 / norm : 0.0;
      used[n] = norm > 0 ? 1.0 : 0.0;
      any |= norm > 0;
    }
    if (!any) continue;
    // a_{k+1} J_k: one VJP from h_{k+1} to h_k that stops at h_k (built into the graph, so Ω can be
    // differentiated again with respect to the parameters)
    ad::Seed seed{hidden[k + 1], ops::constant(g, a.clone())};
    Var v = ad::vjp(std::span<const ad::Seed>(&seed, 1), std::span<const Var>(&hidden[k], 1), true)[0];
    Var ratio = v.empty() ? ops::fill(g, {B}, 0.0, dt)
                          : ops::mul(l2(v), ops::constant(g, Tensor::from({B}, inv, dt)));
    Var term = ops::mul(ops::square(ops::add_scalar(ratio, -1.0)), ops::constant(g, Tensor::from({B}, used, dt)));
    total = ops::add(total, ops::sum(term));
  }
  if (total.empty()) return {};
  return ops::scale(total, 1.0 / static_cast<double>(B));
}

}  // namespace tg::models
