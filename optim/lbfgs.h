// L-BFGS (Nocedal & Wright, Alg. 7.4 and 7.5) as a full-batch baseline: the two-loop recursion over the
// last `history` pairs (s, y) with H₀ = (sᵀy / yᵀy) I, then a backtracking Armijo line search on the
// same batch. A trial point counts only if its loss and gradient are finite, so θ never becomes
// non-finite; when no trial passes, the step is skipped and the history cleared (the next step is
// steepest descent). A pair is stored only when sᵀy > min_curvature ‖s‖‖y‖ (H stays positive definite).
// weight_decay adds ½ wd ‖θ‖² to f (value and gradient, so the line search sees it too); StepStats'
// loss and new_loss include it, grad_norm does not.
//
// Cost: the gradient at the accepted point is kept, and reused by the next step when it is called
// with that θ, the same objective and the same batch (tensors sharing buffers: a batch must not be
// refilled in place between steps). A full-batch step thus costs one backward pass plus one forward
// pass per line-search trial. The cache is not state: a resumed run recomputes it, bit-identically.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "optim/first_order.h"

namespace tg::optim {

struct LbfgsConfig {
  Schedule lr{1.0};             // the first trial step α₀ (the first iteration, without history: α₀ / ‖g‖)
  int history = 10;             // pairs kept (m)
  double armijo = 1e-4;         // sufficient decrease: f(θ + αd) ≤ f(θ) + armijo α gᵀd
  double backtrack = 0.5;       // α ← backtrack α after a failed trial
  int max_line_search = 20;     // trials per step
  double weight_decay = 0;
  double min_curvature = 1e-10;
};

nlohmann::json to_json(const LbfgsConfig& c);
LbfgsConfig lbfgs_config_from_json(const nlohmann::json& j);  // unknown keys are an error

class Lbfgs : public FirstOrder {
 public:
  explicit Lbfgs(LbfgsConfig cfg = {});
  const std::string& name() const override;
  StepStats step(Objective& obj, ParamVec& theta, const Data& b) override;
  nlohmann::json config() const override { return to_json(cfg_); }
  OptimizerState state() const override;  // vectors s0, y0, s1, y1, ... oldest first
  void restore(const OptimizerState& s) override;
  int pairs() const { return static_cast<int>(s_.size()); }

 private:
  ParamVec direction(const ParamVec& g) const;  // -H g by the two-loop recursion
  void remember(ParamVec s, ParamVec y);

  LbfgsConfig cfg_;
  std::vector<ParamVec> s_, y_;  // oldest first
  struct Cached {
    const Objective* obj;
    std::shared_ptr<const Data> batch;  // holds the batch's buffers, so a new batch cannot reuse their addresses
    ParamVec theta, grad;  // grad and loss include the decay term
    double loss;
    double grad_norm;      // ‖∇f‖ without it, for StepStats
  };
  std::optional<Cached> cache_;
};

}  // namespace tg::optim
