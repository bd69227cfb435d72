// Linear conjugate gradient on ParamVec, as HF uses it (Martens 2010): minimises
// q(x) = ½ xᵀ A x - bᵀ x (i.e. solves A x = b) from a warm start, with the relative-progress stop,
// an iteration cap, stored iterates for CG backtracking, an optional diagonal preconditioner, and a
// per-iteration hook for stops that look at the true objective and for an operator that changes mid-run.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/params.h"

namespace tg::optim {

using LinearOp = std::function<ParamVec(const ParamVec&)>;

// What the per-iteration hook asks of CG.
enum class CgNext {
  go_on,
  stop,
  restart,  // A has changed since the last product (HF's adapted μ): restart from the current iterate
};

struct CgOptions {
  int max_iters = 300;
  int min_iters = 1;
  // Martens' progress stop: at iteration i with k = max(progress_k, progress_frac * i), stop when
  // i > k, q_i < 0 and (q_i - q_{i-k}) / q_i < k * progress_eps.
  bool progress_stop = true;
  double progress_eps = 5e-4;
  int progress_k = 10;
  double progress_frac = 0.1;
  double residual_tol = 1e-10;  // stop when ||r|| <= residual_tol * ||b||
  double save_ratio = 1.3;      // keep iterates at i = ceil(1.3^j) (and the last) for backtracking
  // Start from 0 instead of x0 when q(x0) > 0 = q(0) (or is not finite). CG only lowers q from its
  // start, so a warm start that is worse than 0 can leave every iterate with q > 0: HF's ρ is then
  // undefined, λ only grows, and the run stalls (seen on the mRNN char model).
  bool zero_start_if_worse = false;
  // Diagonal preconditioner M (x -> M⁻¹ x); empty: none.
  std::function<ParamVec(const ParamVec&)> precondition;
  // Called after each iteration with (i, x_i, the step α_i p_i, q_i).
  std::function<CgNext(int, const ParamVec&, const ParamVec&, double)> on_iter;
};

struct CgResult {
  ParamVec x;                                   // the last iterate
  int iters = 0;
  std::vector<std::pair<int, ParamVec>> saved;  // (iteration, iterate), increasing; includes the last
  // q(x_i), i = 0..iters. A restart shifts the earlier values by the model's jump at the restart, so
  // that a difference of two values is CG's progress, each stretch in the model it was minimising.
  std::vector<double> q;
  std::string stop;                             // why it stopped
  bool zero_started = false;                    // x0 was dropped for 0 (zero_start_if_worse)
  int products = 0;                             // A-products used
  int restarts = 0;                             // CgNext::restart requests
};

CgResult conjugate_gradient(const LinearOp& A, const ParamVec& b, const ParamVec& x0, const CgOptions& opt);

}  // namespace tg::optim
