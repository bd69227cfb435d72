// tanh_scan and linear_scan (ops/scan.cc), a recurrence as one node, against the same recurrence unrolled a
// step at a time in ordinary ops (addmm, tanh, mul, add): values, gradients, Gauss-Newton and Hessian
// products, both directions, float64 and float32. (Their rules' own gradient checks, to second order, are
// rows of gradcheck/op_specs.cc.)
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/linearize.h"
#include "gradcheck/gradcheck.h"
#include "ops/ops.h"
#include "tests/harness/fused_cases.h"

namespace tg {
namespace {

using check::max_abs_diff;

constexpr int64_t kSteps = 5, kBatch = 3, kHidden = 4;

// The scan's rows of step t (rows [t·B, (t+1)·B)).
Var step_rows(Var x, int64_t t) { return ops::slice(x, 0, t * kBatch, (t + 1) * kBatch); }

// [H; P] of h_t = tanh(u_t + h_prev W), a node per step.
Var tanh_unrolled(Var u, Var w, Var h0, bool reverse) {
  std::vector<Var> h(kSteps), p(kSteps);
  Var prev = h0;
  for (int64_t k = 0; k < kSteps; ++k) {
    const int64_t t = reverse ? kSteps - 1 - k : k;
    p[t] = ops::addmm(step_rows(u, t), prev, w);
    prev = h[t] = ops::tanh(p[t]);
  }
  std::vector<Var> all = h;
  all.insert(all.end(), p.begin(), p.end());
  return ops::concat(all, 0);
}
// z_t = (u_t + z_prev W) ⊙ a_t + c_t, a node per step.
Var linear_unrolled(Var u, Var w, Var a, Var c, Var z0, bool reverse) {
  std::vector<Var> z(kSteps);
  Var prev = z0;
  for (int64_t k = 0; k < kSteps; ++k) {
    const int64_t t = reverse ? kSteps - 1 - k : k;
    prev = z[t] = ops::add(ops::mul(ops::addmm(step_rows(u, t), prev, w), step_rows(a, t)), step_rows(c, t));
  }
  return ops::concat(z, 0);
}

// The loss Σ sin(y) · y of the recurrence's output (fused or unrolled) and every product of it with respect
// to all inputs: value, gradient, Gauss-Newton product (block: the output) and Hessian product.
std::vector<Tensor> products(bool linear, bool fused, bool reverse, DType dt) {
  const Shape rows{kSteps * kBatch, kHidden}, w{kHidden, kHidden}, state{kBatch, kHidden};
  std::vector<Shape> shapes = linear ? std::vector<Shape>{rows, w, rows, rows, state} : std::vector<Shape>{rows, w, state};
  const std::vector<Tensor> v = check::random_inputs(shapes, -0.8, 0.8, 21);
  const std::vector<Tensor> dirs = check::random_inputs(shapes, -1, 1, 22);
  Graph g;
  std::vector<Var> x;
  for (const Tensor& t : v) x.push_back(g.input(t.astype(dt)));
  const Var y = linear ? (fused ? ops::linear_scan(x[0], x[1], x[2], x[3], x[4], reverse)
                                : linear_unrolled(x[0], x[1], x[2], x[3], x[4], reverse))
                       : (fused ? ops::tanh_scan(x[0], x[1], x[2], reverse) : tanh_unrolled(x[0], x[1], x[2], reverse));
  const Var loss = ops::sum(ops::mul(ops::sin(y), y));
  ad::Linearization lin(x, loss);
  std::vector<Tensor> out{y.value(), loss.value()};
  for (const Tensor& t : lin.grad()) out.push_back(t);
  std::vector<Tensor> d;
  for (const Tensor& t : dirs) d.push_back(t.astype(dt));
  for (const Tensor& t : lin.gnvp(d, ad::Block{{y}, loss})) out.push_back(t);
  for (const Tensor& t : lin.hvp(d)) out.push_back(t);
  return out;
}

void expect_same(bool linear, bool reverse, DType dt, double tol) {
  const std::vector<Tensor> fused = products(linear, true, reverse, dt), unrolled = products(linear, false, reverse, dt);
  ASSERT_EQ(fused.size(), unrolled.size());
  for (size_t i = 0; i < fused.size(); ++i)
    EXPECT_LE(max_abs_diff(fused[i].astype(DType::f64), unrolled[i].astype(DType::f64)), tol)
        << (linear ? "linear_scan" : "tanh_scan") << (reverse ? " reversed" : "") << " " << dtype_name(dt)
        << " product " << i;
}

TEST(Scan, TanhScanEqualsTheUnrolledRecurrence) {
  for (bool reverse : {false, true}) {
    expect_same(false, reverse, DType::f64, 1e-13);
    expect_same(false, reverse, DType::f32, 2e-5);
  }
}

TEST(Scan, LinearScanEqualsTheUnrolledRecurrence) {
  for (bool reverse : {false, true}) {
    expect_same(true, reverse, DType::f64, 1e-13);
    expect_same(true, reverse, DType::f32, 2e-5);
  }
}

TEST(Scan, ShapesAreCheckedWithTheirNames) {
  Graph g;
  Var u = g.input(Tensor::zeros({6, 4}, DType::f64)), w = g.input(Tensor::zeros({4, 4}, DType::f64));
  Var h0 = g.input(Tensor::zeros({4, 4}, DType::f64)), w3 = g.input(Tensor::zeros({3, 3}, DType::f64));
  EXPECT_THROW(ops::tanh_scan(u, w, h0), ShapeError);   // 6 rows are not whole steps of 4
  EXPECT_THROW(ops::tanh_scan(u, w3, ops::slice(h0, 0, 0, 2)), ShapeError);  // W [3,3] for 4 units
}

}  // namespace
}  // namespace tg
