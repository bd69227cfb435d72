// The matching loss of each output kind over an unrolled sequence: softmax + cross-entropy,
// logistic + binary cross-entropy, linear + squared error. Matching pairs make the Gauss-Newton
// matrix at the logits positive semi-definite (000 §5.7.2). Per-step loss masks select the steps
// that count (the last step only, the last 200 of 250, variable lengths).
#pragma once
#include <span>
#include <vector>

#include "core/graph.h"
#include "models/model.h"

namespace tg::models {

using tasks::Targets;

// Mean over the mask's total weight (per output element for logistic and linear), or the sum.
// Steps whose mask is all zero add no nodes.
Var matching_loss(OutputKind kind, std::span<const Var> logits, const Targets& ys, bool mean = true,
                  Site site = Site::current());

}  // namespace tg::models
