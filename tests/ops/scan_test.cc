// The unit scans (tanh, logistic, relu) and linear_scan (ops/scan.cc), a recurrence as one node, against the same recurrence unrolled a
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

enum class Kind { linear, tanh, logistic, relu };
const char* kind_name(Kind k) {
  return k == Kind::linear ? "linear_scan" : k == Kind::tanh ? "tanh_scan" : k == Kind::logistic ? "logistic_scan" : "relu_scan";
}
Var unit(Kind k, Var p) {
  return k == Kind::tanh ? ops::tanh(p) : k == Kind::logistic ? ops::logistic(p) : ops::relu(p);
}
Var unit_scan(Kind k, Var u, Var w, Var h0, bool reverse) {
  return k == Kind::tanh       ? ops::tanh_scan(u, w, h0, reverse)
         : k == Kind::logistic ? ops::logistic_scan(u, w, h0, reverse)
                               : ops::relu_scan(u, w, h0, reverse);
}

// [H; P] of h_t = e(u_t + h_prev W), a node per step.
Var unit_unrolled(Kind kind, Var u, Var w, Var h0, bool reverse) {
  std::vector<Var> h(kSteps), p(kSteps);
  Var prev = h0;
  for (int64_t k = 0; k < kSteps; ++k) {
    const int64_t t = reverse ? kSteps - 1 - k : k;
    p[t] = ops::addmm(step_rows(u, t), prev, w);
    prev = h[t] = unit(kind, p[t]);
  }
  std::vector<Var> all = h;
  all.insert(all.end(), p.begin(), p.end());
  return ops::concat(all, 0);
}
// [Z; Q] of q_t = u_t + z_prev W, z_t = q_t ⊙ a_t + c_t, a node per step.
Var linear_unrolled(Var u, Var w, Var a, Var c, Var z0, bool reverse) {
  std::vector<Var> z(kSteps), q(kSteps);
  Var prev = z0;
  for (int64_t k = 0; k < kSteps; ++k) {
    const int64_t t = reverse ? kSteps - 1 - k : k;
    q[t] = ops::addmm(step_rows(u, t), prev, w);
    prev = z[t] = ops::add(ops::mul(q[t], step_rows(a, t)), step_rows(c, t));
  }
  std::vector<Var> all = z;
  all.insert(all.end(), q.begin(), q.end());
  return ops::concat(all, 0);
}

// The loss Σ sin(y) · y of the recurrence's output (fused or unrolled) and every product of it with respect
// to all inputs: value, gradient, Gauss-Newton product (block: the output) and Hessian product. zero_start:
// a unit scan's h0 and first step's inputs are zeros, so its first pre-activations are exactly 0.
std::vector<Tensor> products(Kind kind, bool fused, bool reverse, DType dt, bool zero_start = false) {
  const bool linear = kind == Kind::linear;
  const Shape rows{kSteps * kBatch, kHidden}, w{kHidden, kHidden}, state{kBatch, kHidden};
  std::vector<Shape> shapes = linear ? std::vector<Shape>{rows, w, rows, rows, state} : std::vector<Shape>{rows, w, state};
  std::vector<Tensor> v = check::random_inputs(shapes, -0.8, 0.8, 21);
  if (zero_start && !linear) {
    const int64_t first = reverse ? kSteps - 1 : 0;
    for (int64_t i = first * kBatch * kHidden; i < (first + 1) * kBatch * kHidden; ++i) v[0].data<double>()[i] = 0;
    v[2] = Tensor::zeros(state, DType::f64);
  }
  const std::vector<Tensor> dirs = check::random_inputs(shapes, -1, 1, 22);
  Graph g;
  std::vector<Var> x;
  for (const Tensor& t : v) x.push_back(g.input(t.astype(dt)));
  const Var y = linear ? (fused ? ops::linear_scan(x[0], x[1], x[2], x[3], x[4], reverse)
                                : linear_unrolled(x[0], x[1], x[2], x[3], x[4], reverse))
                       : (fused ? unit_scan(kind, x[0], x[1], x[2], reverse) : unit_unrolled(kind, x[0], x[1], x[2], reverse));
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

void expect_same(Kind kind, bool reverse, DType dt, double tol) {
  const std::vector<Tensor> fused = products(kind, true, reverse, dt), unrolled = products(kind, false, reverse, dt);
  ASSERT_EQ(fused.size(), unrolled.size());
  for (size_t i = 0; i < fused.size(); ++i)
    EXPECT_LE(max_abs_diff(fused[i].astype(DType::f64), unrolled[i].astype(DType::f64)), tol)
        << kind_name(kind) << (reverse ? " reversed" : "") << " " << dtype_name(dt)
        << " product " << i;
}

TEST(Scan, UnitScansEqualTheUnrolledRecurrence) {
  for (Kind kind : {Kind::tanh, Kind::logistic, Kind::relu})
    for (bool reverse : {false, true}) {
      expect_same(kind, reverse, DType::f64, 1e-13);
      expect_same(kind, reverse, DType::f32, 2e-5);
    }
}

// relu units whose first pre-activations are exactly 0 (h0 and the first step's inputs zeros): the scan's
// slope there is relu's own (0 at 0), so every product equals the unrolled relu's; and units are off where
// relu's are.
TEST(Scan, ReluScanAtExactlyZeroIsReluThere) {
  for (bool reverse : {false, true}) {
    const std::vector<Tensor> fused = products(Kind::relu, true, reverse, DType::f64, /*zero_start=*/true);
    const std::vector<Tensor> unrolled = products(Kind::relu, false, reverse, DType::f64, /*zero_start=*/true);
    ASSERT_EQ(fused.size(), unrolled.size());
    for (size_t i = 0; i < fused.size(); ++i)
      EXPECT_LE(max_abs_diff(fused[i], unrolled[i]), 1e-13) << (reverse ? "reversed " : "") << "product " << i;
    int zeros = 0;
    for (int64_t i = 0; i < 2 * kSteps * kBatch * kHidden; ++i) zeros += fused[0].data<double>()[i] == 0;
    EXPECT_GT(zeros, kBatch * kHidden);  // the first step's units and more
  }
}

TEST(Scan, LinearScanEqualsTheUnrolledRecurrence) {
  for (bool reverse : {false, true}) {
    expect_same(Kind::linear, reverse, DType::f64, 1e-13);
    expect_same(Kind::linear, reverse, DType::f32, 2e-5);
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
