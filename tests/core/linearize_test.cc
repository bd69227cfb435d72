// linearize: one primal evaluation serves any number of JVP / VJP / Gauss-Newton / Hessian products.
#include <gtest/gtest.h>

#include "core/ad.h"
#include "core/linearize.h"
#include "ops/ops.h"

namespace tg {
namespace {

// A small tanh RNN over T steps with a softmax loss: enough structure (recurrence, shared weights,
// broadcasting, gather) to exercise every segment kind.
struct TinyRnn {
  ParamSet ps{DType::f64};
  ParamId wx, wh, b, wo;
  TinyRnn() {
    Rng rng(3);
    wx = ps.add("wx", {5, 4}, init::normal(0.5), &rng);
    wh = ps.add("wh", {4, 4}, init::normal(0.5), &rng);
    b = ps.add("b", {4}, init::normal(0.1), &rng);
    wo = ps.add("wo", {4, 5}, init::normal(0.5), &rng);
  }
  // returns loss; fills logits
  Var build(Graph& g, std::vector<Var>& logits, int T = 20) {
    g.bind(ps);
    Var h = ops::fill(g, {3, 4}, 0.0, DType::f64);
    std::vector<Var> per_step;
    for (int t = 0; t < T; ++t) {
      ScopeGuard s(g, "rnn/t", t);
      auto sym = ops::make_index({t % 5, (t * 2 + 1) % 5, (t * 3 + 2) % 5});
      Var u = ops::gather_rows(g[wx], sym) + ops::matmul(h, g[wh]) + g[b];
      h = ops::tanh(u);
      logits.push_back(ops::matmul(h, g[wo]));
      per_step.push_back(losses::softmax_xent(logits.back(), ops::make_index({(t + 1) % 5, (t + 3) % 5, t % 5})));
    }
    Var loss;
    for (Var l : per_step) loss = ops::add(loss, l);
    return ops::scale(loss, 1.0 / T);
  }
};

TEST(Linearize, PrimalIsEvaluatedOnceAcross50JvpAndVjpCalls) {
  TinyRnn net;
  Graph g;
  std::vector<Var> logits;
  Var loss = net.build(g, logits);
  ad::Linearization lin(loss);
  const int32_t primal_nodes = g.size();
  Rng rng(7);
  ad::Block block{logits, loss};
  for (int k = 0; k < 50; ++k) {
    ParamVec v = ParamVec::random_normal(net.ps.layout(), DType::f64, rng);
    std::vector<Tensor> parts = ad::unpack(v);
    std::vector<Tensor> jv = lin.jvp(parts, logits);
    std::vector<Tensor> jtu = lin.vjp(logits, jv);
    ParamVec gv = lin.gnvp(v, block);
    ParamVec hv = lin.hvp(v);
    ASSERT_EQ(jtu.size(), 4u);
    ASSERT_TRUE(gv.all_finite() && hv.all_finite());
  }
  EXPECT_EQ(lin.primal_reevaluations(), 0u);
  for (int32_t id = 0; id < primal_nodes; ++id) EXPECT_LE(g.eval_count(id), 1u) << g.describe(id);
  EXPECT_EQ(lin.segments(), 4u) << "each product kind builds its segment once";
}

TEST(Linearize, GradientsAreEvaluatedIntoTheFlatVector) {
  // w reaches the loss through a product (its gradient is a product: written in place), v through an
  // elementwise op (its gradient kernel ignores the destination: copied), u not at all (zeros)
  ParamSet ps(DType::f64);
  Rng rng(5);
  ParamId w = ps.add("w", {3, 2}, init::normal(1.0), &rng);
  ParamId v = ps.add("v", {2}, init::normal(1.0), &rng);
  ps.add("u", {4}, init::normal(1.0), &rng);
  Tensor x = Tensor::from({5, 3}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, DType::f64);
  auto build = [&](Graph& g) {
    g.bind(ps);
    return ops::add(ops::sum(ops::tanh(ops::matmul(g.input(x), g[w]))), ops::sum(ops::square(g[v])));
  };
  Graph g;
  ad::Linearization lin(build(g));
  const ParamVec flat = lin.grad_vec();
  EXPECT_EQ(lin.grad()[0].raw(), flat.part(0).raw()) << "the product wrote into the flat vector";
  EXPECT_EQ(flat.flat().raw(), lin.grad_vec().flat().raw()) << "one vector, not a copy per call";
  Graph g2;  // the reference: the same gradient over explicit leaves, packed by copying
  Var loss2 = build(g2);
  ad::Linearization ref(g2.param_leaves(), loss2);
  EXPECT_EQ(flat.flat().to_vector(), ad::pack(ps, ref.grad()).flat().to_vector());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(flat.flat().to_vector()[6 + 2 + i], 0.0) << "u's part is zeros";
  Graph g3;
  auto [value, grad] = ad::value_and_grad(build(g3));
  EXPECT_EQ(grad.flat().to_vector(), flat.flat().to_vector());
}

TEST(Linearize, CachedProductsEqualFreshOnes) {
  TinyRnn net;
  Rng rng(11);
  ParamVec v = ParamVec::random_normal(net.ps.layout(), DType::f64, rng);
  Graph g1;
  std::vector<Var> z1;
  Var loss1 = net.build(g1, z1);
  ad::Linearization lin(loss1);
  // a few calls with other vectors first, so stale placeholder values would show
  for (int k = 0; k < 3; ++k) lin.gnvp(ParamVec::random_normal(net.ps.layout(), DType::f64, rng), {z1, loss1});
  ParamVec cached = lin.gnvp(v, {z1, loss1});
  // fresh: a new graph, a new linearization, one call
  Graph g2;
  std::vector<Var> z2;
  Var loss2 = net.build(g2, z2);
  ad::Linearization fresh(loss2);
  ParamVec once = fresh.gnvp(v, {z2, loss2});
  ParamVec diff = cached.clone().axpy(-1.0, once);
  EXPECT_LT(diff.norm(), 1e-14 * once.norm());
}

TEST(Linearize, SegmentCallsRunOnlyTheirDynamicNodes) {
  TinyRnn net;
  Graph g;
  std::vector<Var> logits;
  Var loss = net.build(g, logits);
  ad::Linearization lin(loss);
  Rng rng(5);
  ParamVec v = ParamVec::random_normal(net.ps.layout(), DType::f64, rng);
  lin.gnvp(v, {logits, loss});  // builds the segment (known parts evaluated here, once)
  uint64_t before = g.total_evals();
  lin.gnvp(v, {logits, loss});
  uint64_t per_call = g.total_evals() - before;
  uint64_t before2 = g.total_evals();
  lin.gnvp(v, {logits, loss});
  EXPECT_EQ(g.total_evals() - before2, per_call) << "every call costs the same: nothing is re-built";
  // tanh's 1 - y² and the softmax probabilities are known: a GN call must evaluate fewer nodes than a
  // fresh forward + tangent + head Hessian + reverse build would.
  Graph g2;
  std::vector<Var> z2;
  uint64_t start = g2.total_evals();
  Var loss2 = net.build(g2, z2);
  uint64_t forward_evals = g2.total_evals() - start;
  EXPECT_LT(per_call, 4 * forward_evals);
}

}  // namespace
}  // namespace tg
