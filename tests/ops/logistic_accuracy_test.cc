// The logistic op and the fused LSTM cell's gates against a long double reference 1 / (1 + e^-x)
// over [-100, 100], in float32 and float64: relative error in ulps of the result, so tiny values for
// negative x count as much as values near 1 (see ulps() for results below the smallest normal). The former (1 + tanh(x/2)) / 2 failed this from x = -15
// in float32 (2.6% error, 0 from -18) and x = -30 in float64 (0 below -38).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/graph.h"
#include "ops/ops.h"

namespace tg {
namespace {

long double reference(long double x) { return 1.0L / (1.0L + std::exp(-x)); }

// Error in units of the spacing of T at the reference (relative error in ulps of the result).
// Results below T's smallest normal (float32: x < -87.3; none in float64 over [-100, 100]) may be
// flushed to 0, as xsimd's exp flushes e^x there (PyTorch's 1 / (1 + e^-x) is 0 from x < -88.7):
// for those the error must stay below the smallest normal, and counts as 0 ulps.
template <class T>
double ulps(T y, long double ref) {
  const long double tiny = std::numeric_limits<T>::min();
  const long double err = std::fabs(static_cast<long double>(y) - ref);
  if (ref < tiny) return err <= tiny ? 0 : std::numeric_limits<double>::infinity();
  const long double spacing = std::ldexp(1.0L, std::ilogb(ref) - (std::numeric_limits<T>::digits - 1));
  return static_cast<double>(err / spacing);
}

// Every x in [-100, 100] on a grid of 2^-6, plus points between, and the extremes.
std::vector<double> grid() {
  std::vector<double> xs;
  for (int k = -6400; k <= 6400; ++k) xs.push_back(k / 64.0);
  for (int k = -1000; k < 1000; ++k) xs.push_back(k * 0.1 + 0.0371);
  for (double x : {1e-30, -1e-30, 0.0, -0.0, 1e-8, -1e-8}) xs.push_back(x);
  return xs;
}

struct Worst {
  double ulps = 0, x = 0;
};

template <class T>
Worst worst_of(const Tensor& y, const std::vector<double>& xs) {
  Worst w;
  const T* p = y.data<T>();
  for (size_t k = 0; k < xs.size(); ++k) {
    const long double x = static_cast<T>(xs[k]);  // the input as the op saw it
    const double u = ulps<T>(p[k], reference(x));
    if (!(u <= w.ulps)) w = {u, xs[k]};  // NaN counts as worst
  }
  return w;
}

template <class T>
void check_op(DType dt, double bound) {
  const std::vector<double> xs = grid();
  Graph g;
  Var x = g.input(Tensor::from(Shape{static_cast<int64_t>(xs.size())}, xs, dt));
  const Worst w = worst_of<T>(ops::logistic(x).value(), xs);
  EXPECT_LE(w.ulps, bound) << "worst at x = " << w.x;
  ::testing::Test::RecordProperty("worst_ulps", std::to_string(w.ulps));
  std::printf("logistic worst error %.3g ulps at x = %g\n", w.ulps, w.x);
}

TEST(LogisticAccuracy, Float32WithinUlpsOfLongDouble) { check_op<float>(DType::f32, 4); }
TEST(LogisticAccuracy, Float64WithinUlpsOfLongDouble) { check_op<double>(DType::f64, 4); }

// The fused cell's input gate: with c_prev = 0 and g = tanh(40) = 1 in working precision, the cell's
// c = f c_prev + i g is the gate i exactly as the cell computed it.
template <class T>
void check_fused(DType dt, double bound) {
  const std::vector<double> xs = grid();
  const int64_t B = static_cast<int64_t>(xs.size());
  std::vector<double> a(static_cast<size_t>(B) * 4);
  for (int64_t r = 0; r < B; ++r) {
    a[r * 4 + 0] = xs[r];  // i
    a[r * 4 + 1] = 0;      // f (times c_prev = 0)
    a[r * 4 + 2] = 0;      // o
    a[r * 4 + 3] = 40;     // g = tanh(40) = 1
  }
  Graph g;
  Var av = g.input(Tensor::from(Shape{B, 4}, a, dt));
  Var cp = g.input(Tensor::zeros(Shape{B, 1}, dt));
  const Tensor c = ops::slice(ops::lstm_cell(av, cp), 0, 0, B).value();
  const Worst w = worst_of<T>(c, xs);
  EXPECT_LE(w.ulps, bound) << "worst at x = " << w.x;
}

TEST(LogisticAccuracy, FusedLstmGateFloat32) { check_fused<float>(DType::f32, 4); }
TEST(LogisticAccuracy, FusedLstmGateFloat64) { check_fused<double>(DType::f64, 4); }

// log(logistic(x)) stays finite and close to x - log1p(e^x) where the old formula gave -inf.
TEST(LogisticAccuracy, LogOfLogisticIsFiniteForNegativeInputs) {
  Graph g;
  const std::vector<double> xs = {-15, -18, -30, -50, -80};
  Var x = g.input(Tensor::from(Shape{5}, xs, DType::f32));
  const Tensor y = ops::log(ops::logistic(x)).value();
  for (size_t k = 0; k < xs.size(); ++k) {
    const double want = xs[k] - std::log1p(std::exp(xs[k]));
    EXPECT_NEAR(y.at(static_cast<int64_t>(k)), want, 1e-5 * std::abs(want)) << "x = " << xs[k];
  }
}

}  // namespace
}  // namespace tg
