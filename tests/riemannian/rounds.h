// Drives a RiemannianOptimizer round by round as the trainer does (θ in, θ out), and reads each
// round's scoring back from the metrics it returns.
#pragma once
#include <functional>
#include <stdexcept>
#include <vector>

#include "riemannian/optimizer.h"

namespace tg::riemannian {

// The trainer hands the optimizer its objective; Ollivier's methods never use it.
class UnusedObjective : public optim::Objective {
 public:
  explicit UnusedObjective(const ParamSet& ps) : ps_(ps) {}
  const ParamSet& params() const override { return ps_; }
  std::unique_ptr<optim::Evaluation> evaluate(const ParamVec&, const optim::Data&) override {
    throw std::logic_error("the Riemannian optimizer evaluated the trainer's objective");
  }

 private:
  const ParamSet& ps_;
};

// `rounds` iterations from the model's current parameters; the scorings, the initialisation's first
// when the optimizer had not scored yet. after_round (optional) sees θ after each round.
inline std::vector<Scoring> run_rounds(RiemannianOptimizer& opt, models::Model& m, const tasks::Task& task, int rounds,
                                       const std::function<void(const ParamVec&)>& after_round = {}) {
  UnusedObjective obj(m.params());
  ParamVec theta = m.params().values().clone();
  Rng rng(0);
  std::vector<Scoring> history;
  for (int k = 0; k < rounds; ++k) {
    const nlohmann::json r = opt.step(obj, theta, task, rng, k);
    if (r.contains("initial_valid_bits"))
      history.push_back({0, r["initial_train_ll_bits"].get<double>(), r["initial_valid_bits"].get<double>(),
                         r["initial_regret"].get<double>(), r["initial_error"].get<double>()});
    history.push_back({r["passes"].get<int64_t>(), r["train_ll_bits"].get<double>(), r["valid_bits"].get<double>(),
                       r["regret"].get<double>(), r["error"].get<double>()});
    if (after_round) after_round(theta);
  }
  return history;
}

}  // namespace tg::riemannian
