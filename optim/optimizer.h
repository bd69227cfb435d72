// The one interface every training method implements, so that one trainer (tools/trainer.cc) owns the
// clock, budgets, progress, metrics, signals, checkpoints and resume for all of them: Hessian-free and
// the first-order family here, Ollivier's Riemannian methods in riemannian/optimizer.h.
//
// An iteration draws its own data from the data set with the trainer's RNG (or, like Ollivier's methods,
// reads data fixed at construction), updates θ, and returns the metrics to log. Everything the next
// iteration depends on is in state(): restoring it into a freshly made optimizer continues the run
// bit-identically.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/params.h"
#include "optim/objective.h"
#include "tasks/dataset.h"

namespace tg::optim {

class Optimizer {
 public:
  // What a checkpoint keeps: small values (λ, counters, rates) and named vectors in θ's layout.
  struct State {
    nlohmann::json scalars = nlohmann::json::object();
    std::vector<std::pair<std::string, ParamVec>> vectors;
  };

  virtual ~Optimizer() = default;
  // One iteration at `iteration` (0, 1, ...). Keys the trainer reads: "loss"; "skipped" (a step that
  // changed nothing because something was not finite); "accepted" and "lambda" (damped methods).
  virtual nlohmann::json step(Objective& obj, ParamVec& theta, const tasks::Dataset& data, Rng& rng,
                              int64_t iteration) = 0;
  virtual State state() const = 0;
  // Replaces the state with a saved one; a missing or unknown entry is a tg::Error naming it.
  virtual void restore(const State& s) = 0;
  // Non-empty once the method's own stopping rule holds (e.g. patience on its validation score): the
  // trainer then stops with a checkpoint, before taking another step.
  virtual std::string finished() const { return {}; }
  // What the method adds to the run's summary line (e.g. the validation and confirmation figures behind
  // its own stopping rule); empty by default. A "success" entry is combined with the trainer's own (both
  // must hold); other keys must not be the trainer's.
  virtual nlohmann::json summary_facts() const { return nlohmann::json::object(); }
  // True for a method that scores the validation data itself every iteration (Ollivier's methods, whose
  // one validation sequence is far too long for the trainer's unroll): the trainer then never validates.
  virtual bool validates_itself() const { return false; }
  // Multiplies the learning rate from the next step on; false for a method without one (Hessian-free
  // adapts λ instead, Ollivier's methods their own rate).
  virtual bool scale_learning_rate(double /*factor*/) { return false; }
};

struct BatchSizes {
  int64_t batch = 100;           // sequences per gradient
  int64_t curvature_batch = 0;   // Hessian-free: sequences per curvature product (0: batch / 10)
};

// "hf" or a first-order name (sgd, momentum, nag, rmsprop, adam, lbfgs) with its options; an unknown
// name or option is a tg::Error naming the known ones.
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, const nlohmann::json& options, BatchSizes sizes);
// Every option of that optimizer with defaults filled in (what a run's config.json records).
nlohmann::json resolved_options(const std::string& name, const nlohmann::json& options);
// "hf" and the first-order names.
std::vector<std::string> optimizer_names();

}  // namespace tg::optim
