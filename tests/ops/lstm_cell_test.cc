// The fused LSTM cell against the same update built from ordinary ops: values, first-order
// cotangents and tangents, in float32 and float64, at widths with and without a SIMD tail.
// (Gradient checks of the fused ops themselves are rows of gradcheck/op_specs.cc.)
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "core/error.h"
#include "ops/ops.h"
#include "gradcheck/gradcheck.h"
#include "tests/harness/fused_cases.h"

namespace tg {
namespace {

struct Cell {
  Var c, h;
};
Cell unfused(Var a, Var c_prev) {
  std::vector<Var> q = ops::split(a, 1, 4);
  Var i = ops::logistic(q[0]), f = ops::logistic(q[1]), o = ops::logistic(q[2]), g = ops::tanh(q[3]);
  Var c = f * c_prev + i * g;
  return {c, o * ops::tanh(c)};
}
Cell fused(Var a, Var c_prev) {
  const int64_t B = c_prev.shape()[0];
  Var y = ops::lstm_cell(a, c_prev);
  return {ops::slice(y, 0, 0, B), ops::slice(y, 0, B, 2 * B)};
}

using check::FusedCase;
using check::max_abs_diff;
using check::random_tensor;

class LstmCellFused : public ::testing::TestWithParam<FusedCase> {};

TEST_P(LstmCellFused, MatchesOrdinaryOpsInValueCotangentAndTangent) {
  const FusedCase k = GetParam();
  Graph g;
  Var a = g.input(random_tensor(Shape{k.B, 4 * k.H}, -3, 3, 1, k.dt));
  Var c_prev = g.input(random_tensor(Shape{k.B, k.H}, -2, 2, 2, k.dt));
  const Cell u = unfused(a, c_prev), f = fused(a, c_prev);
  EXPECT_LE(max_abs_diff(f.c.value(), u.c.value()), k.tol);
  EXPECT_LE(max_abs_diff(f.h.value(), u.h.value()), k.tol);

  // cotangents of a and c_prev for random cotangents of c and h
  Var c_bar = g.input(random_tensor(Shape{k.B, k.H}, -1, 1, 3, k.dt));
  Var h_bar = g.input(random_tensor(Shape{k.B, k.H}, -1, 1, 4, k.dt));
  const Var wrt[] = {a, c_prev};
  const ad::Seed su[] = {{u.c, c_bar}, {u.h, h_bar}}, sf[] = {{f.c, c_bar}, {f.h, h_bar}};
  std::vector<Var> gu = ad::vjp(su, wrt), gf = ad::vjp(sf, wrt);
  for (size_t i = 0; i < 2; ++i) EXPECT_LE(max_abs_diff(gf[i].value(), gu[i].value()), k.tol) << "input " << i;

  // tangents of c and h for random tangents of a and c_prev
  const Var tangents[] = {g.input(random_tensor(Shape{k.B, 4 * k.H}, -1, 1, 5, k.dt)),
                          g.input(random_tensor(Shape{k.B, k.H}, -1, 1, 6, k.dt))};
  const Var ou[] = {u.c, u.h}, of[] = {f.c, f.h};
  std::vector<Var> tu = ad::jvp(ou, wrt, tangents), tf = ad::jvp(of, wrt, tangents);
  for (size_t i = 0; i < 2; ++i) EXPECT_LE(max_abs_diff(tf[i].value(), tu[i].value()), k.tol) << "output " << i;
}

INSTANTIATE_TEST_SUITE_P(Widths, LstmCellFused, check::kFusedCases);

TEST(LstmCellFused, ReportsShapesItCannotTake) {
  Graph g;
  Var a = g.input(Tensor::zeros({2, 12}, DType::f32));
  Var c = g.input(Tensor::zeros({2, 4}, DType::f32));
  EXPECT_THROW(ops::lstm_cell(a, c), ShapeError);  // a must be [2, 16]
  EXPECT_THROW(ops::lstm_cell_vjp(g.input(Tensor::zeros({2, 16}, DType::f32)), c, c), ShapeError);  // y_bar [4, 4]
}

TEST(SliceOfLeadingRows, IsAViewWithTheSameValues) {
  Graph g;
  Var x = g.input(random_tensor(Shape{6, 5}, -1, 1, 7, DType::f32));
  Var rows = ops::slice(x, 0, 2, 4);
  EXPECT_EQ(rows.value().raw(), static_cast<const void*>(static_cast<const char*>(x.value().raw()) + 2 * 5 * sizeof(float)));
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(rows.value().at(r * 5 + j), x.value().at((r + 2) * 5 + j));
  Var cols = ops::slice(x, 1, 1, 3);  // not contiguous: a copy
  const char* base = static_cast<const char*>(x.value().raw());
  const char* got = static_cast<const char*>(cols.value().raw());
  EXPECT_TRUE(got < base || got >= base + 30 * sizeof(float));
}

}  // namespace
}  // namespace tg
