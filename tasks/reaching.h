// The reaching tasks of Sutskever's thesis Ch. 6 (§6.3, §6.7; digest 000 §3.4) as data: which arm moves,
// from where to where, under which disturbances and noise, and what a trajectory costs. The arm's
// dynamics and the controller are graphs in models/ (arm_plant.h, arm_controller.h, reaching.h); here
// are only the numbers they read, so that the trainer, `eval` and the optimizers see a reaching task
// like any other data set:
//   center_out  40 steps, 64 reaches from one posture to targets on a circle; final-state loss
//   postural    100 steps, 9 postures × 8 constant forces at the hand, feedback delayed 10 steps;
//               the posture held at every step, the velocities quenched in the second half
//   ddn         60 steps, random start and target, feedback delayed 7 steps, a constant torque
//               disturbance switched on at a random step of the first half, signal-dependent noise
// Choices where the thesis is silent: docs/control.md.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"
#include "tasks/dataset.h"

namespace tg::tasks {

// SI units. Defaults: the human arm of Li & Todorov (ICINCO 2004), whose inertias 0.025 and
// 0.045 kg m² are about the shoulder and elbow; here they are moved to the centres of mass
// (parallel-axis theorem), so that M is the same matrix as theirs (docs/control.md).
struct ArmParams {
  double l1 = 0.30, l2 = 0.33;  // segment lengths: upper arm, forearm to the hand
  double m1 = 1.4, m2 = 1.0;    // segment masses
  double s1 = 0.11, s2 = 0.16;  // joint to the segment's centre of mass
  double i1 = 0.025 - 1.4 * 0.11 * 0.11;  // moments of inertia about the centres of mass
  double i2 = 0.045 - 1.0 * 0.16 * 0.16;
  double b11 = 0.05, b12 = 0.025, b21 = 0.025, b22 = 0.05;  // joint viscosity B [N m s / rad]
};

struct ArmOptions {
  ArmParams arm = {};
  double dt = 0.01;          // Euler step [s]
  bool viscosity = true;     // false drops B q̇ (the arm then conserves energy without torques)
  double command_noise = 0;  // σ_u: the torque applied is u ⊙ (1 + σ_u ε_u)
  double plant_noise = 0;    // σ_f: the next state gets + σ_f ε_f
  std::array<double, 2> disturbance{0, 0};  // a constant torque at (shoulder, elbow) [N m], every step
  std::array<double, 2> hand_force{0, 0};   // a constant force (x, y) at the hand [N], as torques Jᵀ F
  int feedback_delay = 0;   // steps by which the controller's view lags the arm
};

// Throws tg::Error naming the first bad field (non-positive length, mass or Δt, negative inertia,
// noise σ or delay, non-finite values).
void check_arm(const ArmOptions& o);

// The hand (x, y) [m] at joint angles (θ, φ): shoulder at the origin, θ from the x axis, φ from the
// upper arm.
std::array<double, 2> hand_at(const ArmParams& p, double theta, double phi);

// Joint angles (θ, φ) that put the hand at (x, y), elbow bent anticlockwise (φ in [0, π]). Throws if
// the point is out of reach.
std::array<double, 2> arm_inverse_kinematics(const ArmParams& p, double x, double y);

// What a trajectory costs, per reach (digest 000 §3.4), with x = (θ, φ, θ̇, φ̇) and x* the target at rest:
//   final_state:  ½ ‖x_T − x*‖² + α/2 Σ_{t<T} ‖u_t‖²                                  (center-out, DDN)
//   every_step:   ½ Σ_{t=1..T} ‖q_t − q*‖² + ½ Σ_{t>T/2} ‖q̇_t‖² + α/2 Σ_{t<T} ‖u_t‖²  (postural)
// and the objective is the mean over reaches.
struct ReachCost {
  int64_t steps = 40;
  double alpha = 1e-2 * 0.01;
  bool every_step = false;
};

// A batch of N reaches. Per reach: start and target states [N,4], and where the task has them a
// torque disturbance d [N,2] acting from step `onset` [N] on, a force at the hand [N,2], and the
// standard normal draws of the command noise [T,N,2] and the plant noise [T,N,4], drawn with the batch
// so that a run is deterministic by seed. Empty vectors: none.
struct ReachBatch : Data {
  int64_t count = 0;
  int64_t steps = 0;  // T, for the per-step draws
  std::vector<double> starts, targets;
  std::vector<double> disturbance, hand_force;
  std::vector<int64_t> onset;
  std::vector<double> command_noise, plant_noise;

  Tensor start_tensor(DType dt) const { return Tensor::from({count, 4}, starts, dt); }
  Tensor target_tensor(DType dt) const { return Tensor::from({count, 4}, targets, dt); }
  int64_t size() const override { return count; }
  std::unique_ptr<Data> slice(int64_t first, int64_t n) const override;
  std::unique_ptr<Data> clone() const override { return std::make_unique<ReachBatch>(*this); }
  bool same_as(const Data& other) const override;
  std::string describe() const override;
};

// The center-out task (thesis §6.7.1): from one posture at rest to the 64 postures at rest whose hand
// lies on a circle around the start's hand.
struct CenterOutOptions {
  int64_t steps = 40;       // 400 ms
  int64_t reaches = 64;     // targets at angles 2πk / reaches
  double radius = 0.10;     // [m] of the circle of hand targets around the start's hand position
  std::array<double, 2> start_angles{std::numbers::pi / 4, std::numbers::pi / 2};  // (θ, φ) at rest
  double alpha = 1e-2 * 0.01;  // the energy weight, 10⁻²·Δt at the thesis's Δt = 0.01 s (set it anew with plant.dt)
  ArmOptions plant = {};
};
// Reach k goes to the target at angle 2πk / reaches from the x axis.
ReachBatch center_out_reaches(const CenterOutOptions& o);

// A reaching task as a data set: its plant, its cost, and its reaches (a fixed list for center-out
// and postural, fresh draws for DDN). The score of a trajectory is the hand's distance to the target
// in cm: at the last step (center-out, DDN), or averaged over the steps (postural).
class ReachTask : public Dataset {
 public:
  struct Spec {
    std::string name;
    ArmOptions plant;
    ReachCost cost;
    ReachBatch fixed;  // the fixed list of reaches (count 0: fresh draws)
    // DDN's draws: the box of joint angles starts and targets come from, the disturbance's σ per joint
    std::array<double, 2> theta_range{0, 0}, phi_range{0, 0};
    double disturbance_sigma = 0;
  };
  explicit ReachTask(Spec spec);

  const std::string& name() const override { return spec_.name; }
  Signature signature() const override;  // 8 dense inputs (the seen state, the target), 2 linear outputs
  // A fixed list: `count` distinct reaches at random (all of them, in order, when count is its size).
  // DDN: `count` fresh reaches.
  std::unique_ptr<Data> draw(int64_t count, Rng& rng) const override;
  int64_t num_cases() const override;
  std::unique_ptr<Data> cases(int64_t first, int64_t count) const override;
  // outputs: the states x_1 .. x_T, then the torques u_0 .. u_{T-1} (what models/reaching.h's graph
  // hands out).
  double score(const Data& d, const std::vector<Tensor>& outputs) const override;
  std::string success_criterion() const override { return "none: trained to a budget (the thesis reports the loss)"; }
  double success_threshold() const override;  // -inf
  double chance_level() const override;        // the score without torques: known for center-out only
  std::string case_noun() const override { return "reaches"; }

  const Spec& spec() const { return spec_; }

 private:
  ReachBatch fixed(const std::vector<int64_t>& rows) const;
  Spec spec_;
};

// The reaching task `name` (center_out, postural, ddn) with its options, or null for another name.
std::unique_ptr<ReachTask> make_reach_task(const std::string& name, const nlohmann::json& options);

}  // namespace tg::tasks
