// Graph::rebuild: a build that walks the recorded tape gives the graph a fresh build gives (the same
// dump: nodes, inputs, shapes, sites and scopes) and the same values bit for bit; where the build
// differs from the record, the record is cut there and the rest is built as new.
#include <gtest/gtest.h>

#include <random>

#include "core/ad.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/params.h"
#include "ops/ops.h"

namespace tg {
namespace {

struct Net {
  ParamSet ps{DType::f64};
  ParamId w, b;
  Net() {
    Rng rng(5);
    w = ps.add("W", Tensor::from({3, 4}, std::vector<double>(12, 0.0), DType::f64));
    b = ps.add("b", Tensor::from({4}, std::vector<double>(4, 0.0), DType::f64));
    ps.set_values(ParamVec::random_normal(ps.layout(), DType::f64, rng));
  }
};

Tensor data(int64_t rows, uint64_t seed) {
  Rng rng(seed);
  std::normal_distribution<double> normal(0, 1);
  std::vector<double> v(static_cast<size_t>(rows * 3));
  for (double& x : v) x = normal(rng);
  return Tensor::from({rows, 3}, v, DType::f64);
}

// Σ (tanh(x W + b)[:, lo:lo+2])², then its gradient: an input, parameters, an attribute (the slice).
std::vector<double> build(Graph& g, const Net& net, const Tensor& x, int64_t lo) {
  g.bind(net.ps);
  Var h;
  {
    ScopeGuard s(g, "layer");
    h = ops::tanh(ops::matmul(g.input(x), g[net.w]) + g[net.b]);
  }
  Var loss = ops::sum(ops::square(ops::slice(h, 1, lo, lo + 2)));
  const auto [value, grad] = ad::value_and_grad(loss);
  std::vector<double> out{value};
  for (double d : grad.flat().to_vector()) out.push_back(d);
  return out;
}

TEST(GraphRebuild, GivesTheFreshGraphAndItsValuesOnNewData) {
  Net net;
  Graph kept;
  (void)build(kept, net, data(5, 1), 0);
  for (uint64_t seed : {2, 3, 4}) {
    kept.rebuild();
    const std::vector<double> rebuilt = build(kept, net, data(5, seed), 0);
    Graph fresh;
    EXPECT_EQ(rebuilt, build(fresh, net, data(5, seed), 0)) << "bit for bit";
    EXPECT_EQ(kept.dump(), fresh.dump());
    EXPECT_EQ(kept.reused_nodes(), fresh.size()) << "every node taken from the record";
  }
}

TEST(GraphRebuild, TakesTheNewAttributesOfARecordedNode) {
  Net net;
  Graph kept;
  (void)build(kept, net, data(5, 1), 0);
  kept.rebuild();
  const std::vector<double> rebuilt = build(kept, net, data(5, 2), 2);  // another slice, same shape
  Graph fresh;
  EXPECT_EQ(rebuilt, build(fresh, net, data(5, 2), 2));
  EXPECT_EQ(kept.reused_nodes(), fresh.size());
}

TEST(GraphRebuild, CutsTheRecordWhereTheBuildDiffers) {
  Net net;
  Graph kept;
  (void)build(kept, net, data(5, 1), 0);
  const int32_t recorded = kept.size();
  kept.rebuild();
  const std::vector<double> rebuilt = build(kept, net, data(7, 2), 0);  // seven rows: the input differs
  Graph fresh;
  EXPECT_EQ(rebuilt, build(fresh, net, data(7, 2), 0));
  EXPECT_EQ(kept.dump(), fresh.dump());
  EXPECT_LT(kept.reused_nodes(), 3) << "nothing after the input is taken from the record";
  // and the cut graph is the record of the next rebuild
  kept.rebuild();
  Graph fresh2;
  EXPECT_EQ(build(kept, net, data(7, 3), 0), build(fresh2, net, data(7, 3), 0));
  EXPECT_EQ(kept.reused_nodes(), recorded);
}

TEST(GraphRebuild, AShorterBuildLeavesTheRestOfTheRecordOutOfTheGraph) {
  Net net;
  Graph kept;
  (void)build(kept, net, data(5, 1), 0);
  kept.rebuild();
  kept.bind(net.ps);
  Var h = ops::tanh(ops::matmul(kept.input(data(5, 2)), kept[net.w]) + kept[net.b]);
  EXPECT_EQ(kept.size(), h.id() + 1);
  EXPECT_EQ(kept.dump().find("slice"), std::string::npos);
}

TEST(GraphRebuild, RefusesAGraphWithPlaceholders) {
  Graph g;
  (void)g.placeholder({2}, DType::f64);
  EXPECT_THROW(g.rebuild(), Error);
}

}  // namespace
}  // namespace tg
