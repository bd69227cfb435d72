// The plant of Sutskever's thesis Ch. 6 (§6.5, §6.6): a planar two-link arm (shoulder angle θ, elbow
// angle φ) moving in the horizontal plane, so without gravity, driven by joint torques u:
//   M(φ) q̈ + C(φ, q̇) + B q̇ = τ,   q = (θ, φ)
//   M = [a1 + 2 a2 cos φ,  a3 + a2 cos φ;  a3 + a2 cos φ,  a3],   C = a2 sin φ (-φ̇ (2θ̇ + φ̇), θ̇²)
//   a1 = I1 + m1 s1² + I2 + m2 (l1² + s2²),   a2 = m2 l1 s2,   a3 = I2 + m2 s2²
// with I1, I2 about the segments' centres of mass, stepped by explicit Euler at Δt (0.01 s in the thesis).
// A step is a graph of ops, so controllers are trained through it and its Jacobians come from the
// engine. Parameters, their source and the choices made where the sources are silent: docs/control.md.
#pragma once
#include <array>
#include <deque>

#include "core/graph.h"
#include "core/site.h"
#include "tasks/reaching.h"

namespace tg::models {

// The arm's parameters and options are plain numbers that the reaching tasks also read (tasks/reaching.h).
using tasks::ArmOptions;
using tasks::ArmParams;
using tasks::check_arm;

// The constants of M and C.
struct ArmInertia {
  double a1, a2, a3;
};
ArmInertia arm_inertia(const ArmParams& p);

// What varies per step or per trajectory, drawn by the caller so that runs are deterministic by seed.
// Each is optional: [N, k], or [k] for the same value in every row.
struct ArmStepInputs {
  Var command_noise;  // ε_u [N,2], standard normal; required when command_noise > 0, ignored when it is 0
  Var plant_noise;    // ε_f [N,4], standard normal; required when plant_noise > 0, ignored when it is 0
  Var disturbance;    // [N,2] torques added to ArmOptions::disturbance (one draw per trajectory, say)
  Var hand_force;     // [N,2] forces added to ArmOptions::hand_force
};

// One Euler step of the arm for a batch of N arms (thesis §6.5):
//   τ = u ⊙ (1 + σ_u ε_u) + d + J(q)ᵀ F;   x' = x + Δt (q̇, q̈(x, τ)) + σ_f ε_f
// state [N,4] (θ, φ, θ̇, φ̇) in rad and rad/s, torque u [N,2] (shoulder, elbow) -> next state [N,4].
Var arm_step(Var state, Var torque, const ArmOptions& o, const ArmStepInputs& in = {},
             Site site = Site::current());

// The continuous dynamics: q̈ = M⁻¹ (τ - C - B q̇), with M⁻¹ from its determinant
// a3 (a1 - a3) - a2² cos² φ, which is positive for every φ (docs/control.md).
// state [N,4], total torque [N,2] or [2] -> [N,2].
Var arm_acceleration(Var state, Var torque, const ArmParams& p, bool viscosity, Site site = Site::current());

// Forward kinematics, shoulder at the origin, θ from the x axis, φ from the upper arm:
//   hand = (l1 cos θ + l2 cos(θ + φ),  l1 sin θ + l2 sin(θ + φ));   state [N,4] -> [N,2] in metres
Var hand_position(Var state, const ArmParams& p, Site site = Site::current());

// Joint torques J(q)ᵀ F of a force F at the hand: state [N,4], force [N,2] or [2] -> [N,2].
Var hand_force_torque(Var state, Var force, const ArmParams& p, Site site = Site::current());

// Delayed feedback (thesis §6.3: 10 steps in the postural task, 7 in DDN): the controller sees the
// state of `delay` steps ago. Before the arm has taken that many steps it sees the initial state (the
// arm rested there). The buffer holds graph values, so gradients flow through the delayed path.
//   FeedbackDelay seen(o.feedback_delay, x0);
//   for (int t = 0; t < T; ++t) {
//     Var u = controller(seen.observed(), target);   // x_{t - delay}
//     x = arm_step(x, u, o);
//     seen.push(x);                                   // x_{t+1}
//   }
class FeedbackDelay {
 public:
  FeedbackDelay(int delay, Var initial_state);
  Var observed() const { return states_.front(); }
  void push(Var state);

 private:
  std::deque<Var> states_;  // x_{t-delay} ... x_t: delay + 1 states
};

}  // namespace tg::models
