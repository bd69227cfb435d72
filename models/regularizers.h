// Graph-level regularisers on a model's hidden states (no hand-written gradients: every term is a
// graph, so gradients, Gauss-Newton and Hessian products come from the engine).
//
//  * Stability penalties (Krueger & Memisevic 2016, digest 004 §2.1-2.2): the norm-stabilizer
//    β/T Σ_t (‖h_t‖ - ‖h_{t-1}‖)² and the seven alternatives of Table 5.III.
//  * Pascanu, Mikolov & Bengio's (2013) norm-preserving regulariser
//    Ω = Σ_k (‖a_{k+1} ∂h_{k+1}/∂h_k‖ / ‖a_{k+1}‖ - 1)²,  a_{k+1} = ∂E/∂h_{k+1} held constant,
//    whose value is a vector-Jacobian product inside the graph, so its gradient is second-order AD.
#pragma once
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"

namespace tg::models {

struct StabilityPenalty {
  // none | norm (the norm-stabilizer) | state_diff ‖h_t - h_{t-1}‖² | relative (Δ‖h_t‖ / ‖h_t‖)² |
  // l1_norm (Δ‖h_t‖₁)² | target_norm (‖h_t‖ - target)² | initial_final (‖h_first‖ - ‖h_T‖)² |
  // abs_diff |Δ‖h_t‖| | squared_norm ‖h_t‖²
  std::string kind = "none";
  double beta = 0;
  double target = 5;       // target_norm's fixed norm (Krueger used 5)
  // The thesis sums t = 1..T with h_0 (a zero initial state makes the first term ‖h_1‖²); third-party
  // code sums t = 2..T. true: the t = 1 term (and h_0 in initial_final) is left out.
  bool skip_first = true;
  // Which states: hidden (what the output layer reads, each layer's state in deep stacks) or cell (the
  // LSTM family's memory c_t, one-layer models: Krueger's Table 5.I, "penalize memory cell").
  std::string on = "hidden";
};

nlohmann::json to_json(const StabilityPenalty& p);
StabilityPenalty stability_penalty_from_json(const nlohmann::json& j);  // unknown keys / kinds are an error
const std::vector<std::string>& stability_penalty_kinds();

// β/T Σ_t term_t over the steps, mean over the batch's sequences (T = hidden.size()). `h0` is the
// state before step 1 (may be empty when skip_first needs none; an empty h0 otherwise is an error).
Var stability_penalty(const std::vector<Var>& hidden, Var h0, const StabilityPenalty& p);
// The same for sequences of different lengths: `mask` (per step [B], 1 on a real step, trailing
// padding 0) drops every term that reads a padded step t, and each sequence's sum is divided by its own
// length: β Σ_t mask_t term_t / T_b, mean over the batch. Equal to the unmasked penalty when no step is
// padded.
Var stability_penalty(const std::vector<Var>& hidden, Var h0, const StabilityPenalty& p, const std::vector<Tensor>& mask);

// Each row's ‖h‖₂ in S states [B, H], the states stacked once: [S, B] (an ε keeps the derivative finite at
// h = 0). The norm stabilizer's quantities, shared by stability_penalty and the remat path's stabilizer.
Var state_norms(std::span<const Var> states);
// Row t minus row t - 1 of a per-state [S, B]: [S - 1, B].
Var step_differences(Var per_state);

// A padded batch's per-sequence term weights for K terms, as a graph constant [K, B] of `like`'s dtype:
// row k is mask[step[k]][b] / T_b (0 on a padded step), T_b each sequence's length. Shared by the full
// tape's and the remat path's stabilizer.
Var step_weight_rows(Var like, const std::vector<Tensor>& mask, const std::vector<size_t>& step,
                     const std::vector<int64_t>& lengths);

// Values of the total derivatives ∂loss/∂h_t (each [B, H]), by one reverse pass inside the graph (of a
// step-by-step unroll, as norm_preserving_omega's states).
std::vector<Tensor> hidden_adjoints(Var loss, const std::vector<Var>& hidden);

// Ω with the adjoints given as constants: mean over sequences of Σ_k (‖a_{k+1} J_k‖/‖a_{k+1}‖ - 1)²,
// J_k = ∂h_{k+1}/∂h_k the one-step Jacobian (other paths into h_{k+1} are held fixed). Terms whose
// a_{k+1} is zero (no loss after step k+1) are left out. The states must be nodes of the steps that made
// them (a graph without GraphOptions::fuse_recurrences): slices of one fused recurrence are refused.
Var norm_preserving_omega(Graph& g, const std::vector<Var>& hidden, const std::vector<Tensor>& adjoints);

}  // namespace tg::models
