// The logistic function 1 / (1 + e^-x) on an xsimd batch, shared by the logistic op's kernel
// (ops/elementwise.cc) and the fused cells (ops/lstm_cell.cc, ops/gru_update.cc), so fused and unfused cells agree
// to the last bit. Private to ops/ (not installed as API; it needs xsimd).
//
// With e = e^-|x| in (0, 1] and r = 1 / (1 + e): r for x >= 0 and e r = e^x / (1 + e^x) for x < 0.
// Both branches are accurate to a few ulps relative to the result; no cancellation, no overflow.
// The former (1 + tanh(x/2)) / 2 cancelled for negative x: 2.6% relative error at x = -15 in float32
// and exactly 0 from x <= -18 (float64: 0 below -38), so log(logistic(x)) was -inf.
// (tests/ops/logistic_accuracy_test.cc checks it against a long double reference.)
#pragma once
#include <xsimd/xsimd.hpp>

namespace tg::ops::detail {

template <class Batch>
Batch logistic_batch(const Batch& x) {
  const Batch e = xsimd::exp(-xsimd::abs(x));
  const Batch r = Batch(1) / (Batch(1) + e);
  return xsimd::select(x < Batch(0), e * r, r);
}

}  // namespace tg::ops::detail
