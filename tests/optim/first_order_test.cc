// First-order optimizers, schedules and L-BFGS on tiny float64 graphs with hand-computed answers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"
#include "ops/ops.h"
#include "tasks/batch.h"
#include "optim/first_order.h"
#include "optim/lbfgs.h"
#include "optim/schedule.h"

namespace tg::optim {
using tasks::Batch;
namespace {

using nlohmann::json;

constexpr double kTol = 1e-14;

// f(x) = ½ Σ a_i x_i², a = (1, 4): ∇f = a ⊙ x. Variants poison the value or only the gradient.
enum class Poison { none, loss, gradient };
GraphObjective quadratic(std::vector<double> a = {1, 4}, Poison poison = Poison::none, DType dt = DType::f64) {
  const int64_t n = static_cast<int64_t>(a.size());
  ParamSet ps(dt);
  ps.add("x", Shape{n}, init::constant(1.0));
  return GraphObjective(std::move(ps), [a, n, poison, dt](Graph& g, const Batch&) {
    Var x = g[ParamId{0}];
    Var coef = ops::constant(g, Tensor::from(Shape{n}, a, dt));
    Var loss = 0.5 * ops::sum(coef * ops::square(x));
    if (poison == Poison::loss) loss = loss + ops::log(-1.0 * ops::sum(ops::abs(x)));  // log(<0): NaN
    if (poison == Poison::gradient) loss = loss + ops::sum(ops::sqrt(x - x));           // value 0, d/dx: ∞ - ∞
    return Built{loss, ad::Block{{}, loss}, std::nullopt, std::nullopt, {}};
  });
}

std::vector<double> values(const ParamVec& v) { return v.flat().to_vector(); }

void expect_at(const ParamVec& theta, std::vector<double> want, double tol = kTol) {
  std::vector<double> got = values(theta);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "component " << i;
}

struct QuadraticRun {
  GraphObjective obj = quadratic();
  ParamVec theta = obj.params().values().clone();
  Batch batch;
  std::unique_ptr<FirstOrder> opt;
  QuadraticRun(const std::string& name, const json& options) : opt(make_first_order(name, options)) {}
  StepStats step() { return opt->step(obj, theta, batch); }
};

// ---- the methods against hand-computed steps (ε = 0.1, μ = 0.9, x₀ = (1, 1), ∇f = (x₀, 4x₁)) ----

TEST(FirstOrder, SgdTwoHandComputedSteps) {
  QuadraticRun r("sgd", {{"lr", 0.1}});
  r.step();
  expect_at(r.theta, {0.9, 0.6});
  r.step();
  expect_at(r.theta, {0.81, 0.36});
}

TEST(FirstOrder, MomentumTwoHandComputedSteps) {
  // v₁ = -0.1 (1, 4); x₁ = (0.9, 0.6);  v₂ = 0.9 v₁ - 0.1 (0.9, 2.4) = (-0.18, -0.6);  x₂ = (0.72, 0)
  QuadraticRun r("momentum", {{"lr", 0.1}, {"momentum", 0.9}});
  StepStats s = r.step();
  EXPECT_EQ(s.lr, 0.1);
  EXPECT_EQ(s.momentum, 0.9);
  expect_at(r.theta, {0.9, 0.6});
  r.step();
  expect_at(r.theta, {0.72, 0.0});
  expect_at(r.opt->state().vectors.at(0).second, {-0.18, -0.6});
}

TEST(FirstOrder, NagTwoHandComputedSteps) {
  // step 1 as momentum (v₀ = 0). Step 2 takes the gradient at the look-ahead point
  // x₁ + 0.9 v₁ = (0.81, 0.24): g = (0.81, 0.96); v₂ = (-0.09 - 0.081, -0.36 - 0.096); x₂ = x₁ + v₂
  QuadraticRun r("nag", {{"lr", 0.1}, {"momentum", 0.9}});
  r.step();
  expect_at(r.theta, {0.9, 0.6});
  StepStats s = r.step();
  expect_at(r.theta, {0.729, 0.144});
  EXPECT_NEAR(s.loss, 0.5 * (0.81 * 0.81 + 4 * 0.24 * 0.24), kTol) << "the loss reported is at the look-ahead point";
  expect_at(r.opt->state().vectors.at(0).second, {-0.171, -0.456});
}

TEST(FirstOrder, NagUsesTheScheduleValuesOfItsOwnIteration) {
  // eqs 7.12-7.13: step t uses μ_t for both the look-ahead and the velocity, and ε_t.
  // t = 1: ε = 0.2, μ = 0.5: look-ahead (0.9, 0.6) + 0.5 (-0.1, -0.4) = (0.85, 0.4), g = (0.85, 1.6)
  //        v₂ = 0.5 (-0.1, -0.4) - 0.2 (0.85, 1.6) = (-0.22, -0.52)
  json lr = {{"kind", "piecewise"}, {"pieces", {{1, 0.1}}}, {"then", 0.2}};
  json mu = {{"kind", "piecewise"}, {"pieces", {{1, 0.9}}}, {"then", 0.5}};
  QuadraticRun r("nag", {{"lr", lr}, {"momentum", mu}});
  r.step();
  StepStats s = r.step();
  EXPECT_EQ(s.lr, 0.2);
  EXPECT_EQ(s.momentum, 0.5);
  expect_at(r.theta, {0.68, 0.08});
}

TEST(FirstOrder, AdamFirstStepsMatchHandValues) {
  // step 1: m̂ = g, ŝ = g², so each x moves by ε g / (|g| + 1e-8); step 2 from the bias-corrected moments
  QuadraticRun r("adam", {{"lr", 0.1}});
  StepStats s = r.step();
  EXPECT_EQ(s.momentum, 0.9);
  expect_at(r.theta, {1 - 0.1 / (1 + 1e-8), 1 - 0.4 / (4 + 1e-8)});
  r.step();
  expect_at(r.theta, {0.8004122297123382, 0.8004122281815201});
}

TEST(FirstOrder, RmsPropFirstStepsMatchHandValues) {
  // r₁ = 0.1 g²: both coordinates move by 0.01 / √0.1 (up to eps)
  QuadraticRun r("rmsprop", {{"lr", 0.01}});
  r.step();
  expect_at(r.theta, {0.9683772243983162, 0.9683772236483162});
  r.step();
  expect_at(r.theta, {0.9457880262458569, 0.9457880251092234});
  EXPECT_EQ(r.opt->state().vectors.size(), 1u) << "no velocity while μ = 0";
}

// ---- clipping and L2 decay ----

TEST(FirstOrder, ClipsTheGradientNormAndReportsTheNormBefore) {
  QuadraticRun r("sgd", {{"lr", 0.1}, {"clip_norm", 1.0}});
  StepStats s = r.step();
  const double n = std::sqrt(17.0);
  EXPECT_TRUE(s.clipped);
  EXPECT_NEAR(s.grad_norm, n, kTol);
  expect_at(r.theta, {1 - 0.1 / n, 1 - 0.4 / n});
  EXPECT_NEAR(s.update_norm, 0.1, kTol);
  EXPECT_EQ(to_json(s)["clipped"], true);
  EXPECT_FALSE(to_json(s).contains("step_size"));

  QuadraticRun loose("sgd", {{"lr", 0.1}, {"clip_norm", 10.0}});
  s = loose.step();
  EXPECT_FALSE(s.clipped);
  expect_at(loose.theta, {0.9, 0.6});
}

TEST(FirstOrder, WeightDecayIsAddedToTheGradient) {
  // g = (1, 4) + 0.5 (1, 1)
  QuadraticRun sgd("sgd", {{"lr", 0.1}, {"weight_decay", 0.5}});
  StepStats s = sgd.step();
  EXPECT_NEAR(s.grad_norm, std::sqrt(17.0), kTol) << "grad_norm is the objective's, before decay";
  expect_at(sgd.theta, {0.85, 0.55});
  // NAG differentiates f + ½wd‖θ‖² at the look-ahead point: step 2's point is (0.715, 0.145),
  // g = 1.5 · 0.715, 4.5 · 0.145; v₂ = 0.9 (-0.15, -0.45) - 0.1 g
  QuadraticRun nag("nag", {{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.5}});
  nag.step();
  expect_at(nag.theta, {0.85, 0.55});
  nag.step();
  expect_at(nag.theta, {0.60775, 0.07975});
}

TEST(FirstOrder, ClippingComesBeforeDecay) {
  QuadraticRun r("sgd", {{"lr", 0.1}, {"clip_norm", 1.0}, {"weight_decay", 0.5}});
  r.step();
  const double n = std::sqrt(17.0);
  expect_at(r.theta, {1 - 0.1 * (1 / n + 0.5), 1 - 0.1 * (4 / n + 0.5)});
}

TEST(FirstOrder, WorksInFloat32) {
  GraphObjective obj = quadratic({1, 4}, Poison::none, DType::f32);
  ParamVec theta = obj.params().values().clone();
  auto opt = make_first_order("adam", {{"lr", 0.1}});
  Batch b;
  opt->step(obj, theta, b);
  opt->step(obj, theta, b);
  EXPECT_EQ(theta.dtype(), DType::f32);
  expect_at(theta, {0.8004122297123382, 0.8004122281815201}, 1e-6);
}

// ---- non-finite values never reach θ ----

TEST(FirstOrder, SkipsANonFiniteLossOrGradientAndKeepsTheState) {
  for (const std::string& name : first_order_names()) {
    for (Poison p : {Poison::loss, Poison::gradient}) {
      SCOPED_TRACE(name + (p == Poison::loss ? " loss" : " gradient"));
      GraphObjective good = quadratic(), bad = quadratic({1, 4}, p);
      ParamVec theta = good.params().values().clone();
      auto opt = make_first_order(name, {{"lr", 0.1}});
      Batch b;
      opt->step(good, theta, b);  // some state to keep
      const OptimizerState before = opt->state();
      const std::vector<double> theta_before = values(theta);
      StepStats s = opt->step(bad, theta, b);
      EXPECT_TRUE(s.skipped);
      EXPECT_EQ(s.skip_reason, p == Poison::loss ? "nonfinite_loss" : "nonfinite_gradient");
      EXPECT_EQ(values(theta), theta_before);
      EXPECT_EQ(opt->iteration(), 2);
      EXPECT_EQ(opt->updates(), 1);
      const OptimizerState after = opt->state();
      ASSERT_EQ(after.vectors.size(), before.vectors.size());
      for (size_t i = 0; i < after.vectors.size(); ++i) EXPECT_EQ(values(after.vectors[i].second), values(before.vectors[i].second));
    }
  }
}

TEST(FirstOrder, SkipsAnUpdateThatOverflows) {
  QuadraticRun r("sgd", {{"lr", 1e308}});
  StepStats s = r.step();
  EXPECT_TRUE(s.skipped);
  EXPECT_EQ(s.skip_reason, "nonfinite_update");
  expect_at(r.theta, {1, 1}, 0);
  EXPECT_EQ(r.opt->updates(), 0);
}

// ---- checkpoints: save after k steps, restore into a fresh optimizer, continue ----

TEST(FirstOrder, StateRoundTripIsBitIdentical) {
  const json lr = {{"kind", "piecewise"}, {"pieces", {{4, 0.05}}}, {"then", 0.02}};  // a boundary after the save
  const std::vector<std::pair<std::string, json>> cases = {
      {"sgd", {{"lr", lr}}},
      {"momentum", {{"lr", lr}, {"momentum", {{"kind", "icml2013"}, {"mu_max", 0.9}, {"period", 2}}}}},
      {"nag", {{"lr", lr}, {"momentum", 0.9}, {"clip_norm", 3.0}, {"weight_decay", 1e-3}}},
      {"rmsprop", {{"lr", lr}, {"momentum", 0.5}}},
      {"adam", {{"lr", lr}, {"weight_decay", 1e-2}}},
      {"lbfgs", {{"history", 2}, {"weight_decay", 1e-2}}},
  };
  for (const auto& [name, options] : cases) {
    SCOPED_TRACE(name);
    GraphObjective obj = quadratic({1, 4, 9, 0.5});
    Batch b;
    const ParamVec theta0 = obj.params().values().clone();
    constexpr int k = 3, n = 7;

    auto whole = make_first_order(name, options);
    ParamVec theta = theta0.clone();
    std::vector<double> losses;
    for (int i = 0; i < n; ++i) losses.push_back(whole->step(obj, theta, b).loss);

    auto first = make_first_order(name, options);
    ParamVec resumed = theta0.clone();
    for (int i = 0; i < k; ++i) first->step(obj, resumed, b);
    OptimizerState saved = first->state();
    const json config = first->config();
    first.reset();

    auto second = make_first_order(name, config);
    EXPECT_EQ(second->config(), config);
    second->restore(saved);
    for (auto& [vn, v] : saved.vectors) v.fill(123.0);  // restore made its own copies
    EXPECT_EQ(second->iteration(), k);
    for (int i = k; i < n; ++i) EXPECT_EQ(second->step(obj, resumed, b).loss, losses[i]) << "step " << i;
    EXPECT_EQ(values(resumed), values(theta));
    EXPECT_NE(values(theta), values(theta0));
  }
}

TEST(FirstOrder, RestoreRejectsUnknownVectors) {
  auto opt = make_first_order("momentum");
  OptimizerState s;
  ParamSet ps(DType::f64);
  ps.add("x", Shape{2});
  s.vectors.emplace_back("velocty", ps.zeros_like());
  EXPECT_THROW(opt->restore(s), Error);
  auto lb = make_first_order("lbfgs");
  s.vectors = {{"s0", ps.zeros_like()}, {"z0", ps.zeros_like()}};
  EXPECT_THROW(lb->restore(s), Error);
  s.vectors = {{"s1", ps.zeros_like()}, {"y1", ps.zeros_like()}};  // a pair without s0, y0
  EXPECT_THROW(lb->restore(s), Error);
  // The pairs are found by name: a checkpoint hands them back in name order (s0, s1, y0, y1).
  s.vectors = {{"s0", ps.zeros_like()}, {"s1", ps.zeros_like()}, {"y0", ps.zeros_like()}, {"y1", ps.zeros_like()}};
  EXPECT_NO_THROW(lb->restore(s));
}

// After an update, a state without a vector that every update writes would resume from zeros: refused.
TEST(FirstOrder, RestoreAfterUpdatesNeedsEveryWrittenVector) {
  ParamSet ps(DType::f64);
  ps.add("x", Shape{2});
  OptimizerState s;
  s.step = s.updates = 3;
  s.vectors = {{"m", ps.zeros_like()}};
  EXPECT_THROW(make_first_order("adam")->restore(s), Error);  // no v
  s.vectors = {{"m", ps.zeros_like()}, {"v", ps.zeros_like()}};
  EXPECT_NO_THROW(make_first_order("adam")->restore(s));
  s.vectors.clear();
  EXPECT_THROW(make_first_order("nag")->restore(s), Error);  // no velocity
  EXPECT_NO_THROW(make_first_order("sgd")->restore(s));
  s.vectors = {{"mean_square", ps.zeros_like()}};  // rmsprop's velocity exists only once μ has been > 0
  EXPECT_NO_THROW(make_first_order("rmsprop")->restore(s));
  s.step = 3, s.updates = 0;  // nothing written yet (the checkpoint at iteration 0, or only skipped steps)
  s.vectors.clear();
  EXPECT_NO_THROW(make_first_order("adam")->restore(s));
}

TEST(FirstOrder, StateOfTheWrongSizeIsAnError) {
  QuadraticRun r("momentum", json::object());
  OptimizerState s;
  ParamSet ps(DType::f64);
  ps.add("x", Shape{3});
  s.vectors.emplace_back("velocity", ps.zeros_like());
  r.opt->restore(s);
  EXPECT_THROW(r.step(), Error);
}

// ---- the factory ----

TEST(FirstOrder, FactoryNamesUnknownOptimizersAndOptions) {
  try {
    make_first_order("adagrad");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("adagrad"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("sgd, momentum, nag, rmsprop, adam, lbfgs"), std::string::npos) << e.what();
  }
  try {
    make_first_order("nag", {{"momentun", 0.9}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'momentun'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("momentum"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_first_order("sgd", {{"momentum", 0.9}}), Error);  // sgd has none
  EXPECT_THROW(make_first_order("adam", {{"beta1", "high"}}), Error);
  EXPECT_THROW(make_first_order("adam", {{"beta2", 1.0}}), Error);
  EXPECT_THROW(make_first_order("lbfgs", {{"history", 0}}), Error);
  EXPECT_THROW(make_first_order("momentum", {{"lr", {{"kind", "piecewise"}, {"pieces", {{5, 0.1}, {5, 0.2}}}, {"then", 0.1}}}}), Error);
  EXPECT_THROW(make_first_order("nag", {{"preset", "sutskever_sub"}}), Error);
  // values no schedule may reach: a negative learning rate, a momentum outside [0, 1)
  EXPECT_THROW(make_first_order("sgd", {{"lr", -0.1}}), Error);
  EXPECT_THROW(make_first_order("lbfgs", {{"lr", -1}}), Error);
  EXPECT_THROW(make_first_order("momentum", {{"momentum", 1.0}}), Error);
  EXPECT_THROW(make_first_order("nag", {{"momentum", -0.5}}), Error);
  EXPECT_THROW(make_first_order("nag", {{"lr", {{"kind", "piecewise"}, {"pieces", {{5, 0.1}}}, {"then", -0.1}}}}), Error);
  EXPECT_THROW(make_first_order("nag", {{"momentum", {{"kind", "linear"}, {"from", 0.5}, {"to", 1.2}, {"steps", 9}}}}), Error);
  EXPECT_NO_THROW(make_first_order("nag", {{"momentum", {{"kind", "icml2013"}, {"mu_max", 0.999}}}}));
  EXPECT_NO_THROW(make_first_order("nag", {{"preset", "sutskever_add"}}));
  for (const std::string& name : first_order_names()) {
    auto opt = make_first_order(name);
    EXPECT_EQ(opt->name(), name);
    EXPECT_EQ(make_first_order(name, opt->config())->config(), opt->config());
    EXPECT_EQ(opt->config().size(), first_order_defaults(name).size());
  }
}

TEST(FirstOrder, PresetsSetLearningRateAndMomentumUnlessGiven) {
  auto nag = make_first_order("nag", {{"preset", "sutskever_add"}});
  const SchedulePreset& p = find_schedule_preset("sutskever_add");
  EXPECT_EQ(nag->config()["lr"], p.lr->to_json());
  EXPECT_EQ(nag->config()["momentum"], p.momentum.to_json());
  auto own_lr = make_first_order("momentum", {{"preset", "sutskever_add"}, {"lr", 0.5}});
  EXPECT_EQ(own_lr->config()["lr"], 0.5);
  EXPECT_EQ(own_lr->config()["momentum"], p.momentum.to_json());
  auto icml = make_first_order("nag", {{"preset", "icml2013"}});  // μ only: ε stays the default
  EXPECT_EQ(icml->config()["lr"], 0.01);
}

// ---- schedules ----

TEST(Schedule, SutskeverAdditionBoundaries) {
  const SchedulePreset& p = find_schedule_preset("sutskever_add");
  const Schedule& lr = *p.lr;
  const std::vector<std::pair<int64_t, double>> want_lr = {
      {0, 3e-5}, {1499, 3e-5}, {1500, 3e-4}, {2999, 3e-4}, {3000, 3e-3}, {5999, 3e-3},
      {6000, 1e-3}, {29999, 1e-3}, {30000, 1e-4}, {50000, 1e-4}};
  for (auto [t, v] : want_lr) EXPECT_EQ(lr.at(t), v) << "t=" << t;
  for (auto [t, v] : std::vector<std::pair<int64_t, double>>{{0, 0.9}, {3999, 0.9}, {4000, 0.98}, {49999, 0.98}})
    EXPECT_EQ(p.momentum.at(t), v) << "t=" << t;
}

TEST(Schedule, LinearDecayAndItsJson) {
  const Schedule s = Schedule::from_json({{"kind", "linear"}, {"from", 0.01}, {"steps", 100}});
  EXPECT_DOUBLE_EQ(s.at(0), 0.01);
  EXPECT_DOUBLE_EQ(s.at(25), 0.0075);
  EXPECT_DOUBLE_EQ(s.at(100), 0.0);
  EXPECT_DOUBLE_EQ(s.at(5000), 0.0);
  EXPECT_DOUBLE_EQ(Schedule::from_json(s.to_json()).at(50), 0.005);
  EXPECT_THROW(Schedule::from_json({{"kind", "linear"}, {"from", 0.01}, {"steps", 0}}), Error);
  EXPECT_THROW(Schedule::from_json({{"kind", "linear"}, {"from", 0.01}, {"steps", 10}, {"until", 3}}), Error);
}

TEST(Schedule, MemorizationAndAutoencoderPresets) {
  const SchedulePreset& mem = find_schedule_preset("sutskever_mem");
  EXPECT_EQ(mem.lr->at(1499), 3e-5);
  EXPECT_EQ(mem.lr->at(1500), 1e-5);
  EXPECT_EQ(mem.momentum.at(4000), 0.98);
  const SchedulePreset& ae = find_schedule_preset("sutskever_autoencoder");
  EXPECT_EQ(ae.lr->at(539999), 0.005);
  EXPECT_DOUBLE_EQ(ae.lr->at(540000), 0.0005);
  EXPECT_EQ(ae.momentum.at(0), 0.8);
  EXPECT_EQ(ae.momentum.at(3125), 0.9);
  EXPECT_EQ(ae.momentum.at(199999), 0.997);
  EXPECT_EQ(ae.momentum.at(200000), 0.999);
  EXPECT_EQ(ae.momentum.at(539999), 0.999);
  EXPECT_EQ(ae.momentum.at(540000), 0.99) << "the last 10%: μ = 0.99";
  EXPECT_THROW(find_schedule_preset("sutskever"), Error);
}

TEST(Schedule, RangeCoversEveryValue) {
  using Range = std::pair<double, double>;
  EXPECT_EQ(Schedule(0.3).range(), Range(0.3, 0.3));
  EXPECT_EQ(Schedule::piecewise({{10, 0.9}, {20, 0.1}}, 0.5).range(), Range(0.1, 0.9));
  EXPECT_EQ(Schedule::icml2013(0.99).range(), Range(0.5, 0.99));
  EXPECT_EQ(Schedule::icml2013(0.3).range(), Range(0.3, 0.3));
  EXPECT_EQ(Schedule::linear(0.01, 0.0, 100).range(), Range(0.0, 0.01));
  EXPECT_EQ(Schedule::final_phase(Schedule(0.9), 50, 0.1).range(), Range(0.9 * 0.1, 0.9));
  EXPECT_EQ(Schedule::final_phase(Schedule(0.9), 50, 1.0, 0.99).range(), Range(0.9, 0.99));
  EXPECT_EQ(Schedule::final_phase(Schedule(1.2), 0, 1.0, 0.9).range(), Range(0.9, 0.9));  // from 0: no base
}

TEST(Schedule, Icml2013MatchesTheFormula) {
  const Schedule s = Schedule::icml2013(0.995, 250);
  for (int64_t t : {0, 1, 249, 250, 499, 500, 1000, 12345, 99999, 1000000}) {
    const double formula = std::min(1 - std::pow(2.0, -1 - std::log2(std::floor(t / 250.0) + 1)), 0.995);
    EXPECT_NEAR(s.at(t), formula, 1e-15) << "t=" << t;
  }
  EXPECT_EQ(s.at(0), 0.5);
  EXPECT_EQ(s.at(250), 0.75);
  EXPECT_EQ(s.at(1000000), 0.995);
}

TEST(Schedule, JsonRoundTripsAndRejectsMistakes) {
  const json forms[] = {
      0.25,
      {{"kind", "piecewise"}, {"pieces", {{10, 1.0}, {20, 0.5}}}, {"then", 0.1}},
      {{"kind", "icml2013"}, {"mu_max", 0.99}, {"period", 250}},
      {{"kind", "final_phase"}, {"base", 0.01}, {"from", 90}, {"scale", 0.1}},
      {{"kind", "final_phase"}, {"base", {{"kind", "icml2013"}, {"mu_max", 0.999}, {"period", 250}}}, {"from", 90}, {"value", 0.99}},
  };
  for (const json& j : forms) EXPECT_EQ(Schedule::from_json(j).to_json(), j);
  EXPECT_EQ(Schedule::from_json({{"kind", "constant"}, {"value", 2.0}}).to_json(), 2.0);
  EXPECT_EQ(Schedule::from_json({{"kind", "preset"}, {"name", "sutskever_add"}, {"of", "lr"}}).at(1500), 3e-4);
  const Schedule pw = Schedule::from_json(forms[1]);
  EXPECT_EQ(pw.at(9), 1.0);
  EXPECT_EQ(pw.at(10), 0.5);
  EXPECT_EQ(pw.at(20), 0.1);
  const Schedule fp = Schedule::from_json(forms[3]);
  EXPECT_EQ(fp.at(89), 0.01);
  EXPECT_DOUBLE_EQ(fp.at(90), 0.001);

  const json bad[] = {
      "fast",
      {{"kind", "piecewise"}, {"pieces", {{10, 1.0}}}},                        // no then
      {{"kind", "piecewise"}, {"pieces", {{10, 1.0}, {10, 2.0}}}, {"then", 0}},  // not increasing
      {{"kind", "piecewise"}, {"pieces", {{0, 1.0}}}, {"then", 0}},              // empty first piece
      {{"kind", "piecewise"}, {"pieces", {{1.5, 1.0}}}, {"then", 0}},            // fractional iteration
      {{"kind", "piecewise"}, {"pieces", {}}, {"then", 0}, {"than", 1}},         // unknown key
      {{"kind", "icml2013"}, {"mu_max", 1.0}},
      {{"kind", "final_phase"}, {"base", 0.1}, {"from", 5}},                      // neither scale nor value
      {{"kind", "preset"}, {"name", "icml2013"}, {"of", "lr"}},                   // that preset has no ε
      {{"kind", "cosine"}},
  };
  for (const json& j : bad) EXPECT_THROW(Schedule::from_json(j), Error) << j.dump();
}

// ---- L-BFGS ----

TEST(Lbfgs, MinimisesAnIllConditionedQuadraticInFewIterations) {
  GraphObjective obj = quadratic({1, 3, 10, 30, 100, 0.5});
  ParamVec theta = obj.params().values().clone();
  Lbfgs opt;
  Batch b;
  int it = 0;
  for (; it < 40 && obj.evaluate(theta, b)->grad().norm() > 1e-10; ++it) {
    StepStats s = opt.step(obj, theta, b);
    ASSERT_FALSE(s.skipped) << s.skip_reason;
    ASSERT_LE(s.new_loss, s.loss);
  }
  // 12 orders of magnitude: gradient descent at step 1/L would need about 5500 iterations here (cond 200)
  EXPECT_LE(it, 35);
  EXPECT_LT(obj.evaluate(theta, b)->grad().norm(), 1e-10);
  EXPECT_EQ(opt.pairs(), 10);
}

TEST(Lbfgs, SolvesRosenbrock) {
  ParamSet ps(DType::f64);
  ps.add("x", Tensor::from(Shape{2}, std::vector<double>{-1.2, 1.0}, DType::f64));
  GraphObjective obj(ps, [](Graph& g, const Batch&) {
    Var x = g[ParamId{0}];
    Var x0 = ops::slice(x, 0, 0, 1), x1 = ops::slice(x, 0, 1, 2);
    Var loss = ops::sum(ops::square(1.0 - x0) + 100.0 * ops::square(x1 - ops::square(x0)));
    return Built{loss, ad::Block{{}, loss}, std::nullopt, std::nullopt, {}};
  });
  ParamVec theta = ps.values().clone();
  auto opt = make_first_order("lbfgs");
  Batch b;
  int it = 0;
  int64_t evaluations = 0;
  for (; it < 100 && obj.evaluate(theta, b)->grad().norm() > 1e-9; ++it) {
    StepStats s = opt->step(obj, theta, b);
    ASSERT_FALSE(s.skipped) << s.skip_reason << " at iteration " << it;
    evaluations += s.evaluations;
  }
  EXPECT_LE(it, 60);
  std::printf("[ info     ] Rosenbrock: %d iterations, %lld evaluations\n", it, static_cast<long long>(evaluations));
  expect_at(theta, {1.0, 1.0}, 1e-8);
  // after the first step each step reuses the last trial's gradient: about one evaluation per step
  EXPECT_LE(evaluations, 2 * it);
}

TEST(Lbfgs, RejectsAStepWhoseLossBecomesNonFinite) {
  // finite at θ₀ only: every trial point is NaN, the step is skipped and θ kept
  GraphObjective base = quadratic(), poisoned = quadratic({1, 4}, Poison::loss);
  struct Trap : Objective {
    GraphObjective *inner, *poisoned;
    ParamVec at;
    const ParamSet& params() const override { return inner->params(); }
    std::unique_ptr<Evaluation> evaluate(const ParamVec& theta, const Data& b) override {
      if (theta.clone().axpy(-1.0, at).norm() == 0) return inner->evaluate(theta, b);
      return poisoned->evaluate(theta, b);
    }
  } trap;
  trap.inner = &base;
  trap.poisoned = &poisoned;
  trap.at = base.params().values().clone();
  ParamVec theta = trap.at.clone();
  Lbfgs opt;
  Batch b;
  StepStats s = opt.step(trap, theta, b);
  EXPECT_TRUE(s.skipped);
  EXPECT_EQ(s.skip_reason, "line_search_failed");
  EXPECT_EQ(s.evaluations, 1 + LbfgsConfig{}.max_line_search);
  EXPECT_EQ(values(theta), values(trap.at));
}

}  // namespace
}  // namespace tg::optim
