// iLQR on the center-out task (models/ilqr.h): its torques are a stationary point of the true
// per-reach loss (the gradient through an independent open-loop rollout of `arm_step`, taken by the
// engine, vanishes), its loss and states are those of that rollout, every one of the 64 reaches
// converges, a batch gives each reach what it gets alone, and bad options are named.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/ad.h"
#include "models/reaching.h"
#include "models/ilqr.h"
#include "ops/ops.h"
#include "tests/harness/error_of.h"

namespace tg::models {
namespace {

std::array<double, 4> row_of(const std::vector<double>& v, int64_t k) {
  return {v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]};
}

// The open-loop rollout of `torques` (T×2) from `start`, written here from `arm_step` alone, and
// the gradient of ½ ‖x_T - x*‖² + α/2 Σ ‖u_t‖² with respect to every u_t, by the engine.
struct OpenLoop {
  double loss = 0;
  std::vector<double> states;    // (T+1)×4
  std::vector<double> gradient;  // T×2
};
OpenLoop open_loop(const ArmOptions& plant, const std::array<double, 4>& start, const std::array<double, 4>& target,
                   const std::vector<double>& torques, double alpha) {
  const auto T = static_cast<int64_t>(torques.size() / 2);
  Graph g;
  Var x = g.input(Tensor::from({1, 4}, std::vector<double>(start.begin(), start.end()), DType::f64));
  const Var goal = g.input(Tensor::from({1, 4}, std::vector<double>(target.begin(), target.end()), DType::f64));
  std::vector<Var> us;
  OpenLoop r;
  const std::vector<double> x0 = x.value().to_vector();
  r.states.insert(r.states.end(), x0.begin(), x0.end());
  Var energy;
  for (int64_t t = 0; t < T; ++t) {
    us.push_back(g.input(Tensor::from({1, 2}, std::vector<double>{torques[2 * t], torques[2 * t + 1]}, DType::f64)));
    x = arm_step(x, us.back(), plant);
    const std::vector<double> xt = x.value().to_vector();
    r.states.insert(r.states.end(), xt.begin(), xt.end());
    const Var e = ops::scale(ops::sum(ops::square(us.back())), 0.5 * alpha);
    energy = energy.empty() ? e : energy + e;
  }
  const Var loss = ops::scale(ops::sum(ops::square(x - goal)), 0.5) + energy;
  r.loss = loss.value().item();
  for (const Var& d : ad::grad(loss, us)) {
    const std::vector<double> v = ad::value_or_zeros(d, Shape{1, 2}, DType::f64).to_vector();
    r.gradient.insert(r.gradient.end(), v.begin(), v.end());
  }
  return r;
}

double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// Optimality: at iLQR's torques the gradient of the true loss (an independent rollout, differentiated
// by the engine) is tiny beside the gradient at u = 0 where iLQR starts, and iLQR's loss and states
// are the rollout's. Three reaches of the 64 (different directions).
TEST(Ilqr, SolutionIsAStationaryPointOfTheTrueLoss) {
  const CenterOutOptions c;
  const ReachBatch b = center_out_reaches(c);
  for (const int64_t k : {0, 21, 45}) {
    const auto start = row_of(b.starts, k), target = row_of(b.targets, k);
    const IlqrResult res = ilqr_reach(c.plant, start, target, c.steps, c.alpha);
    ASSERT_EQ(res.torques.size(), 2u * c.steps);
    ASSERT_EQ(res.states.size(), 4u * (c.steps + 1));
    const OpenLoop at = open_loop(c.plant, start, target, res.torques, c.alpha);
    const OpenLoop zero = open_loop(c.plant, start, target, std::vector<double>(2 * c.steps, 0.0), c.alpha);
    const double ratio = norm(at.gradient) / norm(zero.gradient);
    double state_diff = 0;
    for (size_t i = 0; i < at.states.size(); ++i) state_diff = std::max(state_diff, std::abs(at.states[i] - res.states[i]));
    std::printf("reach %2lld: loss %.10g (u = 0: %.6g) after %d iterations, converged %d; |grad| %.2e vs %.2e at u = 0 "
                "(ratio %.1e); rollout loss differs by %.1e, states by %.1e\n",
                static_cast<long long>(k), res.loss, zero.loss, res.iterations, res.converged, norm(at.gradient),
                norm(zero.gradient), ratio, std::abs(at.loss - res.loss), state_diff);
    EXPECT_TRUE(res.converged);
    EXPECT_LT(ratio, 1e-5);
    EXPECT_NEAR(at.loss, res.loss, 1e-13 * zero.loss);
    EXPECT_LT(state_diff, 1e-13);
    EXPECT_LT(res.loss, 0.2 * zero.loss);
  }
}

// Every center-out reach converges; the worst and mean losses are printed (the CLI `tapegrad ilqr`
// reports the same set). Solved as one batch.
TEST(Ilqr, ConvergesOnEveryCenterOutReach) {
  const CenterOutOptions c;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<IlqrResult> rs = ilqr_center_out(c);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(rs.size(), 64u);
  double worst = 0, mean = 0;
  int converged = 0, most = 0;
  for (const IlqrResult& r : rs) {
    worst = std::max(worst, r.loss);
    mean += r.loss / static_cast<double>(rs.size());
    converged += r.converged;
    most = std::max(most, r.iterations);
  }
  std::printf("64 reaches in %.2f s: %d converged, mean loss %.6g, worst %.6g, at most %d iterations\n", seconds,
              converged, mean, worst, most);
  EXPECT_EQ(converged, 64);
  EXPECT_LE(most, 20);  // measured: at most 6 (Gauss-Newton steps from u = 0)
  EXPECT_LT(worst, 0.2 * 0.0844);  // u = 0 scores 0.0844 on average over the reaches
}

// With α = 0 nothing stops the arm from ending exactly at rest on the target (two Euler steps can
// reach any state; forty give room to spare): iLQR drives every reach's loss to the loss floor.
TEST(Ilqr, WithoutEnergyCostEveryReachEndsOnItsTarget) {
  CenterOutOptions c;
  c.alpha = 0;
  const std::vector<IlqrResult> rs = ilqr_center_out(c);
  double worst = 0;
  int converged = 0, most = 0;
  for (const IlqrResult& r : rs) {
    worst = std::max(worst, r.loss);
    converged += r.converged;
    most = std::max(most, r.iterations);
  }
  std::printf("alpha = 0: %d of 64 converged, worst ½‖x_T - x*‖² %.2e, at most %d iterations\n", converged, worst, most);
  EXPECT_EQ(converged, 64);
  EXPECT_LE(worst, IlqrOptions{}.loss_floor);
  EXPECT_LE(most, 20);  // measured: at most 6
}

// A batch solves each reach as if alone: its own μ, line search and stop.
TEST(Ilqr, BatchedReachesMatchSoloOnes) {
  CenterOutOptions c;
  c.reaches = 8;
  const ReachBatch b = center_out_reaches(c);
  const std::vector<IlqrResult> batch = ilqr_reaches(c.plant, b, c.steps, c.alpha);
  for (const int64_t k : {1, 6}) {
    const IlqrResult solo = ilqr_reach(c.plant, row_of(b.starts, k), row_of(b.targets, k), c.steps, c.alpha);
    EXPECT_NEAR(solo.loss, batch[k].loss, 1e-12 * solo.loss) << k;
    EXPECT_EQ(solo.iterations, batch[k].iterations) << k;
    double diff = 0;
    for (size_t i = 0; i < solo.torques.size(); ++i) diff = std::max(diff, std::abs(solo.torques[i] - batch[k].torques[i]));
    EXPECT_LT(diff, 1e-9) << k;
  }
}

TEST(Ilqr, BadOptionsAreNamed) {
  using check::contains;
  using check::error_of;
  const ArmOptions plant;
  const std::array<double, 4> x{0.8, 1.5, 0, 0}, y{0.9, 1.4, 0, 0};
  auto with = [&](IlqrOptions o) { return error_of([&] { ilqr_reach(plant, x, y, 5, 1e-4, o); }); };
  EXPECT_TRUE(contains(with({.max_iters = 0}), "ilqr: max_iters must be >= 1"));
  EXPECT_TRUE(contains(with({.tol = 0}), "ilqr: tol must be > 0"));
  EXPECT_TRUE(contains(with({.tol = NAN}), "ilqr: tol must be > 0"));
  EXPECT_TRUE(contains(with({.mu0 = -1}), "ilqr: mu0 must be >= 0"));
  EXPECT_TRUE(contains(with({.mu_min = 0}), "ilqr: mu_min must be > 0"));
  EXPECT_TRUE(contains(with({.mu_max = 1e-7}), "ilqr: mu_max must be > mu0 and mu_min"));
  EXPECT_TRUE(contains(with({.mu_factor = 1}), "ilqr: mu_factor must be > 1"));
  EXPECT_TRUE(contains(with({.line_search_steps = 0}), "ilqr: line_search_steps must be >= 1"));
  EXPECT_TRUE(contains(with({.accept = 1}), "ilqr: accept must be in [0, 1)"));
  EXPECT_TRUE(contains(with({.loss_floor = -1}), "ilqr: loss_floor must be >= 0"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reach(plant, x, y, 0, 1e-4); }), "ilqr: steps must be >= 1"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reach(plant, x, y, 5, -1); }), "ilqr: alpha must be >= 0"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reach(plant, {0, NAN, 0, 0}, y, 5, 1e-4); }), "ilqr: start must be finite"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reach(plant, x, {INFINITY, 0, 0, 0}, 5, 1e-4); }), "ilqr: target must be finite"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reach({.command_noise = 0.1}, x, y, 5, 1e-4); }),
                       "ilqr: plant.command_noise must be 0"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reach({.plant_noise = 0.1}, x, y, 5, 1e-4); }),
                       "ilqr: plant.plant_noise must be 0"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reach({.dt = 0}, x, y, 5, 1e-4); }), "arm: dt must be > 0"));
  EXPECT_TRUE(contains(error_of([&] { ilqr_reaches(plant, ReachBatch{}, 5, 1e-4); }), "ilqr: need as many start"));
  EXPECT_TRUE(contains(error_of([] { ilqr_center_out({.radius = 0}); }), "radius > 0"));
}

}  // namespace
}  // namespace tg::models
