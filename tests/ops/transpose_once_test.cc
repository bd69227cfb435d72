// matmul's VJP transposes a weight that many products share once (ops/linalg.cc, times_transpose_of):
// the cotangent of h in h W is yb Wᵀ, which BLAS runs at about half speed with W read transposed.
// Checked here: the gradient equals the one where every step has its own copy of W (each read transposed
// by its own product), the transpose is made once and only for a weight used more than once and large
// enough, and a rebuilt graph makes the same nodes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/ad.h"
#include "gradcheck/gradcheck.h"
#include "ops/ops.h"
#include "tests/harness/fused_cases.h"

namespace tg {
namespace {

constexpr int kSteps = 6;

using check::max_abs_diff;  // tests/harness/fused_cases.h: also checks the shapes agree

int count_evaluated(const Graph& g, const std::string& prim) {
  int n = 0;
  for (int32_t id = 0; id < g.size(); ++id) n += g.node(id).prim->name == prim && !g.pending(id);
  return n;
}

// A tanh recurrence h_t = tanh(x_t + h_{t-1} W_t) with loss Σ_t Σ h_t², W_t = W for every t (shared) or
// kSteps leaves holding W's values (one each). Returns the gradient with respect to W (summed over the
// copies) and h_0.
std::vector<Tensor> recurrence_gradient(Graph& g, const std::vector<Tensor>& v, bool shared) {
  std::vector<Var> ws;
  for (int t = 0; t < (shared ? 1 : kSteps); ++t) ws.push_back(g.input(v[0]));
  Var h0 = g.input(v[1]), x = g.input(v[2]), h = h0, loss;
  const int64_t b = v[1].shape()[0];
  for (int t = 0; t < kSteps; ++t) {
    Var x_t = ops::slice(x, 0, b * t, b * (t + 1));
    h = ops::tanh(ops::addmm(x_t, h, ws[shared ? 0 : t]));
    loss = ops::add(loss, ops::sum(ops::square(h)));
  }
  std::vector<Var> wrt = ws;
  wrt.push_back(h0);
  std::vector<Var> gs = ad::grad(loss, wrt);
  Tensor w_bar = gs[0].value().astype(DType::f64);
  for (size_t i = 1; i + 1 < gs.size(); ++i) w_bar = ops::add(g.input(w_bar), gs[i]).value();
  return {w_bar, gs.back().value()};
}

std::vector<Tensor> inputs(int64_t hidden) {
  return check::random_inputs({Shape{hidden, hidden}, Shape{3, hidden}, Shape{3 * kSteps, hidden}}, -0.3, 0.3, 5);
}

TEST(TransposeOnce, SharedWeightGivesTheGradientOfPerStepCopies) {
  const std::vector<Tensor> v = inputs(64);
  Graph shared_g, copies_g;
  const std::vector<Tensor> shared = recurrence_gradient(shared_g, v, true);
  const std::vector<Tensor> copies = recurrence_gradient(copies_g, v, false);
  for (size_t i = 0; i < shared.size(); ++i) EXPECT_LE(max_abs_diff(shared[i], copies[i]), 1e-13) << "output " << i;
  EXPECT_EQ(count_evaluated(shared_g, "transpose"), 1) << "W transposed once for the whole sweep";
  EXPECT_EQ(count_evaluated(copies_g, "transpose"), 0) << "a weight read by one product is never transposed";
}

TEST(TransposeOnce, OnlyTheFirstProductReadsTheWeightTransposed) {
  const std::vector<Tensor> v = inputs(64);
  Graph g;
  recurrence_gradient(g, v, true);
  int read_transposed = 0, read_stored_transpose = 0;
  for (int32_t id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    const std::string name = n.prim->name;
    if ((name != "matmul" && name != "addmm") || g.pending(id)) continue;  // a product the sweep folded stays pending
    const int32_t b = n.in[name == "addmm" ? 2 : 1];
    if (g.node(b).prim->name == std::string("transpose")) ++read_stored_transpose;
    else if (n.attrs.tb && g.node(b).shape == (Shape{64, 64})) ++read_transposed;
  }
  // the sweep's products for h_{t-1}'s cotangent: kSteps - 1 (h_0's among them, the first has none before it)
  EXPECT_EQ(read_transposed, 1);
  EXPECT_EQ(read_stored_transpose, kSteps - 1);
}

// A recurrence that multiplies by Wᵀ written as transpose(W): the sweep's products multiply by W itself
// (no copy of the copy), and the cotangent of h_0 equals the one with Wᵀ given as a leaf.
TEST(TransposeOnce, AProductWithATransposeReadsItsInput) {
  const std::vector<Tensor> v = inputs(64);
  auto h0_gradient = [&](Graph& g, bool transpose_node) {
    Var w = g.input(v[0]);
    Var wt = transpose_node ? ops::transpose(w) : g.input(ops::transpose(w).value());
    Var h0 = g.input(v[1]), x = g.input(v[2]), h = h0, loss;
    for (int t = 0; t < kSteps; ++t) {
      h = ops::tanh(ops::add(ops::slice(x, 0, 3 * t, 3 * (t + 1)), ops::matmul(h, wt)));
      loss = ops::add(loss, ops::sum(ops::square(h)));
    }
    return ad::grad(loss, std::vector<Var>{h0})[0].value();
  };
  Graph with_node, with_leaf;
  EXPECT_LE(max_abs_diff(h0_gradient(with_node, true), h0_gradient(with_leaf, false)), 1e-13);
  EXPECT_EQ(count_evaluated(with_node, "transpose"), 1) << "only the model's own transpose";
}

TEST(TransposeOnce, SmallWeightsAreReadTransposedAsBefore) {
  const std::vector<Tensor> v = inputs(8);  // 64 elements: OpenBLAS's small kernels, no copy worth making
  Graph g;
  recurrence_gradient(g, v, true);
  EXPECT_EQ(count_evaluated(g, "transpose"), 0);
}

TEST(TransposeOnce, ARebuiltGraphMakesTheSameNodes) {
  const std::vector<Tensor> v = inputs(64);
  Graph g;
  const std::vector<Tensor> first = recurrence_gradient(g, v, true);
  const int32_t nodes = g.size();
  g.rebuild();
  const std::vector<Tensor> again = recurrence_gradient(g, v, true);
  EXPECT_EQ(g.size(), nodes);
  EXPECT_EQ(g.reused_nodes(), nodes) << "the memo is forgotten by rebuild() and made again in the same order";
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(max_abs_diff(first[i], again[i]), 0.0);
}

}  // namespace
}  // namespace tg
