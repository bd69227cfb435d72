// Graph basics: eager evaluation, symbolic zeros, several live graphs, dtypes, params binding.
#include <gtest/gtest.h>

#include "core/ad.h"
#include "core/error.h"
#include "core/graph.h"
#include "ops/ops.h"

namespace tg {
namespace {

Tensor t2(std::vector<double> v, int64_t r, int64_t c, DType dt = DType::f64) { return Tensor::from({r, c}, v, dt); }

TEST(Graph, EvaluatesKnownNodesWhenBuilt) {
  Graph g;
  Var a = g.input(t2({1, 2, 3, 4}, 2, 2));
  Var b = g.input(t2({5, 6, 7, 8}, 2, 2));
  Var c = ops::matmul(a, b) + a;
  EXPECT_EQ(c.value().to_vector(), (std::vector<double>{1 + 19, 2 + 22, 3 + 43, 4 + 50}));
}

TEST(Graph, BroadcastingAddOfBiasRow) {
  Graph g;
  Var a = g.input(t2({1, 2, 3, 4, 5, 6}, 2, 3));
  Var b = g.input(Tensor::from({3}, std::vector<double>{10, 20, 30}, DType::f64));
  EXPECT_EQ((a + b).value().to_vector(), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(ops::sum_to(a, {3}).value().to_vector(), (std::vector<double>{5, 7, 9}));
}

TEST(Graph, SymbolicZerosPropagateThroughLinearOps) {
  Graph g;
  Var a = g.input(t2({1, 2, 3, 4}, 2, 2));
  Var zero;
  EXPECT_EQ(ops::add(a, zero), a);
  EXPECT_TRUE(ops::matmul(zero, a).empty());
  EXPECT_TRUE(ops::mul(a, zero).empty());
  int before = g.size();
  (void)ops::scale(zero, 3.0);
  EXPECT_EQ(g.size(), before) << "ops on symbolic zeros must not build nodes";
}

TEST(Graph, SeveralGraphsLiveAtOnceAndInputsCannotCross) {
  Graph g1, g2;
  Var a = g1.input(t2({1, 2, 3, 4}, 2, 2));
  Var b = g2.input(t2({1, 2, 3, 4}, 2, 2));
  EXPECT_THROW(ops::add(a, b), Error);
  EXPECT_EQ((a * a).value().at(3), 16.0);
  EXPECT_EQ((b * 2.0).value().at(3), 8.0);
}

TEST(Graph, Float32AndFloat64InOneBuild) {
  Graph g;
  Var a = g.input(t2({1, 2, 3, 4}, 2, 2, DType::f32));
  Var b = g.input(t2({1, 2, 3, 4}, 2, 2, DType::f64));
  EXPECT_EQ(ops::tanh(a).dtype(), DType::f32);
  EXPECT_EQ(ops::tanh(b).dtype(), DType::f64);
  EXPECT_NEAR(ops::tanh(a).value().at(1), std::tanh(2.0), 1e-6);
  EXPECT_THROW(ops::add(a, b), ShapeError);  // mixed dtypes are refused
}

TEST(Params, BindSnapshotsValuesAndGradIsIdempotent) {
  ParamSet ps(DType::f64);
  ParamId w = ps.add("w", Tensor::from({2}, std::vector<double>{1.0, -2.0}, DType::f64));
  Graph g;
  g.bind(ps);
  Var loss = ops::sum(ops::square(g[w]));
  auto [v1, g1] = ad::value_and_grad(loss);
  auto [v2, g2] = ad::value_and_grad(loss);
  EXPECT_DOUBLE_EQ(v1, 5.0);
  EXPECT_EQ(g1.flat().to_vector(), (std::vector<double>{2.0, -4.0}));
  EXPECT_EQ(g2.flat().to_vector(), g1.flat().to_vector()) << "gradients never accumulate";
  ps.values().axpy(-0.5, g1);  // an optimizer step does not touch the existing graph
  EXPECT_EQ(g[w].value().to_vector(), (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ(ps.value(w).to_vector(), (std::vector<double>{0.0, 0.0}));
}

// The binding tests' set: a = [1, -2], b = [[3, 4, 5]], and a θ of 0.5 everywhere.
struct TwoParams {
  ParamSet ps{DType::f64};
  ParamId a = ps.add("a", Tensor::from({2}, std::vector<double>{1.0, -2.0}, DType::f64));
  ParamId b = ps.add("b", Tensor::from({1, 3}, std::vector<double>{3.0, 4.0, 5.0}, DType::f64));
  ParamVec theta = ps.values().clone().fill(0.5);
};

TEST(Params, BindAtThetaCopiesThetaOnceAndLeavesTheSetAlone) {
  auto [ps, a, b, theta] = TwoParams{};
  theta.part(b.index).fill(-1.0);
  Graph g;
  g.bind(ps, theta);
  theta.fill(9.0);  // an optimizer step after the bind does not touch the graph
  EXPECT_EQ(g[a].value().to_vector(), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(g[b].value().to_vector(), (std::vector<double>{-1.0, -1.0, -1.0}));
  EXPECT_EQ(g[b].shape(), (Shape{1, 3}));
  EXPECT_EQ(ps.value(a).to_vector(), (std::vector<double>{1.0, -2.0})) << "the set keeps its own values";
  auto [value, grad] = ad::value_and_grad(ops::sum(ops::square(g[a])));  // b unreached: a zero part
  EXPECT_DOUBLE_EQ(value, 0.5);
  EXPECT_EQ(grad.flat().to_vector(), (std::vector<double>{1.0, 1.0, 0.0, 0.0, 0.0}));
  EXPECT_THROW(g.bind(ps, theta), Error) << "leaves already read the first θ";
  ParamSet other(DType::f64);
  other.add("c", {5});
  Graph g2;
  EXPECT_THROW(g2.bind(ps, other.values()), ShapeError);
  Graph g3;  // another dtype is converted
  g3.bind(ps, ParamVec(ps.layout(), DType::f32).fill(2.0));
  EXPECT_EQ(g3[a].dtype(), DType::f64);
  EXPECT_EQ(g3[a].value().to_vector(), (std::vector<double>{2.0, 2.0}));
}

TEST(Graph, PlaceEvaluatesAPendingNodeIntoItsDestination) {
  Graph g;
  Var a = g.input(Tensor::from({2, 2}, std::vector<double>{1, 2, 3, 4}, DType::f64));
  Tensor buffer = Tensor::full({6}, -1.0, DType::f64);
  Var known = ops::matmul(a, a);
  EXPECT_FALSE(g.place(known, buffer.view(0, {2, 2}))) << "already evaluated";
  const bool was = g.set_deferred(true);
  Var p = ops::matmul(a, a);  // pending
  Var q = ops::neg(a);        // pending; neg's kernel allocates its own output: copied in
  g.set_deferred(was);
  EXPECT_THROW(g.place(p, buffer.view(0, {4})), ShapeError);
  EXPECT_TRUE(g.place(p, buffer.view(1, {2, 2})));
  EXPECT_FALSE(g.place(p, Tensor::zeros({2, 2}, DType::f64))) << "placed already: the first destination stays";
  EXPECT_EQ(p.value().raw(), buffer.view(1, {2, 2}).raw());
  EXPECT_EQ(buffer.to_vector(), (std::vector<double>{-1, 7, 10, 15, 22, -1}));
  Tensor other = Tensor::zeros({2, 2}, DType::f64);
  EXPECT_TRUE(g.place(q, other));
  EXPECT_EQ(q.value().raw(), other.raw());
  EXPECT_EQ(other.to_vector(), (std::vector<double>{-1, -2, -3, -4}));
  g.set_deferred(true);
  Var r = ops::matmul(a, a);
  g.set_deferred(was);
  EXPECT_TRUE(g.place(r, a.value()));
  EXPECT_THROW(r.value(), Error) << "a product written over its own operand";
  EXPECT_EQ(a.value().to_vector(), (std::vector<double>{1, 2, 3, 4})) << "and nothing written";
}

TEST(Params, BindSharedReadsThetaInPlace) {
  auto [ps, a, b, theta] = TwoParams{};
  {
    Graph g;
    g.bind_shared(ps, theta);
    EXPECT_EQ(g[a].value().raw(), theta.part(a.index).raw()) << "a view of θ's buffer, not a copy";
    EXPECT_EQ(g[b].value().to_vector(), (std::vector<double>{0.5, 0.5, 0.5}));
    auto [value, grad] = ad::value_and_grad(ops::sum(ops::square(g[a])));
    EXPECT_DOUBLE_EQ(value, 0.5);
    EXPECT_EQ(grad.flat().to_vector(), (std::vector<double>{1.0, 1.0, 0.0, 0.0, 0.0}));
    EXPECT_EQ(ps.value(a).to_vector(), (std::vector<double>{1.0, -2.0})) << "the set keeps its own values";
    EXPECT_THROW(g.bind_shared(ps, theta), Error) << "leaves already read θ";
  }
  theta.fill(9.0);  // after the graph: allowed
  Graph g2;
  EXPECT_THROW(g2.bind_shared(ps, ParamVec(ps.layout(), DType::f32)), Error) << "bind_shared does not convert";
}

TEST(ParamsDeathTest, BindSharedThetaWrittenWhileTheGraphLivesAborts) {
#ifdef NDEBUG
  GTEST_SKIP() << "the check runs in builds with asserts (scripts/sanitize.sh)";
#else
  ParamSet ps(DType::f64);
  ps.add("a", Tensor::from({2}, std::vector<double>{1.0, -2.0}, DType::f64));
  EXPECT_DEATH(
      {
        ParamVec theta = ps.values().clone();
        Graph g;
        g.bind_shared(ps, theta);
        theta.fill(9.0);
      },
      "written in place while the graph read it");
#endif
}

TEST(Params, ParamVecAlgebra) {
  ParamSet ps(DType::f32);
  ps.add("a", {2, 2}, init::constant(1.0));
  ps.add("b", {3}, init::constant(2.0));
  ParamVec v = ps.values().clone();
  EXPECT_EQ(v.size(), 7);
  EXPECT_DOUBLE_EQ(v.dot(v), 4 * 1.0 + 3 * 4.0);
  v.axpy(2.0, ps.values()).scale(0.5);
  EXPECT_DOUBLE_EQ(v.part(1).at(0), 3.0);
  EXPECT_NEAR(v.norm(), std::sqrt(4 * 2.25 + 3 * 9.0), 1e-6);
  ParamSet p64 = ps.cast(DType::f64);
  EXPECT_EQ(p64.values().dtype(), DType::f64);
  EXPECT_EQ(p64.value(*p64.find("b")).at(2), 2.0);
}

TEST(Ad, UnusedInputGetsZeroAndUnreachableOutputIsSymbolicZero) {
  Graph g;
  Var x = g.input(t2({1, 2, 3, 4}, 2, 2));
  Var unused = g.input(t2({1, 2, 3, 4}, 2, 2));
  Var y = ops::sum(ops::square(x));
  std::vector<Var> wrt = {x, unused};
  std::vector<Var> gr = ad::grad(y, wrt);
  EXPECT_FALSE(gr[0].empty());
  EXPECT_TRUE(gr[1].empty());
  Var in[] = {unused};
  Var tan[] = {g.input(t2({1, 1, 1, 1}, 2, 2))};
  Var out[] = {y};
  EXPECT_TRUE(ad::jvp(out, in, tan)[0].empty());
}

TEST(Ad, AdjointsAtIntermediatesAndExtraSeeds) {
  // y = sum(tanh(u)), u = 2x. Seed 1 at y plus a seed s at u: adjoint at u = (1 - tanh²u) + s.
  Graph g;
  Var x = g.input(Tensor::from({3}, std::vector<double>{0.1, -0.2, 0.3}, DType::f64));
  Var u = ops::scale(x, 2.0);
  Var y = ops::sum(ops::tanh(u));
  Var s = g.input(Tensor::from({3}, std::vector<double>{1, 2, 3}, DType::f64));
  ad::Seed seeds[] = {{y, ops::fill(g, {}, 1.0, DType::f64)}, {u, s}};
  Var wrt[] = {x, u};
  std::vector<Var> c = ad::vjp(seeds, wrt);
  for (int i = 0; i < 3; ++i) {
    double uu = 2 * x.value().at(i);
    double du = 1 - std::tanh(uu) * std::tanh(uu) + (i + 1);
    EXPECT_NEAR(c[1].value().at(i), du, 1e-14);
    EXPECT_NEAR(c[0].value().at(i), 2 * du, 1e-14);
  }
}

}  // namespace
}  // namespace tg

namespace tg {
namespace {
TEST(Params, BindToCallerLeaves) {
  ParamSet ps(DType::f64);
  ParamId w = ps.add("w", Tensor::from({2}, std::vector<double>{1.0, -2.0}, DType::f64));
  Graph g;
  Var leaf = g.input(Tensor::from({2}, std::vector<double>{3.0, 4.0}, DType::f64));
  Var leaves[] = {leaf};
  g.bind(ps, leaves);
  EXPECT_EQ(g[w], leaf);
  Var bad[] = {g.input(Tensor::from({3}, std::vector<double>{1, 2, 3}, DType::f64))};
  Graph g2;
  EXPECT_THROW(g2.bind(ps, bad), Error);
}
}  // namespace
}  // namespace tg

namespace tg {
namespace {
// An objective handed the set's own values (obj.evaluate(ps.values(), b)) must read them, not the fresh
// buffer set_values allocates: it once copied that uninitialised buffer onto itself.
TEST(ParamSet, SetValuesFromItsOwnValuesKeepsThem) {
  ParamSet ps(DType::f64);
  Rng rng(1);
  ps.add("a", {64, 64}, init::normal(1.0), &rng);
  const std::vector<double> was = ps.values().flat().to_vector();
  for (int i = 0; i < 3; ++i) ps.set_values(ps.values());
  EXPECT_EQ(ps.values().flat().to_vector(), was);
}
}  // namespace
}  // namespace tg
