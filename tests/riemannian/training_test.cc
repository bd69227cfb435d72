// Ollivier's training procedure (riemannian/optimizer), driven round by round as the trainer drives
// it: alternating steps under the x1.1 / undo-and-halve rate rule never lower the training
// log-likelihood, every method improves on the initialisation of a small a^n b^n problem, and the
// validation score is the mixed code length the task scores.
#include <gtest/gtest.h>

#include <cmath>

#include "models/ollivier.h"
#include "riemannian/optimizer.h"
#include "riemannian/trace.h"
#include "tasks/ollivier_tasks.h"
#include "tests/riemannian/rounds.h"

namespace tg::riemannian {
namespace {

struct Problem {
  std::unique_ptr<tasks::Task> task = tasks::make("anbn", {{"pairs", 3}, {"n_min", 4}, {"n_max", 9}});
  uint64_t data_seed = 1;
  tasks::Batch train, valid;
  Problem() {
    const Sequences s = draw_sequences(*task, data_seed);
    train = s.train;
    valid = s.valid;
  }
  std::unique_ptr<models::Model> model(const std::string& kind, int64_t units) const {
    std::vector<int32_t> in, out;
    for (int64_t t = 0; t < train.steps(); ++t) {
      in.push_back((*train.inputs.symbols[t])[0]);
      out.push_back((*train.targets.symbols[t])[0]);
    }
    nlohmann::json cfg = {{"vocab", 3}, {"out", 3}, {"units", units}, {"degree", 3}};
    cfg.update(models::ollivier::statistics_options(out, {}, in, 3, 3));
    const models::ModelInfo& info = models::find(kind);
    Rng rng(4);
    return info.make(models::resolve(info, cfg), DType::f64, rng);
  }
};

TEST(Training, RateRuleNeverLowersTheTrainingLikelihood) {
  const Problem s;
  const std::pair<const char*, const char*> runs[] = {{"glnn", "rbpm"},        {"glnn", "ruop"}, {"gnn", "rbpm"},
                                                      {"ollivier_rnn", "qd-ruop"}, {"ollivier_rnn", "fb"},
                                                      {"glnn", "rms"},         {"glnn", "bptt"}};
  for (auto [kind, method] : runs) {
    auto m = s.model(kind, 4);
    RiemannianOptions o;
    o.transition = transition_method(method);
    o.writing = std::string(method) == "fb" ? WritingMethod::dh : WritingMethod::qdh;
    o.data_seed = s.data_seed;
    const Family f = Family::of(*m);
    const double ll0 = trace(*m, f, s.train, Need::value).ll / std::log(2.0);
    RiemannianOptimizer opt(*m, *s.task, o);
    const std::vector<Scoring> history = run_rounds(opt, *m, *s.task, 15);  // 30 passes
    ASSERT_EQ(history.size(), 16u) << kind << " " << method;  // pass 0, then one per round
    EXPECT_EQ(history[0].pass, 0);
    EXPECT_NEAR(history[0].train_ll_bits, ll0, 1e-9);
    double prev = ll0;
    for (const Scoring& sc : history) {
      EXPECT_GE(sc.train_ll_bits, prev - 1e-9) << kind << " " << method << " pass " << sc.pass;
      prev = sc.train_ll_bits;
      EXPECT_NEAR(sc.regret, sc.valid_bits - s.valid.true_bits[0], 1e-9);
    }
    EXPECT_GT(history.back().train_ll_bits, ll0 + 1) << kind << " " << method;
    // The best scoring is the minimum over the history, and its parameters were kept.
    double best = INFINITY;
    for (const Scoring& sc : history) best = std::min(best, sc.valid_bits);
    EXPECT_EQ(opt.best().valid_bits, best);
    m->params().set_values(opt.best_params());
    const Trace v = trace(*m, f, s.valid, Need::value);
    EXPECT_NEAR(mixed_bits(v.logits, s.valid), best, 1e-9);
    // Every rejected step halved a rate, every accepted one multiplied it by 1.1.
    const double n = 1.0 / 4, acc_w = 15 - static_cast<double>(opt.rejected_w());
    EXPECT_NEAR(opt.eta_w(), n * std::pow(1.1, acc_w) * std::pow(0.5, static_cast<double>(opt.rejected_w())), 1e-12);
  }
}

TEST(Training, MixedBitsAreTheTasksMixedCodeLength) {
  const Problem s;
  auto m = s.model("glnn", 3);
  const Family f = Family::of(*m);
  const Trace v = trace(*m, f, s.valid, Need::value);
  // By hand: -Σ log2((1 - 1/(t+2)) pi_t(y_t) + 1/(t+2) / 3).
  double bits = 0;
  for (int64_t t = 0; t < v.T; ++t) {
    const double lam = 1.0 / static_cast<double>(t + 2);
    bits -= std::log2((1 - lam) * v.pi[t * 3 + v.y[t]] + lam / 3);
  }
  EXPECT_NEAR(mixed_bits(v.logits, s.valid), bits, 1e-9);
}

}  // namespace
}  // namespace tg::riemannian

namespace tg::riemannian {
namespace {

// A run stopped at any checkpoint and resumed from its state (restored into a fresh optimizer and
// model, as a new process would) equals the uninterrupted run: every scoring, the rates, the rejected
// counts, the kept and the final parameters.
TEST(Training, ResumedRunEqualsTheUninterruptedOne) {
  const Problem s;
  const std::pair<const char*, const char*> runs[] = {{"glnn", "rbpm"}, {"ollivier_rnn", "rms"}};
  for (auto [kind, method] : runs) {
    RiemannianOptions o;
    o.transition = transition_method(method);
    o.data_seed = s.data_seed;
    auto m = s.model(kind, 4);
    RiemannianOptimizer whole(*m, *s.task, o);
    std::vector<optim::Optimizer::State> states;
    std::vector<ParamVec> thetas;
    const std::vector<Scoring> history = run_rounds(whole, *m, *s.task, 12, [&](const ParamVec& theta) {
      states.push_back(whole.state());
      thetas.push_back(theta.clone());
    });
    const ParamVec final_params = m->params().values().clone();
    for (size_t k : {size_t{1}, size_t{6}, states.size() - 1}) {  // after rounds 1, 6 and 12
      auto r = s.model(kind, 4);  // a fresh process: the model at its initialisation
      RiemannianOptimizer resumed(*r, *s.task, o);
      resumed.restore(states[k]);
      r->params().set_values(thetas[k]);
      const std::vector<Scoring> rest = run_rounds(resumed, *r, *s.task, static_cast<int>(12 - (k + 1)));
      for (size_t i = 0; i < rest.size(); ++i) {
        const Scoring &x = rest[i], &y = history[k + 2 + i];  // history[0] is the initialisation
        EXPECT_EQ(x.pass, y.pass);
        EXPECT_EQ(x.train_ll_bits, y.train_ll_bits) << kind << " from state " << k << " scoring " << i;
        EXPECT_EQ(x.valid_bits, y.valid_bits);
      }
      EXPECT_EQ(resumed.eta_w(), whole.eta_w());
      EXPECT_EQ(resumed.eta_tau(), whole.eta_tau());
      EXPECT_EQ(resumed.rejected_w(), whole.rejected_w());
      EXPECT_EQ(resumed.rejected_tau(), whole.rejected_tau());
      EXPECT_EQ(resumed.best().valid_bits, whole.best().valid_bits);
      for (int64_t i = 0; i < final_params.size(); ++i) {
        ASSERT_EQ(r->params().values().flat().at(i), final_params.flat().at(i)) << kind << " from state " << k;
        ASSERT_EQ(resumed.best_params().flat().at(i), whole.best_params().flat().at(i));
      }
    }
  }
}

// A saved state that lacks an entry, or holds a foreign vector, is refused by name.
TEST(Training, RestoreNamesWhatIsWrong) {
  const Problem s;
  auto m = s.model("glnn", 4);
  RiemannianOptions o;
  o.data_seed = s.data_seed;
  RiemannianOptimizer opt(*m, *s.task, o);
  run_rounds(opt, *m, *s.task, 2);
  optim::Optimizer::State st = opt.state();
  st.scalars.erase("eta_tau");
  try {
    opt.restore(st);
    FAIL() << "restored a state without eta_tau";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'eta_tau'"), std::string::npos) << e.what();
  }
  st = opt.state();
  st.vectors.emplace_back("velocity", m->params().values().clone());
  EXPECT_THROW(opt.restore(st), Error);
}

}  // namespace
}  // namespace tg::riemannian
