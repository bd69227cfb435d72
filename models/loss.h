// The matching loss of each output kind over an unrolled sequence: softmax + cross-entropy,
// logistic + binary cross-entropy, linear + squared error. Matching pairs make the Gauss-Newton
// matrix at the logits positive semi-definite (000 §5.7.2). Per-step loss masks select the steps
// that count (the last step only, the last 200 of 250, variable lengths).
#pragma once
#include <span>
#include <string_view>
#include <vector>

#include "core/graph.h"
#include "models/model.h"

namespace tg::models {

using tasks::Targets;

// Mean over the mask's total weight (per output element for logistic and linear), or the sum.
// Steps whose mask is all zero add no nodes.
Var matching_loss(OutputKind kind, std::span<const Var> logits, const Targets& ys, bool mean = true,
                  Site site = Site::current());
// The same for a model's outputs. When every step is scored and one product made every step's logits
// (Outputs::logits_all), the loss reads that node instead of concatenating the steps' rows again, which
// saves a concatenation and, in the reverse sweep, one slice and one piece per step (~10% of a small
// RNN's step, docs/results/engine_bench.md). A Gauss-Newton block of this loss must then take scored_logits(out, ys): the nodes the
// loss reads.
Var matching_loss(OutputKind kind, const Outputs& out, const Targets& ys, bool mean = true, Site site = Site::current());
std::vector<Var> scored_logits(const Outputs& out, const Targets& ys);

// Each row's matching loss of logits z [B, out], summed over the row's outputs ([B]): softmax
// cross-entropy against `classes` (B ids), binary cross-entropy against dense targets y [B, out] in
// [0, 1] (logistic), or ½ (z − y)² (linear). The per-case losses of the empirical Fisher block.
Var per_row_loss(OutputKind kind, Var z, const ops::Index& classes, Var y);

// Structural damping's head (Martens & Sutskever 2011) over steps' hidden pre-activations u_t, for any
// model: kind "tanh" gives Σ_t Σ log cosh u_t (+ a constant), the matching loss of tanh units, whose
// Hessian is diag(1 - tanh² u); "squared" gives ½ Σ_t Σ u_t². Each sequence's term is multiplied by its
// input mask at step first_step + t when masks are given; the sum is times `weight` (1 / the loss's
// weight, to match a mean loss). Its curvature block is ad::Block{.at = preact, .head = <this>}:
//   built.structural = ad::Block{.at = preacts, .head = structural_damping_head(g, "tanh", preacts)};
// The head's value is never used, only its curvature: its nodes are deferred and cost nothing unless
// read.
Var structural_damping_head(Graph& g, std::string_view kind, std::span<const Var> preact,
                            const std::vector<Tensor>& input_mask = {}, int64_t first_step = 0, double weight = 1.0);

}  // namespace tg::models
