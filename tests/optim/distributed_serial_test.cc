// Without an MPI launcher the process's communicator is serial, and a DistributedObjective over one
// rank is the objective itself: bitwise the same value, gradient and products.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ops/ops.h"
#include "tasks/batch.h"
#include "optim/communicator.h"
#include "optim/distributed.h"

namespace tg::optim {
using tasks::Batch;
namespace {

TEST(Communicator, WithoutALauncherTheWorldIsOneRank) {
  if (launched_by_mpi()) GTEST_SKIP() << "started by an MPI launcher";
  Communicator& comm = world();
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.size(), 1);
  EXPECT_FALSE(comm.parallel());
  double v[2] = {1.5, -2};
  comm.sum(v);
  comm.broadcast(v, 0);
  EXPECT_EQ(v[0], 1.5);
  EXPECT_EQ(v[1], -2);
  EXPECT_THROW(comm.broadcast(v, 1), Error);
}

// f(x) = mean over the batch's sequences of ½ Σ_t (x ⊙ input_t)² : a loss over a dense batch.
TEST(DistributedObjective, OneRankIsTheObjectiveItself) {
  ParamSet ps(DType::f64);
  ps.add("x", {3}, init::normal(1.0), nullptr);
  Rng rng(3);
  ps.set_values(ParamVec::random_normal(ps.layout(), DType::f64, rng));
  GraphObjective inner(ps, [](Graph& g, const Batch& b) {
    Built built;
    Var x = g[ParamId{0}];
    std::vector<Var> z;
    Var total;
    for (const Tensor& in : b.inputs.dense) {
      z.push_back(ops::mul(g.input(in), x));
      total = ops::add(total, ops::sum(ops::square(z.back())));
    }
    built.loss = ops::scale(total, 0.5 / static_cast<double>(b.size()));
    built.curvature = ad::Block{z, built.loss};
    return built;
  });
  Batch b;
  b.inputs.T = 2;
  b.inputs.B = 5;
  for (int t = 0; t < 2; ++t) {
    std::vector<double> v(15);
    for (double& e : v) e = std::normal_distribution<double>(0, 1)(rng);
    b.inputs.dense.push_back(Tensor::from(Shape{5, 3}, v, DType::f64));
  }
  SerialCommunicator one;
  DistributedObjective dist(inner, one);
  const ParamVec theta = ps.values().clone();
  ParamVec v = ParamVec::random_normal(ps.layout(), DType::f64, rng);
  auto a = inner.evaluate(theta, b), d = dist.evaluate(theta, b);
  EXPECT_EQ(a->value(), d->value());
  EXPECT_EQ(a->grad().flat().to_vector(), d->grad().flat().to_vector());
  EXPECT_EQ(a->gnvp(v).flat().to_vector(), d->gnvp(v).flat().to_vector());
  EXPECT_EQ(a->hvp(v).flat().to_vector(), d->hvp(v).flat().to_vector());
  EXPECT_EQ(inner.value(theta, b), dist.value(theta, b));
  EXPECT_EQ(dist.cost(b), 5);
  EXPECT_THROW(d->graph(), Error);  // a combined evaluation has no graph of its own
}

}  // namespace
}  // namespace tg::optim
