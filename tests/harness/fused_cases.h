// What the fused-cell tests (tests/ops/lstm_cell_test.cc, gru_update_test.cc) share: random inputs, the
// largest elementwise difference, and the widths and dtypes they run at.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/tensor.h"
#include "gradcheck/gradcheck.h"

namespace tg::check {

inline Tensor random_tensor(const Shape& s, double lo, double hi, uint64_t seed, DType dt) {
  return random_inputs({s}, lo, hi, seed)[0].astype(dt);
}

inline double max_abs_diff(const Tensor& x, const Tensor& y) {
  EXPECT_EQ(x.shape(), y.shape());
  double m = 0;
  for (int64_t k = 0; k < x.size(); ++k) m = std::max(m, std::abs(x.at(k) - y.at(k)));
  return m;
}

// A batch of B rows of width H (37: a SIMD tail after full batches; 3: narrower than a SIMD batch) in one dtype, and how
// far fused and ordinary ops may differ there.
struct FusedCase {
  int64_t B, H;
  DType dt;
  double tol;
};
inline const auto kFusedCases = ::testing::Values(FusedCase{4, 37, DType::f32, 2e-6}, FusedCase{3, 16, DType::f32, 2e-6},
                                                  FusedCase{4, 37, DType::f64, 1e-13}, FusedCase{2, 3, DType::f64, 1e-13});

}  // namespace tg::check
