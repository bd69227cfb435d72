// Sutskever's center-out task (thesis §6.3, §6.5, §6.7.1; digest 000 §3.4): from one central posture
// the arm reaches to targets on a circle in 40 steps of 0.01 s. Per reach, with x = (θ, φ, θ̇, φ̇) and
// x* the target posture at rest,
//   L = ½ ‖x_T - x*‖² + α/2 Σ_{t<T} ‖u_t‖²,   α = 10⁻²·Δt,
// and the objective is the mean of L over the reaches. Radius, start posture and the other choices
// where the thesis is silent: docs/control.md.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <numbers>
#include <vector>

#include "models/arm_controller.h"
#include "optim/objective.h"

namespace tg::models {

struct CenterOutOptions {
  int64_t steps = 40;       // 400 ms
  int64_t reaches = 64;     // targets at angles 2πk / reaches
  double radius = 0.10;     // [m] of the circle of hand targets around the start's hand position
  std::array<double, 2> start_angles{std::numbers::pi / 4, std::numbers::pi / 2};  // (θ, φ) at rest
  double alpha = 1e-2 * 0.01;  // the energy weight, 10⁻²·Δt at the thesis's Δt = 0.01 s (set it anew with plant.dt)
  ArmOptions plant = {};
};

// Joint angles (θ, φ) that put the hand at (x, y), elbow bent anticlockwise (φ in [0, π]). Throws if
// the point is out of reach.
std::array<double, 2> arm_inverse_kinematics(const ArmParams& p, double x, double y);

// A batch of reaches: start and target states [N,4], row-major doubles.
struct ReachBatch : tasks::Data {
  int64_t count = 0;
  std::vector<double> starts, targets;

  Tensor start_tensor(DType dt) const { return Tensor::from({count, 4}, starts, dt); }
  Tensor target_tensor(DType dt) const { return Tensor::from({count, 4}, targets, dt); }
  int64_t size() const override { return count; }
  std::unique_ptr<Data> slice(int64_t first, int64_t n) const override;
  std::unique_ptr<Data> clone() const override { return std::make_unique<ReachBatch>(*this); }
  bool same_as(const Data& other) const override;
  std::string describe() const override;
};

// The task's reaches: all from start_angles at rest to the postures at rest whose hand lies on the
// circle, reach k at angle 2πk / reaches from the x axis.
ReachBatch center_out_reaches(const CenterOutOptions& o);

// The mean over reaches of ½ ‖x_T - x*‖² + α/2 Σ_t ‖u_t‖² (target [N,4]).
Var center_out_loss(const Rollout& r, Var target, double alpha);

// The objective's graph on a batch: the loss, a Gauss-Newton block at (x_T, u_0 .. u_{T-1}) with the
// loss itself as head (it is exactly quadratic there, so G = Jᵀ diag(1, α, ..., α) J / N), structural
// damping over both layers' tanh pre-activations, and the torques as outputs.
optim::Built build_center_out(Graph& g, const ArmController& controller, const CenterOutOptions& o,
                              const ReachBatch& batch);

// An objective over the controller's parameters `params` (the set `controller` was built in; the
// controller is copied: it holds only parameter ids and sizes).
std::unique_ptr<optim::GraphObjective> center_out_objective(ParamSet params, const ArmController& controller,
                                                            const CenterOutOptions& o);

}  // namespace tg::models
