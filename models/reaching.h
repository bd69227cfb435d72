// Sutskever's reaching tasks (thesis §6.3, §6.5, §6.7; digest 000 §3.4) as objectives over the
// controller's parameters: a closed-loop rollout of controller and plant on a batch of reaches
// (tasks/reaching.h), the task's cost, and the blocks HF needs. Per reach, with x = (θ, φ, θ̇, φ̇):
//   center-out, DDN:  ½ ‖x_T − x*‖² + α/2 Σ_{t<T} ‖u_t‖²
//   postural:         ½ Σ_{t=1..T} ‖q_t − q*‖² + ½ Σ_{t>T/2} ‖q̇_t‖² + α/2 Σ_{t<T} ‖u_t‖²
// and the objective is the mean over reaches. Choices where the thesis is silent: docs/control.md.
#pragma once
#include <memory>
#include <vector>

#include "models/arm_controller.h"
#include "optim/objective.h"
#include "tasks/reaching.h"

namespace tg::models {

using tasks::arm_inverse_kinematics;
using tasks::center_out_reaches;
using tasks::CenterOutOptions;
using tasks::ReachBatch;
using tasks::ReachCost;

// A batch's per-step draws and disturbances as graph inputs: T entries, or none when the batch has
// neither noise, disturbance nor hand force.
std::vector<ArmStepInputs> step_inputs(Graph& g, const ReachBatch& b, int64_t steps, DType dt);

// The cost above for a rollout towards `target` [N,4].
Var reaching_loss(const Rollout& r, Var target, const ReachCost& cost);
inline Var center_out_loss(const Rollout& r, Var target, double alpha) {
  return reaching_loss(r, target, {.steps = static_cast<int64_t>(r.torques.size()), .alpha = alpha});
}

// The objective's graph on a batch: the loss; a Gauss-Newton block at the states the cost reads and the
// torques, with the loss itself as head (the cost is exactly a sum of squares of those nodes, so
// G = Jᵀ H J with H the cost's own constant Hessian); structural damping over both layers' tanh
// pre-activations; and as outputs the states x_1 .. x_T, then the torques (what ReachTask::score reads).
optim::Built build_reaching(Graph& g, const ArmController& controller, const ArmOptions& plant, const ReachCost& cost,
                            const ReachBatch& batch);

// An objective over the controller's parameters `params` (the set `controller` was built in; the
// controller is copied: it holds only parameter ids and sizes).
std::unique_ptr<optim::GraphObjective> reaching_objective(ParamSet params, const ArmController& controller,
                                                          const ArmOptions& plant, const ReachCost& cost);
inline std::unique_ptr<optim::GraphObjective> center_out_objective(ParamSet params, const ArmController& controller,
                                                                   const CenterOutOptions& o) {
  return reaching_objective(std::move(params), controller, o.plant, {.steps = o.steps, .alpha = o.alpha});
}

}  // namespace tg::models
