// Composites: softmax, log_softmax, logsumexp, l2norm. No derivative code here: the engine
// differentiates the primitives they are made of (to any order).
#include "ops/kernels.h"

namespace tg::ops {

// logsumexp(x) = m + log sum exp(x - m), m = stop_gradient(max x): stable, and the shift does not
// change the derivative (softmax), so stopping its gradient is exact.
Var logsumexp(Var x, int axis, bool keepdims, Site s) {
  Var m = stop_gradient(max(x, axis, true, s), s);
  Var lse = add(log(sum(exp(sub(x, m, s), s), axis, true, s), s), m, s);
  if (keepdims) return lse;
  int a = x.shape().norm_axis(axis);
  Shape dropped;
  for (int i = 0; i < x.shape().rank(); ++i)
    if (i != a) dropped.push_back(x.shape()[i]);
  return reshape(lse, dropped, s);
}

Var log_softmax(Var x, int axis, Site s) { return sub(x, logsumexp(x, axis, true, s), s); }

Var softmax(Var x, int axis, Site s) {
  Var m = stop_gradient(max(x, axis, true, s), s);
  Var e = exp(sub(x, m, s), s);
  return div(e, sum(e, axis, true, s), s);
}

// ||x|| with the "double where" so that both the value and every derivative are finite at x = 0
// (subgradient 0 there).
Var l2norm(Var x, Site s) {
  Var ss = sum(square(x, s), s);
  Var zero = zeros_like(ss, s);
  Var pos = greater(ss, zero, s);
  Var safe = where(pos, ss, ones_like(ss, s), s);
  return where(pos, sqrt(safe, s), zero, s);
}

}  // namespace tg::ops

namespace tg::losses {
using namespace tg::ops;

namespace {
// Sum of per-element losses weighted by an optional mask, divided by the mask's total weight if mean.
Var reduce_masked(Var per, Var mask, bool mean, Site s) {
  if (mask.empty()) return mean ? ops::mean(per, s) : sum(per, s);
  Var m = broadcast_to(mask, per.shape(), s);
  Var total = sum(mul(per, m, s), s);
  if (!mean) return total;
  double w = sum(m, s).value().item();
  if (w <= 0) throw ShapeError(fmt::format("loss: the mask selects nothing at {}", s.str()));
  return scale(total, 1.0 / w, s);
}
void check_same(const char* op, Var a, Var b, Site s) {
  if (a.shape() != b.shape())
    throw ShapeError(fmt::format("{}: shapes differ: {} x {} at {}", op, a.shape().str(), b.shape().str(), s.str()));
}
}  // namespace

// -log softmax(z)[target] = logsumexp(z) - z[target]
Var softmax_xent(Var logits, Index targets, Var mask, bool mean, Site s) {
  if (logits.shape().rank() != 2)
    throw ShapeError(fmt::format("softmax_xent: logits must be [N,V], got {} at {}", logits.shape().str(), s.str()));
  if (!targets || static_cast<int64_t>(targets->size()) != logits.shape()[0])
    throw ShapeError(fmt::format("softmax_xent: {} targets for logits {} at {}", targets ? targets->size() : 0,
                                 logits.shape().str(), s.str()));
  if (!mask.empty() && mask.shape() != Shape{logits.shape()[0]})
    throw ShapeError(fmt::format("softmax_xent: mask {} for logits {} at {}", mask.shape().str(),
                                 logits.shape().str(), s.str()));
  Var picked = pick_columns(logits, targets, s);  // sum(logits * one_hot) in one read a row: the same values
  Var nll = sub(logsumexp(logits, 1, false, s), picked, s);
  return reduce_masked(nll, mask, mean, s);
}

// softplus(z) - z y  (= -y log σ(z) - (1-y) log(1-σ(z)))
Var sigmoid_bce(Var logits, Var targets, Var mask, bool mean, Site s) {
  check_same("sigmoid_bce", logits, targets, s);
  Var per = sub(softplus(logits, s), mul(logits, targets, s), s);
  return reduce_masked(per, mask, mean, s);
}

Var squared_error(Var pred, Var target, Var mask, bool mean, Site s) {
  check_same("squared_error", pred, target, s);
  Var per = scale(square(sub(pred, target, s), s), 0.5, s);
  return reduce_masked(per, mask, mean, s);
}

}  // namespace tg::losses
