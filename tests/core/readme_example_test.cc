// The library example of README.md, kept compiling and correct.
#include <gtest/gtest.h>

#include "core/ad.h"
#include "core/linearize.h"
#include "ops/ops.h"

namespace tg {
namespace {
TEST(Readme, LibraryExampleRuns) {
  ParamSet ps(DType::f64);
  Rng rng(1);
  ParamId w = ps.add("w", {3, 2}, init::normal(0.5), &rng);
  Graph g;
  g.bind(ps);
  Var x = g.input(Tensor::full({4, 3}, 0.5, DType::f64));
  Var z = ops::matmul(ops::tanh(x), g[w]);
  Var loss = losses::softmax_xent(z, ops::make_index({0, 1, 1, 0}));
  auto [value, grad] = ad::value_and_grad(loss);
  ad::Linearization lin(loss);
  ParamVec gv = lin.gnvp(grad, ad::Block{.at = {z}, .head = loss});
  EXPECT_GT(value, 0);
  EXPECT_GE(grad.dot(gv), 0);  // Gauss-Newton is positive semidefinite
}
}  // namespace
}  // namespace tg
