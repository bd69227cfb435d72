// Connectionist temporal classification (Graves et al. 2006; Krueger's TIMIT experiments, seed 004 §3.2)
// as a graph of the engine's ops, so its gradient, JVPs and Gauss-Newton products come from the engine:
// no derivative is written by hand (PyTorch's nn.CTCLoss hand-writes its backward pass).
//
// For a sequence with logits z_t [C] (t < its length T_b) and labels l (L symbols in [0, C), none the
// blank), the extended labels l' = (blank, l_1, blank, l_2, ..., l_L, blank) have S = 2L + 1 states, and
// the forward variables in log space are
//   α_0(s) = log y_0(l'_s) for s < 2, else -∞
//   α_t(s) = log y_t(l'_s) + logsumexp(α_{t-1}(s), α_{t-1}(s-1), [α_{t-1}(s-2) if l'_s ≠ blank and
//            l'_s ≠ l'_{s-2}])
// with y_t = softmax(z_t); -log p(l | z) = -logsumexp(α_{T_b-1}(S-1), α_{T_b-1}(S-2)). A batch runs the
// recursion on [B, S_max] at once: padded states lie beyond each sequence's last one and never feed
// back (states only pass to higher s), and a sequence past its length keeps its α (a 0/1 `where`). "-∞"
// is -1e15, finite so that no logsumexp sees only infinities (its gradient would be NaN).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/graph.h"

namespace tg::models {

struct CtcBatch {
  std::vector<std::vector<int32_t>> labels;  // per sequence, symbols in [0, classes), never the blank
  std::vector<int64_t> lengths;              // per sequence, 1 <= T_b <= T (the number of logits steps)
  int32_t blank = 0;
};

// Per sequence -log p(labels | logits): [B]. logits: T vars [B, C]. A sequence whose labels cannot be
// aligned in its length (T_b < L + the repeats) has probability 0: a tg::Error naming it, since its loss
// would be infinite. Bad labels or lengths are tg::Errors naming the sequence.
Var ctc_neg_log_likelihood(Graph& g, std::span<const Var> logits, const CtcBatch& batch);

// The smallest number of steps that can emit `labels`: L plus one blank between each pair of equal
// neighbours.
int64_t ctc_min_steps(const std::vector<int32_t>& labels);

}  // namespace tg::models
