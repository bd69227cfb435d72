// Ollivier's stop rule (option stop_error) is a statement about the model, not about one validation
// sequence: a validation error under the bar stops the run only when at least 10,000 fresh scored
// targets, drawn apart from the training and validation sequences, are under it too. A model whose
// validation passes and whose confirmation does not keeps training; both figures reach the metrics,
// the summary and the saved state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/ollivier.h"
#include "riemannian/optimizer.h"
#include "tasks/ollivier_tasks.h"
#include "tests/riemannian/rounds.h"

namespace tg::riemannian {
namespace {

// Distant XOR with short lines and a validation sequence of 40 lines, on which a rate differs from the
// rate over 10,000 lines by chance.
struct SmallXor {
  std::unique_ptr<tasks::Task> task = tasks::make("distant_xor", {{"T", 10}, {"lines", 40}});
  uint64_t data_seed;
  explicit SmallXor(uint64_t seed) : data_seed(seed) {}

  std::unique_ptr<models::Model> model() const {
    const Sequences s = draw_sequences(*task, data_seed);
    const int64_t V = task->signature().output_dim;
    nlohmann::json cfg = {{"vocab", V}, {"out", V}, {"units", 4}, {"degree", 3}};
    cfg.update(statistics_options(*task, s.train));
    const models::ModelInfo& info = models::find("glnn");
    Rng rng(4);
    return info.make(models::resolve(info, cfg), DType::f64, rng);
  }
  RiemannianOptions options(double stop_error) const {
    RiemannianOptions o;
    o.data_seed = data_seed;
    o.line_batch = 8;
    o.stop_error = stop_error;
    return o;
  }
  int32_t newline() const {
    const std::vector<std::string> a = task->signature().alphabet;
    return static_cast<int32_t>(std::find(a.begin(), a.end(), "\n") - a.begin());
  }
};

// The symbols a sequence's first n steps predict.
std::vector<int32_t> head(const tasks::Batch& seq, int64_t n) {
  std::vector<int32_t> r;
  for (int64_t t = 0; t < std::min(n, seq.steps()); ++t) r.push_back((*seq.targets.symbols[t])[0]);
  return r;
}

// One round without the rule: the validation error after it, and the confirmation's at the same θ.
std::pair<double, ValidationScore> first_round(const SmallXor& p) {
  auto m = p.model();
  RiemannianOptimizer opt(*m, *p.task, p.options(-1));
  const std::vector<Scoring> h = run_rounds(opt, *m, *p.task, 1);
  return {h.back().error, opt.score_confirmation()};
}

TEST(StopError, ConfirmationIsFreshAndLargeEnough) {
  const SmallXor p(1);
  auto m = p.model();
  RiemannianOptimizer opt(*m, *p.task, p.options(-1));
  const ValidationScore c = opt.score_confirmation();
  EXPECT_GE(c.scored, kConfirmTargets);
  EXPECT_GE(c.error, 0);
  EXPECT_LE(c.error, 1);
  // The validation sequence is 40 lines, so 40 targets; the confirmation's sequences are other draws.
  const ValidationScore v = score_corpus(*m, Family::of(*m), *p.task, Corpus::of(opt.sequences().valid, 8, p.newline()));
  EXPECT_EQ(v.scored, 40);
  ASSERT_FALSE(opt.confirmation_sequences().empty());
  const std::vector<int32_t> first = head(opt.confirmation_sequences()[0], 200);
  EXPECT_NE(first, head(opt.sequences().train, 200));
  EXPECT_NE(first, head(opt.sequences().valid, 200));
}

TEST(StopError, AValidationPassTheConfirmationRefusesDoesNotStop) {
  // A seed whose validation error after one round is below the confirmation's: a bar between the two
  // is passed by validation alone.
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const SmallXor p(seed);
    const auto [valid_error, confirm] = first_round(p);
    if (!(valid_error < confirm.error)) continue;
    const double bar = (valid_error + confirm.error) / 2;
    auto m = p.model();
    RiemannianOptimizer opt(*m, *p.task, p.options(bar));
    UnusedObjective obj(m->params());
    ParamVec theta = m->params().values().clone();
    Rng rng(0);
    const nlohmann::json r = opt.step(obj, theta, *p.task, rng, 0);
    ASSERT_LT(r.at("error").get<double>(), bar);
    ASSERT_TRUE(r.contains("stop_confirm_error")) << "a validation pass was not confirmed";
    EXPECT_EQ(r.at("stop_confirm_error").get<double>(), confirm.error);
    EXPECT_EQ(r.at("stop_confirm_targets").get<double>(), confirm.scored);
    const auto ci = r.at("stop_confirm_interval");
    EXPECT_LE(ci[0].get<double>(), confirm.error);
    EXPECT_GE(ci[1].get<double>(), confirm.error);
    EXPECT_EQ(opt.finished(), "") << "stopped on validation alone (seed " << seed << ")";
    EXPECT_EQ(opt.summary_facts().at("success"), false);
    EXPECT_EQ(opt.summary_facts().at("stop_confirm_error").get<double>(), confirm.error);

    // With the bar above both, the same round stops, and says on how much fresh data.
    auto m2 = p.model();
    const double high = std::min(1.0, std::max(valid_error, confirm.error) + 0.01);
    RiemannianOptimizer stops(*m2, *p.task, p.options(high));
    run_rounds(stops, *m2, *p.task, 1);
    const std::string why = stops.finished();
    EXPECT_NE(why.find("confirmed on"), std::string::npos) << why;
    EXPECT_EQ(stops.summary_facts().at("success"), true);

    // The confirmation is in the saved state, as the finite numbers a checkpoint holds
    // (tools/run_checkpoint.cc refuses anything else): a resumed run that had stopped stays stopped.
    const optim::Optimizer::State st = stops.state();
    ASSERT_TRUE(st.scalars.contains("confirm_error"));
    for (const auto& [key, v] : st.scalars.items())
      EXPECT_TRUE(v.is_number() && std::isfinite(v.get<double>())) << key << " = " << v.dump();
    auto m3 = p.model();
    RiemannianOptimizer resumed(*m3, *p.task, p.options(high));
    resumed.restore(st);
    EXPECT_EQ(resumed.finished(), why);
    return;
  }
  FAIL() << "no seed in 1..40 has a validation error below its confirmation's after one round";
}

TEST(StopError, NeedsAnErrorThatIsAFractionOfTargets) {
  auto task = tasks::make("anbn", {{"pairs", 3}, {"n_min", 4}, {"n_max", 9}});
  const Sequences s = draw_sequences(*task, 1);
  nlohmann::json cfg = {{"vocab", 3}, {"out", 3}, {"units", 4}, {"degree", 3}};
  cfg.update(statistics_options(*task, s.train));
  const models::ModelInfo& info = models::find("glnn");
  Rng rng(4);
  auto m = info.make(models::resolve(info, cfg), DType::f64, rng);
  RiemannianOptions o;
  o.stop_error = 0.01;
  try {
    RiemannianOptimizer opt(*m, *task, o);
    FAIL() << "stop_error accepted on a^n b^n, whose error is a regret";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stop_error"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tg::riemannian
