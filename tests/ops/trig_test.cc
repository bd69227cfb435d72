// sin and cos against the C library over a grid that covers several periods, in float32 and float64,
// with a length that is not a multiple of the SIMD width (the padded tail goes through the same kernel).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/graph.h"
#include "ops/ops.h"

namespace tg {
namespace {

std::vector<double> grid() {
  std::vector<double> xs;
  for (int k = -2001; k <= 2001; ++k) xs.push_back(k * 0.01 + 0.003);  // [-20, 20]
  for (double x : {0.0, -0.0, 1e-9, M_PI, -M_PI / 2, 1e3, -1e3}) xs.push_back(x);
  return xs;
}

template <class F, class Ref>
double worst_error(DType dt, F op, Ref ref) {
  const std::vector<double> xs = grid();
  Graph g;
  const Tensor y = op(g.input(Tensor::from({static_cast<int64_t>(xs.size())}, xs, dt))).value();
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = dt == DType::f32 ? static_cast<double>(static_cast<float>(xs[i])) : xs[i];
    worst = std::max(worst, std::abs(y.at(static_cast<int64_t>(i)) - ref(x)));
  }
  return worst;
}

TEST(Trig, SinAndCosMatchTheCLibrary) {
  auto sin = [](Var x) { return ops::sin(x); };
  auto cos = [](Var x) { return ops::cos(x); };
  auto ref_sin = [](double x) { return std::sin(x); };
  auto ref_cos = [](double x) { return std::cos(x); };
  EXPECT_LT(worst_error(DType::f64, sin, ref_sin), 1e-15);
  EXPECT_LT(worst_error(DType::f64, cos, ref_cos), 1e-15);
  EXPECT_LT(worst_error(DType::f32, sin, ref_sin), 2e-7);
  EXPECT_LT(worst_error(DType::f32, cos, ref_cos), 2e-7);
}

}  // namespace
}  // namespace tg
