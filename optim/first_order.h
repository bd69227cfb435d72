// First-order optimizers on an Objective: SGD, classical momentum, Nesterov's accelerated gradient in
// the look-ahead form, RMSprop, Adam, and L-BFGS as a full-batch baseline (optim/lbfgs.h). They see
// only the Objective, θ and Evaluations, never a model.
//
// One step at iteration t (0, 1, ...; every call counts, skipped ones too):
//   ε = lr.at(t), μ = momentum.at(t)
//   g = ∇f at the evaluation point (θ; θ + μv for NAG)
//   if ‖g‖ > clip_norm > 0: g ← g · clip_norm / ‖g‖     (clips the objective's gradient only)
//   g ← g + weight_decay · (evaluation point)              (L2 on every parameter, biases included)
//   then the method's update:
//     sgd       θ ← θ - ε g
//     momentum  v ← μ v - ε g;  θ ← θ + v                                  (digest 000 eqs 7.1-7.2)
//     nag       the same with g taken at θ + μ v                             (eqs 7.12-7.13)
//     rmsprop   r ← ρ r + (1-ρ) g²;  d = g / (√r + eps);  θ ← θ - ε d
//               (with momentum μ > 0: b ← μ b + d; θ ← θ - ε b)
//     adam      m ← β1 m + (1-β1) g;  s ← β2 s + (1-β2) g²;  k = updates so far + 1
//               θ ← θ - ε m̂ / (√ŝ + eps),  m̂ = m / (1-β1^k), ŝ = s / (1-β2^k)   (L2 as above, not AdamW)
// A non-finite loss or gradient, or an update that would make θ or the state non-finite, skips the
// step: θ and the state stay as they were, StepStats says why. θ never becomes non-finite.
//
// Regularizers that act on the model graph (Krueger's norm-stabilizer, Pascanu's Ω, dropout, weight
// noise) live in the objective: the optimizer sees their sum in f and ∇f and needs nothing from them.
// Dropout / weight noise are drawn once per batch from the run's (checkpointed) RNG and attached to the
// batch (models/noise.h), not per evaluation: NAG's look-ahead and L-BFGS's line search evaluate
// several points per step on one noise sample, and a resumed run sees the same noise.
//
// Checkpoints: state() gives the step count, the number of applied updates, the learning-rate scale
// (1 unless scale_learning_rate changed it) and the named state vectors
// (deep copies, in θ's layout and dtype):
//   momentum, nag: "velocity";  rmsprop: "mean_square" (+ "velocity" once μ > 0);  adam: "m", "v";
//   lbfgs: "s0", "y0", "s1", "y1", ... oldest pair first;  sgd: none.
// A vector that was never needed is absent (a fresh optimizer starts it at zero). Save them with θ and
// config(); to resume, make_first_order(name, config) then restore(state): the continued run is
// bit-identical to an uninterrupted one.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "optim/objective.h"
#include "optim/schedule.h"

namespace tg::optim {

struct StepStats {
  double loss = 0;          // f where the gradient was taken (θ; θ + μv for NAG), before the step
  double grad_norm = 0;     // ‖∇f‖ there, before clipping and decay
  bool clipped = false;
  double lr = 0;            // ε at this iteration (L-BFGS: the first trial step)
  double momentum = 0;      // μ at this iteration (adam: β1; sgd, lbfgs: 0)
  double update_norm = 0;   // ‖θ_new - θ‖ (0 when skipped)
  bool skipped = false;
  std::string skip_reason;  // nonfinite_loss, nonfinite_gradient, nonfinite_update, line_search_failed (lbfgs)
  int64_t sequences = 0;    // sequences processed: a gradient costs 2 passes over the batch, a value 1
  // L-BFGS only
  double new_loss = std::numeric_limits<double>::quiet_NaN();  // f after the step
  double step_size = 0;     // accepted line-search α
  int evaluations = 0;      // objective evaluations this step
};

nlohmann::json to_json(const StepStats& s);  // for logs (the L-BFGS fields only when set)

struct OptimizerState {
  int64_t step = 0;      // iterations taken (skipped ones included): the schedules' clock
  int64_t updates = 0;   // iterations that changed θ (Adam's bias correction counts these)
  double lr_scale = 1;   // multiplies the lr schedule (the trainer's NaN rule halves it)
  std::vector<std::pair<std::string, ParamVec>> vectors;
};

class FirstOrder {
 public:
  virtual ~FirstOrder() = default;
  virtual const std::string& name() const = 0;
  virtual StepStats step(Objective& obj, ParamVec& theta, const Data& b) = 0;
  // Every option resolved (schedules expanded): make_first_order(name(), config()) rebuilds it.
  virtual nlohmann::json config() const = 0;
  virtual OptimizerState state() const = 0;
  // Replaces the state (deep copy). Unknown vector names are a tg::Error; sizes are checked against θ
  // at the next step.
  virtual void restore(const OptimizerState& s) = 0;
  int64_t iteration() const { return step_; }
  int64_t updates() const { return updates_; }
  // ε becomes lr_scale · lr.at(t) from the next step on (Krueger's rule for a diverged run halves it).
  void scale_learning_rate(double factor) { lr_scale_ *= factor; }
  double learning_rate_scale() const { return lr_scale_; }

 protected:
  int64_t step_ = 0;
  int64_t updates_ = 0;
  double lr_scale_ = 1;
};

// name: sgd, momentum, nag, rmsprop, adam, lbfgs. options: any subset of first_order_defaults(name);
// an unknown name or option, or a bad value, is a tg::Error naming it and the known ones.
// momentum and nag also take "preset" (a schedule preset name, optim/schedule.h): it sets lr and
// momentum, and an explicit "lr" or "momentum" overrides its part.
std::unique_ptr<FirstOrder> make_first_order(const std::string& name, const nlohmann::json& options = nlohmann::json::object());
const std::vector<std::string>& first_order_names();
nlohmann::json first_order_defaults(const std::string& name);  // every option with its default

}  // namespace tg::optim
