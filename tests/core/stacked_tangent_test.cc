// A JVP computes a weight's tangent products with many primal operands, h_{t-1} dW in every step of a
// recurrence, as one product of the operands stacked (core/ad.cc, stack_tangent_products). Checked here:
// the tangents and Gauss-Newton products equal the ones where every step has its own copy of W (so no
// product shares a tangent), through addmm and through matmul; one stacked product is made, and only for a
// weight read by more than one product and large enough; a rebuilt graph makes the same nodes.
#include <gtest/gtest.h>

#include <string>

#include "core/ad.h"
#include "core/linearize.h"
#include "ops/ops.h"
#include "gradcheck/gradcheck.h"
#include "tests/harness/fused_cases.h"

namespace tg {
namespace {

constexpr int kSteps = 6;
constexpr int64_t kBatch = 3;

using check::max_abs_diff;  // tests/harness/fused_cases.h: also checks the shapes agree

// A recurrence h_t = tanh(x_t + h_{t-1} W_t), written with addmm or with matmul and add, W_t = W for every
// t (shared) or kSteps leaves holding W's values. Its outputs are every h_t; the loss is Σ_t Σ h_t².
struct Recurrence {
  std::vector<Var> ws;  // one leaf, or one per step
  Var h0;
  std::vector<Var> hs;
  Var loss;
};

// With transposed, W is read as Wᵀ (tb = true): the weight of a product and of its VJP (an RBM's, a gated
// autoencoder's). With x_tangent, x has a tangent too, so addmm's C has one beside the stacked rows.
struct Variant {
  bool shared = true;
  bool use_addmm = true;
  bool transposed = false;
  bool x_tangent = false;
};

Recurrence build(Graph& g, const std::vector<Tensor>& v, const Variant& c, Var* x_out = nullptr) {
  Recurrence r;
  for (int t = 0; t < (c.shared ? 1 : kSteps); ++t) r.ws.push_back(g.input(v[0]));
  r.h0 = g.input(v[1]);
  Var x = g.input(v[2]), h = r.h0;
  if (x_out) *x_out = x;
  for (int t = 0; t < kSteps; ++t) {
    Var x_t = ops::slice(x, 0, kBatch * t, kBatch * (t + 1));
    Var w = r.ws[c.shared ? 0 : t];
    h = ops::tanh(c.use_addmm ? ops::addmm(x_t, h, w, false, c.transposed)
                              : ops::add(x_t, ops::matmul(h, w, false, c.transposed)));
    r.hs.push_back(h);
    r.loss = ops::add(r.loss, ops::sum(ops::square(h)));
  }
  return r;
}

// Products whose result has a row for every step's batch: the stacked ones.
int stacked_products(const Graph& g) {
  int n = 0;
  for (int32_t id = 0; id < g.size(); ++id) {
    const Node& node = g.node(id);
    n += node.prim->name == std::string("matmul") && node.shape.rank() == 2 && node.shape[0] == kBatch * kSteps;
  }
  return n;
}

std::vector<Tensor> inputs(int64_t hidden) {
  return check::random_inputs({Shape{hidden, hidden}, Shape{kBatch, hidden}, Shape{kBatch * kSteps, hidden},
                               Shape{hidden, hidden}, Shape{kBatch, hidden}, Shape{kBatch * kSteps, hidden}},
                              -0.3, 0.3, 7);
}

// The tangent of the last h for the tangent v[3] on W (on each copy), v[4] on h_0 and, with x_tangent, v[5] on x.
Tensor last_state_tangent(Graph& g, const std::vector<Tensor>& v, const Variant& c) {
  Var x;
  Recurrence r = build(g, v, c, &x);
  std::vector<Var> in = r.ws, tangents;
  for (size_t i = 0; i < r.ws.size(); ++i) tangents.push_back(g.input(v[3]));
  in.push_back(r.h0);
  tangents.push_back(g.input(v[4]));
  if (c.x_tangent) {
    in.push_back(x);
    tangents.push_back(g.input(v[5]));
  }
  return ad::jvp(std::vector<Var>{r.hs.back()}, in, tangents)[0].value();
}

// The same tangent with W shared and with a copy per step; the graph of the shared one is kept.
double shared_against_copies(Graph& shared_g, const std::vector<Tensor>& v, Variant c) {
  Graph copies_g;
  c.shared = true;
  const Tensor shared = last_state_tangent(shared_g, v, c);
  c.shared = false;
  const Tensor copies = last_state_tangent(copies_g, v, c);
  EXPECT_EQ(stacked_products(copies_g), 0) << "a tangent read by one product is not stacked";
  return max_abs_diff(shared, copies);
}

// Gauss-Newton product of Σ h_t² at the states, with v[3] on W (each copy) and v[4] on h_0: W's part
// (summed over the copies) and h_0's.
std::vector<Tensor> gauss_newton(Graph& g, const std::vector<Tensor>& v, bool shared) {
  Variant c;
  c.shared = shared;
  Recurrence r = build(g, v, c);
  std::vector<Var> wrt = r.ws;
  wrt.push_back(r.h0);
  std::vector<Tensor> direction(r.ws.size(), v[3]);
  direction.push_back(v[4]);
  ad::Linearization lin(wrt, r.loss);
  std::vector<Tensor> gv = lin.gnvp(direction, ad::Block{r.hs, r.loss});
  Tensor w_part = gv[0];
  for (size_t i = 1; i + 1 < gv.size(); ++i) w_part = ops::add(g.input(w_part), g.input(gv[i])).value();
  return {w_part, gv.back()};
}

TEST(StackedTangent, AddmmRecurrenceTangentEqualsPerStepCopies) {
  Graph g;
  EXPECT_LE(shared_against_copies(g, inputs(64), Variant{}), 1e-13);
  EXPECT_EQ(stacked_products(g), 1) << "h_{t-1} dW of all steps in one product";
}

TEST(StackedTangent, MatmulRecurrenceTangentEqualsPerStepCopies) {
  Graph g;
  EXPECT_LE(shared_against_copies(g, inputs(64), Variant{.use_addmm = false}), 1e-13);
  EXPECT_EQ(stacked_products(g), 1);
}

// Square weights: a stacked product that forgot the flag would still fit, and be wrong.
TEST(StackedTangent, WeightReadTransposedEqualsPerStepCopies) {
  for (bool use_addmm : {true, false}) {
    Graph g;
    EXPECT_LE(shared_against_copies(g, inputs(64), Variant{.use_addmm = use_addmm, .transposed = true}), 1e-13)
        << (use_addmm ? "addmm" : "matmul");
    EXPECT_EQ(stacked_products(g), 1);
  }
}

// addmm's C has a tangent of its own: the stacked rows are added to it.
TEST(StackedTangent, AddendWithItsOwnTangentEqualsPerStepCopies) {
  Graph g;
  EXPECT_LE(shared_against_copies(g, inputs(64), Variant{.x_tangent = true}), 1e-13);
  EXPECT_EQ(stacked_products(g), 1);
}

// A weight that is no input of the jvp and older than every one of them (built first): its products have no B
// tangent, and nothing is stacked. The sweep must not look it up among the inputs. The reference builds the
// weight after h_0, inside the jvp's range, where the lookup is in bounds.
TEST(StackedTangent, AWeightOlderThanTheInputsIsNotLookedUp) {
  const std::vector<Tensor> v = inputs(64);
  auto last_state_tangent_along_h0 = [&](Graph& g, bool weight_first) {
    Var w = weight_first ? g.input(v[0]) : Var();
    Var h0 = g.input(v[1]), x = g.input(v[2]), h = h0;
    if (!weight_first) w = g.input(v[0]);
    for (int t = 0; t < kSteps; ++t) h = ops::tanh(ops::addmm(ops::slice(x, 0, kBatch * t, kBatch * (t + 1)), h, w));
    return ad::jvp(std::vector<Var>{h}, std::vector<Var>{h0}, std::vector<Var>{g.input(v[4])})[0].value();
  };
  Graph older, younger;
  EXPECT_LE(max_abs_diff(last_state_tangent_along_h0(older, true), last_state_tangent_along_h0(younger, false)), 1e-13);
  EXPECT_EQ(stacked_products(older), 0);
}

TEST(StackedTangent, GaussNewtonProductEqualsPerStepCopies) {
  const std::vector<Tensor> v = inputs(64);
  Graph shared_g, copies_g;
  const std::vector<Tensor> shared = gauss_newton(shared_g, v, true);
  const std::vector<Tensor> copies = gauss_newton(copies_g, v, false);
  for (size_t i = 0; i < shared.size(); ++i) EXPECT_LE(max_abs_diff(shared[i], copies[i]), 1e-12) << "output " << i;
  EXPECT_EQ(stacked_products(shared_g), 1);
}

TEST(StackedTangent, SmallWeightsAreNotStacked) {
  Graph g;
  EXPECT_LE(shared_against_copies(g, inputs(8), Variant{}), 1e-14);  // 64 elements
  EXPECT_EQ(stacked_products(g), 0);
}

TEST(StackedTangent, ARebuiltGraphMakesTheSameNodes) {
  const std::vector<Tensor> v = inputs(64);
  Graph g;
  const Tensor first = last_state_tangent(g, v, Variant{});
  const int32_t nodes = g.size();
  g.rebuild();
  const Tensor again = last_state_tangent(g, v, Variant{});
  EXPECT_EQ(g.size(), nodes);
  EXPECT_EQ(g.reused_nodes(), nodes);
  EXPECT_EQ(max_abs_diff(first, again), 0.0);
}

}  // namespace
}  // namespace tg
