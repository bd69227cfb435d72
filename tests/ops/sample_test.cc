// The sampling ops: deterministic by seed, Bernoulli's empirical mean is p, Gaussian's moments are
// (mu, sigma^2), and their derivative rules are zero (stop-gradient semantics).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/ad.h"
#include "core/graph.h"
#include "ops/ops.h"
#include "ops/registry.h"
#include "ops/sample.h"

namespace tg {
namespace {

Tensor probs(int64_t n) {
  std::vector<double> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = (i + 0.5) / n;
  return Tensor::from({n}, p, DType::f64);
}

TEST(Sample, DeterministicBySeed) {
  auto draw = [](uint64_t seed) {
    Graph g;
    Rng rng(seed);
    Var p = g.input(probs(50));
    Tensor b = ops::sample_bernoulli(p, rng).value();
    Tensor n = ops::sample_gaussian(p, rng, 0.3).value();
    std::vector<double> out;
    for (int64_t i = 0; i < 50; ++i) out.push_back(b.at(i)), out.push_back(n.at(i));
    return out;
  };
  EXPECT_EQ(draw(7), draw(7));
  EXPECT_NE(draw(7), draw(8));
}

TEST(Sample, BernoulliIsZeroOneWithMeanP) {
  const int64_t n = 10, reps = 100000;
  Graph g;
  Rng rng(3);
  // [reps, n] with every row the probabilities p_i = (i + 1/2) / n
  Var p = ops::broadcast_to(g.input(probs(n)), {reps, n});
  Tensor b = ops::sample_bernoulli(p, rng).value();
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t r = 0; r < reps; ++r) {
      const double v = b.at(r * n + i);
      ASSERT_TRUE(v == 0.0 || v == 1.0);
      s += v;
    }
    const double pi = (i + 0.5) / n, se = std::sqrt(pi * (1 - pi) / reps);
    EXPECT_NEAR(s / reps, pi, 5 * se) << "p = " << pi;
  }
}

TEST(Sample, GaussianHasMeanMuAndVarianceSigmaSquared) {
  const int64_t reps = 200000;
  Graph g;
  Rng rng(4);
  Var mu = ops::fill(g, {reps}, 1.5, DType::f64);
  Tensor x = ops::sample_gaussian(mu, rng, 0.5).value();
  double s = 0, s2 = 0;
  for (int64_t r = 0; r < reps; ++r) s += x.at(r), s2 += x.at(r) * x.at(r);
  const double m = s / reps, var = s2 / reps - m * m;
  EXPECT_NEAR(m, 1.5, 5 * 0.5 / std::sqrt(double(reps)));
  EXPECT_NEAR(var, 0.25, 0.01);
}

TEST(Sample, DerivativeRulesAreZero) {
  for (const char* name : {"bernoulli", "gaussian"}) {
    const Primitive* p = ops::find_primitive(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_FALSE(p->differentiable) << name;
    EXPECT_EQ(p->jvp, nullptr) << name;
    EXPECT_EQ(p->vjp, nullptr) << name;
  }
  // through the engine: y = sum(sample(x)) + 2 sum(x) has gradient exactly 2 (only the direct path)
  Graph g;
  Rng rng(5);
  Var x = g.input(probs(6));
  Var y = ops::add(ops::add(ops::sum(ops::sample_bernoulli(x, rng)), ops::sum(ops::sample_gaussian(x, rng))),
                   ops::scale(ops::sum(x), 2.0));
  std::vector<Var> wrt{x};
  Var gx = ad::grad(y, wrt)[0];
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(gx.value().at(i), 2.0);
  // JVP of the samples alone is a symbolic zero
  std::vector<Var> outs{ops::sample_bernoulli(x, rng), ops::sample_gaussian(x, rng)};
  std::vector<Var> tans{ops::ones_like(x)};
  for (Var t : ad::jvp(outs, wrt, tans)) EXPECT_TRUE(t.empty());
}

}  // namespace
}  // namespace tg
