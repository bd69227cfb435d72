// The fused GRU update against the same update built from ordinary ops: values, cotangents (the one-off
// reverse sweep's fused VJP and, in a linearization, the reused factors' products) and tangents, in float32
// and float64, at widths with and without a SIMD tail. (Gradient checks of the fused ops themselves are rows
// of gradcheck/op_specs.cc.)
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "core/error.h"
#include "core/linearize.h"
#include "gradcheck/gradcheck.h"
#include "tests/harness/fused_cases.h"
#include "ops/ops.h"

namespace tg {
namespace {

Var unfused(Var a_z, Var u, Var h) {
  Var z = ops::logistic(a_z);
  return z * h + (1.0 - z) * ops::tanh(u);
}

using check::FusedCase;
using check::max_abs_diff;
using check::random_tensor;

class GruUpdateFused : public ::testing::TestWithParam<FusedCase> {};

TEST_P(GruUpdateFused, MatchesOrdinaryOpsInValueCotangentAndTangent) {
  const FusedCase k = GetParam();
  const Shape s{k.B, k.H};
  Graph g;
  const Var x[] = {g.input(random_tensor(s, -3, 3, 1, k.dt)), g.input(random_tensor(s, -3, 3, 2, k.dt)),
                   g.input(random_tensor(s, -2, 2, 3, k.dt))};
  const Var yu = unfused(x[0], x[1], x[2]), yf = ops::gru_update(x[0], x[1], x[2]);
  EXPECT_LE(max_abs_diff(yf.value(), yu.value()), k.tol);

  // cotangents of a_z, u and h for a random cotangent of h' (a one-off sweep: the fused VJP)
  const Var y_bar = g.input(random_tensor(s, -1, 1, 4, k.dt));
  const ad::Seed su{yu, y_bar}, sf{yf, y_bar};
  const std::vector<Var> gu = ad::vjp(std::span(&su, 1), x), gf = ad::vjp(std::span(&sf, 1), x);
  for (size_t i = 0; i < 3; ++i) EXPECT_LE(max_abs_diff(gf[i].value(), gu[i].value()), k.tol) << "input " << i;

  // the tangent of h' for random tangents of the inputs
  const Var t[] = {g.input(random_tensor(s, -1, 1, 5, k.dt)), g.input(random_tensor(s, -1, 1, 6, k.dt)), g.input(random_tensor(s, -1, 1, 7, k.dt))};
  // both tangents built before either value is read: building moves the graph's value storage
  const Var tf = ad::jvp(std::span(&yf, 1), x, t)[0], tu = ad::jvp(std::span(&yu, 1), x, t)[0];
  EXPECT_LE(max_abs_diff(tf.value(), tu.value()), k.tol);
}

INSTANTIATE_TEST_SUITE_P(Widths, GruUpdateFused, check::kFusedCases);

// A linearization's products: its Hessian-vector products (the JVP of the one-off gradient graph, which
// goes through gru_update_vjp's reference rules) and a VJP seeded at h' itself, whose cotangent is a
// segment's placeholder, so the rule multiplies by the cached factors: fused and unfused agree.
TEST(GruUpdateFused, ALinearizationsProductsMatchOrdinaryOps) {
  auto hvp = [](bool fused) {
    Graph g;
    const Shape s{3, 5};
    const Var x[] = {g.input(random_tensor(s, -3, 3, 1, DType::f64)), g.input(random_tensor(s, -3, 3, 2, DType::f64)),
                     g.input(random_tensor(s, -2, 2, 3, DType::f64))};
    const Var y = fused ? ops::gru_update(x[0], x[1], x[2]) : unfused(x[0], x[1], x[2]);
    ad::Linearization lin(std::vector<Var>(std::begin(x), std::end(x)), ops::sum(ops::square(ops::tanh(y))));
    const std::vector<Tensor> v = {random_tensor(s, -1, 1, 8, DType::f64), random_tensor(s, -1, 1, 9, DType::f64),
                                   random_tensor(s, -1, 1, 10, DType::f64)};
    lin.hvp(v);  // the first call builds the segment; the second re-runs it
    std::vector<Tensor> out = lin.hvp(v);
    // and a cotangent seeded at h' itself (a placeholder of the VJP segment)
    const Tensor y_bar[] = {random_tensor(s, -1, 1, 11, DType::f64)};
    for (const Tensor& t : lin.vjp({y}, y_bar)) out.push_back(t);
    return out;
  };
  const std::vector<Tensor> f = hvp(true), u = hvp(false);
  ASSERT_EQ(f.size(), 6u);
  for (size_t i = 0; i < f.size(); ++i) EXPECT_LE(max_abs_diff(f[i], u[i]), 1e-13) << "product " << i;
}

TEST(GruUpdateFused, ReportsShapesItCannotTake) {
  Graph g;
  Var a = g.input(Tensor::zeros({2, 4}, DType::f32));
  Var b = g.input(Tensor::zeros({2, 5}, DType::f32));
  EXPECT_THROW(ops::gru_update(a, a, b), ShapeError);
  EXPECT_THROW(ops::gru_update_vjp(a, a, a, b), ShapeError);
}

}  // namespace
}  // namespace tg
