// Krause's μ-alone damping with μ adapted during CG (thesis §4.1; digest 001 §2.5): μ growing until CG
// stops where the model is poor, μ shrinking where it is exact, the options' errors, and μ in the
// resumable state.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/ops.h"
#include "optim/hf.h"
#include "optim/optimizer.h"
#include "tasks/batch.h"
#include "tasks/dataset.h"

namespace tg::optim {
using tasks::Batch;
namespace {

// Least squares on a linear model, f(w) = ½ mean_n (x_n·w - y_n)², with the D columns of x scaled from
// 1 to 30 (so CG needs many iterations). The model is linear in w and the loss quadratic, so the
// Gauss-Newton matrix is the Hessian and HF's undamped model is f itself. The structural block is w
// under ½‖w‖²: G_S = I, and μ G_S is μ I.
struct LeastSquares {
  static constexpr int N = 60, D = 12;
  Batch batch;
  ParamSet ps{DType::f64};
  LeastSquares() {
    ps.add("w", {D, 1});
    Rng rng(11);
    std::normal_distribution<double> d(0, 1);
    Tensor x = Tensor::empty({N, D}, DType::f64), y = Tensor::empty({N, 1}, DType::f64);
    for (int i = 0; i < N; ++i) {
      double s = 0;
      for (int j = 0; j < D; ++j) s += 0.1 * (j + 1) * (x.data<double>()[i * D + j] = d(rng) * std::pow(30.0, double(j) / (D - 1)));
      y.data<double>()[i] = s + d(rng);
    }
    batch.inputs.T = 1;
    batch.inputs.B = N;
    batch.inputs.dense = {x};
    batch.targets.dense = {y};
    batch.targets.mask = {Tensor::full({N}, 1.0, DType::f64)};
  }
  GraphObjective objective(bool with_structural = true) {
    return GraphObjective(ps, [with_structural](Graph& g, const Batch& b) {
      const ParamId w{0};
      Var z = ops::matmul(g.input(b.inputs.dense[0]), g[w]);
      Var loss = ops::scale(ops::mean(ops::square(ops::sub(z, g.input(b.targets.dense[0])))), 0.5);
      Built built{loss, ad::Block{{z}, loss}, std::nullopt, std::nullopt, {z}};
      if (with_structural) {
        Var s = ops::scale(g[w], 1.0);
        built.structural = ad::Block{{s}, ops::scale(ops::sum(ops::square(s)), 0.5)};
      }
      return built;
    });
  }
};

// Krause's weighting with μ alone (λ = 0) and μ adapted every check_every CG iterations.
HfConfig mu_alone(double mu, int check_every) {
  HfConfig cfg;
  cfg.lambda = 0;
  cfg.mu = mu;
  cfg.mu_times_lambda = false;
  cfg.adapt_mu = true;
  cfg.check_every = check_every;
  cfg.cg_decay = 0;  // CG from 0: every check sees this iteration's model only
  return cfg;
}

// μ after k checks that each multiplied it by `factor`, rounded as the rule rounds.
double after_checks(double mu, double factor, int k) {
  for (int i = 0; i < k; ++i) mu *= factor;
  return mu;
}

// f = ½ Σ_j (exp(θ_j) - 2)² from θ_j in [-5, -2]: the Gauss-Newton model, linear in exp(θ_j), puts its
// minimum dozens of units away, where exp explodes. Every check sees f rise while the model promised a
// fall (p = -∞), so μ grows by 3/2 per check and CG stops at the third, once μ >= 3 μ0 (1.5³ = 3.375).
// Taken literally, the printed rule shrinks μ instead, and CG runs on.
TEST(HfAdaptMu, GrowsWhereTheModelIsPoorAndStopsCgAtThreeMu0) {
  constexpr int n = 20;
  LeastSquares data;  // only its batch: the objective reads no data
  ParamSet ps(DType::f64);
  ps.add("theta", {n});
  GraphObjective obj(ps, [](Graph& g, const Batch&) {
    Var th = g[ParamId{0}];
    Var r = ops::add(ops::exp(th), g.input(Tensor::full({n}, -2.0, DType::f64)));
    Var loss = ops::scale(ops::sum(ops::square(r)), 0.5);
    Var s = ops::scale(th, 1.0);
    return Built{loss, ad::Block{{r}, loss}, ad::Block{{s}, ops::scale(ops::sum(ops::square(s)), 0.5)}, std::nullopt, {r}};
  });
  ParamVec theta0 = ps.zeros_like();
  for (int j = 0; j < n; ++j) theta0.flat().data<double>()[j] = -2 - 3.0 * j / (n - 1);

  const double mu0 = 1e-3;
  HfConfig cfg = mu_alone(mu0, 2);
  cfg.max_cg = 50;
  HessianFree hf(cfg);
  ParamVec theta = theta0.clone();
  const HfStats st = hf.step(obj, theta, data.batch, data.batch);
  std::printf("standard rule: cg_stop %s after %d iterations, mu %.4g -> %.4g\n", st.cg_stop.c_str(), st.cg_iters, mu0,
              st.mu);
  EXPECT_EQ(st.cg_stop.rfind("mu_grew", 0), 0u) << st.cg_stop;
  EXPECT_EQ(st.cg_iters, 3 * cfg.check_every);
  EXPECT_EQ(st.mu, after_checks(mu0, 1.5, 3));
  EXPECT_EQ(hf.mu(), st.mu) << "the adapted μ is the next iteration's μ0";

  cfg.mu_adapt_literal = true;
  HessianFree literal(cfg);
  theta = theta0.clone();
  const HfStats lit = literal.step(obj, theta, data.batch, data.batch);
  std::printf("literal rule: cg_stop %s after %d iterations, mu %.4g -> %.4g\n", lit.cg_stop.c_str(), lit.cg_iters,
              mu0, lit.mu);
  EXPECT_EQ(lit.cg_stop.find("mu_grew"), std::string::npos);
  EXPECT_GT(lit.cg_iters, 3 * cfg.check_every);
  EXPECT_EQ(lit.mu, after_checks(mu0, 2.0 / 3, lit.cg_iters / cfg.check_every));
}

// Where f is quadratic and its Gauss-Newton exact, f's reduction exceeds the damped model's (p > 1), so
// μ shrinks by 2/3 at every check: 4 checks in 12 CG iterations. The next HF iteration starts from that
// μ. The literal rule grows μ and stops CG at the third check.
TEST(HfAdaptMu, ShrinksByTwoThirdsPerCheckWhereTheModelIsExact) {
  LeastSquares ls;
  GraphObjective obj = ls.objective();
  HfConfig cfg = mu_alone(1.0, 3);
  cfg.max_cg = 12;
  cfg.progress_eps = 0;  // run all 12 iterations
  HessianFree hf(cfg);
  ParamVec theta = ls.ps.zeros_like();
  const HfStats first = hf.step(obj, theta, ls.batch, ls.batch);
  std::printf("first iteration: cg_stop %s after %d iterations, mu 1 -> %.4g, rho %.4g\n", first.cg_stop.c_str(),
              first.cg_iters, first.mu, first.rho);
  ASSERT_EQ(first.cg_iters, 12) << first.cg_stop;
  EXPECT_EQ(first.mu, after_checks(1.0, 2.0 / 3, 4));
  EXPECT_TRUE(first.accepted);
  const HfStats second = hf.step(obj, theta, ls.batch, ls.batch);
  EXPECT_EQ(second.mu, after_checks(first.mu, 2.0 / 3, second.cg_iters / cfg.check_every));
  EXPECT_LT(second.mu, first.mu);

  cfg.mu_adapt_literal = true;
  HessianFree literal(cfg);
  theta = ls.ps.zeros_like();
  const HfStats lit = literal.step(obj, theta, ls.batch, ls.batch);
  EXPECT_EQ(lit.cg_stop.rfind("mu_grew", 0), 0u) << lit.cg_stop;
  EXPECT_EQ(lit.mu, after_checks(1.0, 1.5, 3));
}

// The message of the tg::Error that `f` throws ("" when none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(HfAdaptMu, OptionErrors) {
  const nlohmann::json krause = {{"mu_times_lambda", false}, {"adapt_mu", true}};
  EXPECT_EQ(error_of([&] { hf_config_from_json(krause); }), "");
  EXPECT_TRUE(hf_config_from_json(krause).adapt_mu);
  EXPECT_FALSE(hf_config_from_json(krause).mu_adapt_literal);
  EXPECT_EQ(to_json(hf_config_from_json(krause)).at("adapt_mu"), true);

  nlohmann::json no_mu = krause;
  no_mu["mu"] = 0;
  EXPECT_NE(error_of([&] { hf_config_from_json(no_mu); }).find("hf: option 'adapt_mu' adapts the structural damping's mu, which needs 'mu' > 0"),
            std::string::npos);
  const std::string times_lambda = error_of([] { hf_config_from_json({{"adapt_mu", true}}); });
  EXPECT_NE(times_lambda.find("hf: option 'adapt_mu' is for Krause's weighting"), std::string::npos) << times_lambda;
  EXPECT_NE(times_lambda.find("set 'mu_times_lambda' to false"), std::string::npos) << times_lambda;
  EXPECT_NE(error_of([] { hf_config_from_json({{"mu_adapt_literal", 1}}); }).find("'mu_adapt_literal' must be true or false"),
            std::string::npos);
  // however the options arrive
  HfConfig cfg;
  cfg.adapt_mu = true;
  EXPECT_NE(error_of([&] { HessianFree hf(cfg); }).find("'mu_times_lambda'"), std::string::npos);
  EXPECT_NE(error_of([] { make_optimizer("hf", {{"adapt_mu", true}}, {}); }).find("'mu_times_lambda'"), std::string::npos);

  // an objective without a structural block has no μ to adapt
  LeastSquares ls;
  GraphObjective plain = ls.objective(/*with_structural=*/false);
  HessianFree hf(mu_alone(1.0, 3));
  ParamVec theta = ls.ps.zeros_like();
  EXPECT_NE(error_of([&] { hf.step(plain, theta, ls.batch, ls.batch); }).find("no structural block"), std::string::npos);
}

// The least-squares batch, handed out whole at every draw (the RNG is not used: only the optimizer's
// state carries over).
class FixedData : public tasks::Dataset {
 public:
  explicit FixedData(const Batch& b) : b_(b) {}
  const std::string& name() const override { return name_; }
  tasks::Signature signature() const override { return {}; }
  std::unique_ptr<tasks::Data> draw(int64_t count, Rng&) const override { return b_.slice(0, count); }
  double score(const tasks::Data&, const std::vector<Tensor>&) const override { return 0; }
  std::string success_criterion() const override { return "none"; }
  double success_threshold() const override { return -INFINITY; }
  double chance_level() const override { return NAN; }

 private:
  const Batch& b_;
  std::string name_ = "fixed";
};

// The optimizer's state holds the adapted μ: 3 steps, save, restore into a fresh optimizer, and the next
// 3 steps are bit-identical to those of the run that went on. Without "mu" (a checkpoint from before
// adapt_mu) the configured μ is restored, and the steps differ.
TEST(HfAdaptMu, ResumeIsBitExactWithMuInTheState) {
  LeastSquares ls;
  GraphObjective obj = ls.objective();
  FixedData data(ls.batch);
  HfConfig cfg = mu_alone(1.0, 3);
  cfg.max_cg = 12;
  const nlohmann::json options = to_json(cfg);
  const BatchSizes sizes{LeastSquares::N, LeastSquares::N / 2};
  Rng rng(1);

  std::unique_ptr<Optimizer> whole = make_optimizer("hf", options, sizes);
  ParamVec theta = ls.ps.zeros_like();
  for (int it = 0; it < 3; ++it) whole->step(obj, theta, data, rng, it);
  const Optimizer::State saved = whole->state();
  const ParamVec theta_saved = theta.clone();
  ASSERT_TRUE(saved.scalars.contains("mu"));
  EXPECT_NE(saved.scalars.at("mu").get<double>(), 1.0) << "μ has been adapted";
  std::vector<nlohmann::json> went_on;
  for (int it = 3; it < 6; ++it) {
    went_on.push_back(whole->step(obj, theta, data, rng, it));
    std::printf("iteration %d: mu %.4g, cg_stop %s, cg_iters %d, rho %s\n", it, went_on.back().at("mu").get<double>(),
                went_on.back().at("cg_stop").get<std::string>().c_str(), went_on.back().at("cg_iters").get<int>(),
                went_on.back().at("rho").dump().c_str());
  }

  auto resume = [&](const Optimizer::State& s, std::vector<nlohmann::json>& rows) {
    std::unique_ptr<Optimizer> fresh = make_optimizer("hf", options, sizes);
    fresh->restore(s);
    ParamVec t = theta_saved.clone();
    for (int it = 3; it < 6; ++it) rows.push_back(fresh->step(obj, t, data, rng, it));
    return t;
  };
  std::vector<nlohmann::json> resumed;
  const ParamVec theta_resumed = resume(saved, resumed);
  EXPECT_EQ(resumed, went_on);
  EXPECT_EQ(theta_resumed.flat().to_vector(), theta.flat().to_vector());

  Optimizer::State older = saved;
  older.scalars.erase("mu");
  std::vector<nlohmann::json> from_older;
  resume(older, from_older);
  EXPECT_NE(from_older.front().at("mu"), went_on.front().at("mu"));

  HessianFree hf(mu_alone(0.5, 3));
  hf.restore(0.0, ParamVec(), 0.25);
  EXPECT_EQ(hf.mu(), 0.25);
  hf.restore(0.0, ParamVec());
  EXPECT_EQ(hf.mu(), 0.5) << "no μ: the configured one";
  EXPECT_NE(error_of([&] { hf.restore(0.0, ParamVec(), -1.0); }).find("restored mu must be finite and >= 0"),
            std::string::npos);
}

}  // namespace
}  // namespace tg::optim
