// Hessian-free optimisation (Martens 2010; Martens & Sutskever 2011; Krause 2015 line-search damping).
// Per iteration: gradient on a large batch, then CG on the damped curvature
//   B v = C v + λ v + λμ G_S v        (C = Gauss-Newton at the logits, or the Hessian, or empirical Fisher;
//                                      G_S = Gauss-Newton of the structural-damping block;
//                                      `mu_times_lambda = false` gives Krause's weighting B = C + μ G_S + λ I,
//                                      whose μ `adapt_mu` adapts while CG runs)
// on a smaller curvature batch (a subset of the gradient batch), warm-started from decay × the previous
// solution. Then CG backtracking on the true objective, the Levenberg-Marquardt λ rule, and a
// backtracking line search. A NaN or an increase counts as ρ = -∞ and the step is rejected: parameters
// never become non-finite.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "optim/cg.h"
#include "optim/objective.h"

namespace tg::optim {

enum class Curvature { gauss_newton, hessian, fisher };
enum class StepRule {
  cg_backtrack,         // Martens: the best stored CG iterate on the true objective (backtracking)
  line_search_damping,  // Krause 3.3.3: each conjugate step scaled by its own backtracking search on f
  augmented,            // Sutskever ch. 6 (approx.): a greedy 1-D search on f along each conjugate step
};

struct HfConfig {
  double lambda = 0.1;          // initial Tikhonov damping
  double mu = 1.0 / 30;         // structural damping weight (0: Tikhonov only)
  bool mu_times_lambda = true;  // λμ G_S (Martens & Sutskever); false: μ G_S (Krause)
  // Krause's μ(i) (4.1): every check_every CG iterations μ follows the Levenberg-Marquardt rule on the
  // agreement p of f and the model since θ, and CG stops once μ >= 3 μ0 (μ0: μ when CG started); the
  // adapted μ carries over to the next iteration. Needs mu > 0 and mu_times_lambda = false.
  bool adapt_mu = false;
  // The rule's directions as printed (p < 1/4: μ shrinks), which contradicts the 3 μ0 stop: a typo.
  bool mu_adapt_literal = false;
  Curvature curvature = Curvature::gauss_newton;
  StepRule rule = StepRule::cg_backtrack;
  int max_cg = 300;
  int min_cg = 1;
  double cg_decay = 0.95;       // warm start from decay × the previous CG solution
  // Start CG from 0 whenever the warm start's model value is above q(0) = 0. Off by default: on the
  // addition problem the warm start is "worse than 0" in almost every iteration and still essential
  // (10 CG steps from 0 no longer reach the criterion); on the char LSTM it dropped the warm start in
  // 510 of 513 iterations and cost 0.25 test bpc. cg_restart_if_stuck is the milder rule.
  bool cg_zero_start_if_worse = false;
  // Keep the warm start, but when CG from it ends with the model value still at or above q(0) = 0
  // (ρ undefined: on the mRNN char model λ then grew to 1e84), run CG again from 0 in the same
  // iteration. Costs extra CG products only in such iterations.
  bool cg_restart_if_stuck = false;
  double progress_eps = 5e-4;   // Martens' relative-progress stop
  // The thesis's stop on the true objective: every check_every CG iterations, stop once the reduction on
  // the curvature batch falls below this fraction of its best so far (0: off; the thesis used 0.9).
  double true_stop_factor = 0;
  int check_every = 10;         // CG iterations between that stop's checks and adapt_mu's
  bool backtrack = true;        // CG backtracking over stored iterates (cg_backtrack rule)
  double lm_decrease = 2.0 / 3, lm_increase = 1.5;  // ρ > 3/4: λ *= 2/3;  ρ < 1/4: λ *= 3/2
  double rho_low = 0.25, rho_high = 0.75;
  double min_lambda = 1e-10;
  bool line_search = true;      // backtracking on the step size, on the gradient batch
  double ls_factor = 0.8;
  int ls_max = 50;
  double armijo = 1e-2;
  int ls_damping_tries = 10;    // Krause: backtracking steps per conjugate direction
  double ls_damping_tau = 0.5;  // Krause's decay constant (not given in the thesis)
  int ls_damping_failures = 5;  // stop CG after more than this many failed searches
  // Martens' diagonal preconditioner M = [diag(empirical Fisher on the curvature batch) + λI]^α for
  // CG (optim/precondition.h); costs one forward/backward pass per curvature-batch sequence.
  bool precondition = false;
  double precondition_alpha = 0.75;
  int grad_chunk = 1000;        // the gradient batch is evaluated this many sequences at a time
};

nlohmann::json to_json(const HfConfig& c);
HfConfig hf_config_from_json(const nlohmann::json& j);  // unknown keys are an error

struct HfStats {
  double loss = 0;         // f(θ) on the gradient batch, before the step
  double new_loss = 0;     // f(θ + α δ) on the gradient batch, after the step (= loss if rejected)
  double grad_norm = 0;
  double lambda = 0;       // λ used for this iteration's CG (before the LM update)
  double mu = 0;           // μ at the end of CG (adapt_mu: the next iteration's μ0)
  double next_lambda = 0;
  double rho = 0;
  double q = 0;            // damped quadratic model at the chosen δ
  double curv_loss = 0;    // f(θ) on the curvature batch: ρ's reference
  double curv_new_loss = 0;  // f(θ + δ) on the curvature batch, at the chosen CG iterate
  double step = 0;         // line-search α (0: rejected)
  int cg_iters = 0;
  int chosen_iter = 0;     // which stored CG iterate was used
  std::string cg_stop;
  bool cg_zero_start = false;  // the warm start had q > 0, so CG started from 0
  bool cg_restart = false;     // CG from the warm start ended with q >= 0 and was rerun from 0
  bool accepted = false;
  int64_t sequences = 0;   // sequences processed by this iteration (gradient, products, evaluations)
};

class HessianFree {
 public:
  explicit HessianFree(HfConfig cfg = {});  // a tg::Error names any option outside its range
  HfStats step(Objective& obj, ParamVec& theta, const Data& grad_batch, const Data& curv_batch);

  const HfConfig& config() const { return cfg_; }
  double lambda() const { return lambda_; }
  double mu() const { return mu_; }
  // Resumable state: λ, μ (adapt_mu changes it) and the CG warm start.
  const ParamVec& warm_start() const { return prev_; }
  // λ and μ must be finite and >= 0 (a tg::Error otherwise); no μ: the configured one.
  void restore(double lambda, ParamVec warm_start, std::optional<double> mu = std::nullopt);

 private:
  HfConfig cfg_;
  double lambda_;
  double mu_;
  ParamVec prev_;  // previous CG solution (empty: zero)
};

}  // namespace tg::optim
