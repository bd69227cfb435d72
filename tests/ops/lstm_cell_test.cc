// The fused LSTM cell against the same update built from ordinary ops: values, first-order
// cotangents and tangents, in float32 and float64, at widths with and without a SIMD tail.
// (Gradient checks of the fused ops themselves are rows of gradcheck/op_specs.cc.)
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "core/error.h"
#include "ops/cpu_isa.h"
#include "ops/lstm_cell_kernels.h"
#include "ops/ops.h"
#include "gradcheck/gradcheck.h"
#include "tests/harness/fused_cases.h"

#ifdef TAPEGRAD_HAVE_AVX512_KERNELS
namespace tg::ops::detail {
void lstm_forward_avx512(const float* a, const float* cp, float* out, int64_t B, int64_t H);
void lstm_backward_avx512(const float* a, const float* cp, const float* yb, float* out, int64_t B, int64_t H);
}  // namespace tg::ops::detail
#endif

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

// Both builds of the cell's kernels (AVX2 and, where the CPU has it, AVX-512; ops/cpu_isa.h) on the same
// inputs: full batches of either width and a tail (H = 40 = 2 x 16 + 8 = 5 x 8).
#ifdef TAPEGRAD_HAVE_AVX512_KERNELS
TEST(LstmCellKernels, AvxTwoAndAvx512BuildsAgree) {
  if (ops::kernel_isa() != ops::KernelIsa::avx512) GTEST_SKIP() << "this CPU (or TAPEGRAD_ISA) runs AVX2 only";
  const int64_t B = 3, H = 40;
  const Tensor a = random_tensor(Shape{B, 4 * H}, -4, 4, 21, DType::f32);
  const Tensor c = random_tensor(Shape{B, H}, -2, 2, 22, DType::f32);
  const Tensor yb = random_tensor(Shape{2 * B, H}, -1, 1, 23, DType::f32);
  std::vector<float> wide(2 * B * H), narrow(2 * B * H), wide_b(5 * B * H), narrow_b(5 * B * H);
  ops::detail::lstm_forward_avx512(a.data<float>(), c.data<float>(), wide.data(), B, H);
  ops::detail::lstm_kernels::forward<xsimd::default_arch, float>(a.data<float>(), c.data<float>(), narrow.data(), B, H);
  ops::detail::lstm_backward_avx512(a.data<float>(), c.data<float>(), yb.data<float>(), wide_b.data(), B, H);
  ops::detail::lstm_kernels::backward<xsimd::default_arch, float>(a.data<float>(), c.data<float>(), yb.data<float>(),
                                                                  narrow_b.data(), B, H);
  for (size_t i = 0; i < wide.size(); ++i) EXPECT_NEAR(wide[i], narrow[i], 1e-6) << "forward " << i;
  for (size_t i = 0; i < wide_b.size(); ++i) EXPECT_NEAR(wide_b[i], narrow_b[i], 1e-6) << "backward " << i;
}
#endif

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
