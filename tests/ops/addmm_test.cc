// addmm (C + op(A) op(B) in one BLAS call with beta = 1) against the ordinary add of a matmul, where
// models and the reverse sweep use it: a recurrence's x_t W_x + h_{t-1} W_h and the sweep's h_bar + delta W^T.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "gradcheck/gradcheck.h"
#include "ops/ops.h"

namespace tg {
namespace {

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double d = 0;
  for (int64_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a.at(i) - b.at(i)));
  return d;
}

class AddmmDtypes : public ::testing::TestWithParam<DType> {};

TEST_P(AddmmDtypes, EqualsAddOfMatmulForEveryTransposeFlag) {
  const DType dt = GetParam();
  for (int flags = 0; flags < 4; ++flags) {
    const bool ta = flags & 1, tb = flags & 2;
    const int64_t m = 7, k = 5, n = 3;
    std::vector<Tensor> v = check::random_inputs({Shape{m, n}, ta ? Shape{k, m} : Shape{m, k}, tb ? Shape{n, k} : Shape{k, n}},
                                                 -1, 1, 11 + flags);
    Graph g;
    Var c = g.input(v[0].astype(dt)), a = g.input(v[1].astype(dt)), b = g.input(v[2].astype(dt));
    Var fused = ops::addmm(c, a, b, ta, tb);
    Var plain = ops::add(c, ops::matmul(a, b, ta, tb));
    ASSERT_STREQ(g.node(fused.id()).prim->name, "addmm");
    EXPECT_EQ(fused.shape(), (Shape{m, n}));
    EXPECT_LE(max_abs_diff(fused.value(), plain.value()), dt == DType::f64 ? 1e-15 : 1e-6) << "ta " << ta << " tb " << tb;
  }
}

INSTANTIATE_TEST_SUITE_P(Both, AddmmDtypes, ::testing::Values(DType::f32, DType::f64));

TEST(Addmm, EmptyOperandsAreSymbolicZeros) {
  Graph g;
  std::vector<Tensor> v = check::random_inputs({Shape{2, 3}, Shape{2, 4}, Shape{4, 3}}, -1, 1, 3);
  Var c = g.input(v[0]), a = g.input(v[1]), b = g.input(v[2]);
  EXPECT_EQ(ops::addmm(c, Var(), b).id(), c.id());
  EXPECT_EQ(ops::addmm(c, a, Var()).id(), c.id());
  EXPECT_STREQ(g.node(ops::addmm(Var(), a, b).id()).prim->name, "matmul");
}

// A C that broadcasts (a bias row) is not addmm's operand: the ordinary add takes it, with its own rules.
TEST(Addmm, BroadcastingSumFallsBackToAdd) {
  Graph g;
  std::vector<Tensor> v = check::random_inputs({Shape{3}, Shape{2, 4}, Shape{4, 3}}, -1, 1, 4);
  Var y = ops::addmm(g.input(v[0]), g.input(v[1]), g.input(v[2]));
  EXPECT_STREQ(g.node(y.id()).prim->name, "add");
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
}

TEST(Addmm, MismatchedProductNamesTheShapes) {
  Graph g;
  std::vector<Tensor> v = check::random_inputs({Shape{2, 3}, Shape{2, 4}, Shape{5, 3}}, -1, 1, 5);
  try {
    ops::addmm(g.input(v[0]), g.input(v[1]), g.input(v[2]));
    FAIL() << "expected a shape error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("inner dims differ"), std::string::npos) << e.what();
  }
}

// h_t = tanh(x_t + h_{t-1} W): the forward is addmm at every step, and so is the reverse sweep's
// h_bar_{t-1} = (loss's part) + delta_t W^T; the gradient equals the one of add + matmul.
TEST(Addmm, RecurrenceForwardAndReverseSweepUseItWithTheSameGradient) {
  const std::vector<Tensor> v = check::random_inputs({Shape{4, 4}, Shape{3, 4}, Shape{6 * 3, 4}}, -1, 1, 9);
  auto grads = [&](bool fused, int* addmm_nodes) {
    Graph g;
    Var w = g.input(v[0]), h = g.input(v[1]), x = g.input(v[2]);
    Var loss;
    for (int t = 0; t < 6; ++t) {
      Var x_t = ops::slice(x, 0, 3 * t, 3 * t + 3);
      h = ops::tanh(fused ? ops::addmm(x_t, h, w) : ops::add(x_t, ops::matmul(h, w)));
      loss = ops::add(loss, ops::sum(ops::square(h)));
    }
    std::vector<Var> gs = ad::grad(loss, std::vector<Var>{w, x});
    std::vector<Tensor> values{gs[0].value(), gs[1].value()};
    *addmm_nodes = 0;
    for (int32_t id = 0; id < g.size(); ++id) *addmm_nodes += std::string(g.node(id).prim->name) == "addmm" && !g.pending(id);
    return values;
  };
  int fused_count = 0, plain_count = 0;
  const std::vector<Tensor> fused = grads(true, &fused_count), plain = grads(false, &plain_count);
  EXPECT_EQ(fused_count, 6 + 5) << "6 forward steps, 5 reverse-sweep sums (the last h's has no product)";
  EXPECT_EQ(plain_count, 5) << "the reverse sweep folds its products whatever the forward used";
  for (size_t i = 0; i < 2; ++i) EXPECT_LE(max_abs_diff(fused[i], plain[i]), 1e-14);
}

TEST(Addmm, PassesTheGradientCheckHarnessToSecondOrder) {
  auto f = [](Graph&, std::span<const Var> x) {
    return std::vector<Var>{ops::tanh(ops::addmm(x[0], x[1], x[2])), ops::addmm(x[0], x[1], x[2], false, false)};
  };
  check::Report r = check::check_fn(f, check::random_inputs({Shape{3, 2}, Shape{3, 4}, Shape{4, 2}}, -1, 1, 7));
  EXPECT_TRUE(r.ok) << r.failure;
}

}  // namespace
}  // namespace tg
