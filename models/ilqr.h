// Iterative LQR (Li & Todorov, ICINCO 2004) for the center-out task of Sutskever's thesis Ch. 6: the
// open-loop torques u_0 .. u_{T-1} of each reach that minimise, under `arm_step` dynamics in float64,
//   L = ½ ‖x_T - x*‖² + α/2 Σ_{t<T} ‖u_t‖²
// (the per-reach loss of models/reaching.h). A gold standard for the trained controllers: what the
// best open-loop plan for each reach scores.
//
// Each iteration linearises the arm along the current trajectory, A_t = ∂x_{t+1}/∂x_t and
// B_t = ∂x_{t+1}/∂u_t, taken from the engine (JVPs of one `arm_step` graph over every (reach, step)
// row at once), runs the Riccati recursion backwards with Q_uu + μI, and rolls the true nonlinear arm
// forwards under u_t = ū_t + a k_t + K_t (x_t - x̄_t) with a backtracking line search over
// a ∈ {1, ½, ¼, ...}; μ rises and falls Levenberg-Marquardt style. Reaches are independent: a batch is
// solved in lockstep but each reach has its own μ, step and stopping test, so a reach's result does not
// depend on the others in its batch. Details and measured figures: docs/control.md, "iLQR".
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "models/arm_plant.h"
#include "models/reaching.h"

namespace tg::models {

struct IlqrOptions {
  int max_iters = 200;       // linearisations per reach (each ends in an accepted step or a stop)
  double tol = 1e-10;        // stop when a step lowers L by less than tol · L, or (μ at its floor) the model
                             // predicts that
  double mu0 = 1e-6;         // initial regulariser of Q_uu
  double mu_min = 1e-9;      // μ never falls below this once raised (and rises from at least it)
  double mu_max = 1e10;      // give up (not converged) when μ would exceed it
  double mu_factor = 10;     // μ ×= factor after a failed backward pass or line search, ÷= after a success
  int line_search_steps = 16;  // a = 1, ½, ..., 2^-(steps-1)
  double accept = 1e-4;      // accept a step when the actual decrease ≥ accept × the predicted decrease
  double loss_floor = 1e-24;  // also stop (converged) once L ≤ loss_floor, where rounding decides the
                              // steps: reached only when α = 0 lets the arm end exactly on the target
};

// Throws tg::Error naming the first bad field ("ilqr: tol must be > 0 (got 0)").
void check_ilqr(const IlqrOptions& o);

struct IlqrResult {
  std::vector<double> torques;  // T × 2, row-major: u_0 .. u_{T-1} (shoulder, elbow) [N m]
  std::vector<double> states;   // (T+1) × 4: x_0 .. x_T of the nonlinear rollout under `torques`
  double loss = 0;              // ½ ‖x_T - x*‖² + α/2 Σ ‖u_t‖² of that rollout
  double final_error = 0;       // its ½ ‖x_T - x*‖² part
  int iterations = 0;           // linearisations made (Jacobians taken)
  bool converged = false;       // stopped by tol or loss_floor (false: max_iters or mu_max reached)
};

// One reach from `start` to `target` (θ, φ, θ̇, φ̇) in `steps` steps, starting from u = 0. The plant
// must be noise-free (command_noise = plant_noise = 0; constant disturbances and hand forces are part
// of the dynamics; feedback_delay does not matter to open-loop torques).
IlqrResult ilqr_reach(const ArmOptions& plant, const std::array<double, 4>& start, const std::array<double, 4>& target,
                      int64_t steps, double alpha, const IlqrOptions& o = {});

// Every reach of a batch, solved together (one Jacobian graph and one rollout graph per iteration for
// all reaches still running); result k is reach k's.
std::vector<IlqrResult> ilqr_reaches(const ArmOptions& plant, const ReachBatch& reaches, int64_t steps, double alpha,
                                     const IlqrOptions& o = {});

// The center-out task's reaches (center_out_reaches(c)) with its plant, steps and α.
std::vector<IlqrResult> ilqr_center_out(const CenterOutOptions& c, const IlqrOptions& o = {});

}  // namespace tg::models
