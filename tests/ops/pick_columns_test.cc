// pick_columns / put_columns (ops/shape.cc): a softmax loss's picked logits x[m, t_m] in one read a row,
// in place of sum(x * one_hot(t)) (two [M,V] tensors made and read each way). Checked here against that
// composite: the loss, its gradient, Gauss-Newton and Hessian products are the same bits, in both dtypes;
// and the index's errors.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/linearize.h"
#include "gradcheck/gradcheck.h"
#include "ops/ops.h"

namespace tg {
namespace {

// Every product of a softmax cross-entropy on logits z = x W (x, W leaves), the picked logits taken by
// pick_columns (fused) or as sum(z * one_hot) (the composite softmax_xent used before).
std::vector<Tensor> products(DType dt, bool fused) {
  const std::vector<Tensor> v = check::random_inputs({Shape{7, 5}, Shape{5, 19}, Shape{7, 5}, Shape{5, 19}}, -2, 2, 11);
  Graph g;
  Var x = g.input(v[0].astype(dt)), w = g.input(v[1].astype(dt));
  const ops::Index targets = ops::make_index({3, 0, 18, 7, 7, 12, 1});
  Var z = ops::matmul(x, w);
  Var picked = fused ? ops::pick_columns(z, targets)
                     : ops::sum(ops::mul(z, ops::one_hot(g, targets, 19, dt)), 1);
  Var loss = ops::mean(ops::sub(ops::logsumexp(z, 1), picked));
  ad::Linearization lin({x, w}, loss);
  std::vector<Tensor> out{loss.value()};
  for (const Tensor& t : lin.grad()) out.push_back(t);
  const Tensor dirs[] = {v[2].astype(dt), v[3].astype(dt)};
  for (const Tensor& t : lin.gnvp(dirs, ad::Block{{z}, loss})) out.push_back(t);
  for (const Tensor& t : lin.hvp(dirs)) out.push_back(t);
  return out;
}

TEST(PickColumns, SoftmaxLossProductsEqualTheOneHotCompositeBitForBit) {
  for (DType dt : {DType::f32, DType::f64}) {
    const std::vector<Tensor> fused = products(dt, true), composite = products(dt, false);
    ASSERT_EQ(fused.size(), composite.size());
    for (size_t i = 0; i < fused.size(); ++i) {
      ASSERT_EQ(fused[i].shape(), composite[i].shape()) << "product " << i;
      for (int64_t k = 0; k < fused[i].size(); ++k)
        ASSERT_EQ(fused[i].at(k), composite[i].at(k)) << dtype_name(dt) << " product " << i << " element " << k;
    }
  }
}

TEST(PickColumns, PicksAndPutsTheIndexedColumn) {
  Graph g;
  Var x = g.input(Tensor::from({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6}, DType::f64));
  Var p = ops::pick_columns(x, ops::make_index({2, 0}));
  EXPECT_EQ(p.shape(), Shape{2});
  EXPECT_EQ(p.value().at(0), 3);
  EXPECT_EQ(p.value().at(1), 4);
  Var q = ops::put_columns(p, ops::make_index({1, 2}), 4);
  EXPECT_EQ(q.shape(), (Shape{2, 4}));
  const double want[] = {0, 3, 0, 0, 0, 0, 4, 0};
  for (int k = 0; k < 8; ++k) EXPECT_EQ(q.value().at(k), want[k]) << k;
}

TEST(PickColumns, BadIndexIsAShapeErrorNamingIt) {
  Graph g;
  Var x = g.input(Tensor::zeros({2, 3}, DType::f64));
  auto message = [](auto f) {
    try {
      f();
    } catch (const ShapeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { ops::pick_columns(x, ops::make_index({0, 3})); }).find("index 3 out of range [0, 3)"),
            std::string::npos);
  EXPECT_NE(message([&] { ops::pick_columns(x, ops::make_index({0})); }).find("index has 1 entries for 2 rows"),
            std::string::npos);
  EXPECT_NE(message([&] { ops::put_columns(ops::sum(x, 1), ops::make_index({0, -1}), 4); }).find("index -1 out of range"),
            std::string::npos);
  EXPECT_NE(message([&] { ops::put_columns(ops::sum(x, 1), ops::make_index({0}), 4); }).find("index has 1 entries for 2 elements"),
            std::string::npos);
  EXPECT_NE(message([&] { ops::put_columns(ops::sum(x, 1), ops::make_index({0, 0}), -1); }).find("depth -1 is negative"),
            std::string::npos);
}

}  // namespace
}  // namespace tg
