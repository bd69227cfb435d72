#include "models/arm_plant.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "ops/ops.h"

namespace tg::models {

ArmInertia arm_inertia(const ArmParams& p) {
  const double a3 = p.i2 + p.m2 * p.s2 * p.s2;  // the forearm about the elbow
  return {.a1 = p.i1 + p.m1 * p.s1 * p.s1 + a3 + p.m2 * p.l1 * p.l1, .a2 = p.m2 * p.l1 * p.s2, .a3 = a3};
}

namespace {

// Column k of x [N,K] as [N,1].
Var col(Var x, int64_t k, Site s) { return ops::slice(x, 1, k, k + 1, s); }

void expect_state(Var state, const char* fn, Site s) {
  const Shape sh = state.shape();
  if (sh.rank() != 2 || sh[1] != 4)
    throw ShapeError(fmt::format("{}: state must be [N,4] (θ, φ, θ̇, φ̇), got {} at {}", fn, sh.str(), s.str()));
}

void expect_pair(Var x, Var state, const char* fn, const char* what, Site s) {
  const Shape sh = x.shape();
  const bool row = sh.rank() == 1 && sh[0] == 2;
  const bool rows = sh.rank() == 2 && sh[0] == state.shape()[0] && sh[1] == 2;
  if (!row && !rows)
    throw ShapeError(fmt::format("{}: {} must be [N,2] or [2] with N = {}, got {} at {}", fn, what,
                                 state.shape()[0], sh.str(), s.str()));
}

// A [2] constant in x's dtype, or an empty Var (a symbolic zero) when both entries are 0.
Var pair_constant(Var like, const std::array<double, 2>& v, Site s) {
  if (v[0] == 0 && v[1] == 0) return {};
  return ops::constant(*like.graph(), Tensor::from({2}, std::vector<double>{v[0], v[1]}, like.dtype()), s);
}

}  // namespace

Var arm_acceleration(Var state, Var torque, const ArmParams& p, bool viscosity, Site s) {
  expect_state(state, "arm_acceleration", s);
  expect_pair(torque, state, "arm_acceleration", "torque", s);
  const ArmInertia k = arm_inertia(p);
  const Var phi = col(state, 1, s), theta_dot = col(state, 2, s), phi_dot = col(state, 3, s);
  const Var c = ops::cos(phi, s);
  const Var h = ops::scale(ops::sin(phi, s), k.a2, s);  // a2 sin φ
  // r = τ - C - B q̇, one column per joint
  const Var tau = ops::broadcast_to(torque, Shape{state.shape()[0], 2}, s);
  const Var minus_c1 = ops::mul(h, ops::mul(phi_dot, ops::add(ops::scale(theta_dot, 2, s), phi_dot, s), s), s);
  Var r1 = ops::add(col(tau, 0, s), minus_c1, s);  // -C1 = a2 sin φ φ̇ (2θ̇ + φ̇)
  Var r2 = ops::sub(col(tau, 1, s), ops::mul(h, ops::square(theta_dot, s), s), s);  // C2 = a2 sin φ θ̇²
  if (viscosity) {
    r1 = ops::sub(r1, ops::add(ops::scale(theta_dot, p.b11, s), ops::scale(phi_dot, p.b12, s), s), s);
    r2 = ops::sub(r2, ops::add(ops::scale(theta_dot, p.b21, s), ops::scale(phi_dot, p.b22, s), s), s);
  }
  // M⁻¹ = [m22, -m12; -m12, m11] / det, det = a3 (a1 - a3) - a2² cos² φ written without cancellation
  const Var m11 = ops::add_scalar(ops::scale(c, 2 * k.a2, s), k.a1, s);
  const Var m12 = ops::add_scalar(ops::scale(c, k.a2, s), k.a3, s);
  const Var det = ops::add_scalar(ops::scale(ops::square(c, s), -k.a2 * k.a2, s), k.a3 * (k.a1 - k.a3), s);
  const Var q1 = ops::div(ops::sub(ops::scale(r1, k.a3, s), ops::mul(m12, r2, s), s), det, s);
  const Var q2 = ops::div(ops::sub(ops::mul(m11, r2, s), ops::mul(m12, r1, s), s), det, s);
  const Var cols[] = {q1, q2};
  return ops::concat(cols, 1, s);
}

Var hand_position(Var state, const ArmParams& p, Site s) {
  expect_state(state, "hand_position", s);
  const Var theta = col(state, 0, s);
  const Var both = ops::add(theta, col(state, 1, s), s);  // θ + φ: the forearm's angle
  const Var x = ops::add(ops::scale(ops::cos(theta, s), p.l1, s), ops::scale(ops::cos(both, s), p.l2, s), s);
  const Var y = ops::add(ops::scale(ops::sin(theta, s), p.l1, s), ops::scale(ops::sin(both, s), p.l2, s), s);
  const Var cols[] = {x, y};
  return ops::concat(cols, 1, s);
}

Var hand_force_torque(Var state, Var force, const ArmParams& p, Site s) {
  expect_state(state, "hand_force_torque", s);
  expect_pair(force, state, "hand_force_torque", "force", s);
  const Var theta = col(state, 0, s);
  const Var both = ops::add(theta, col(state, 1, s), s);
  const Var f = ops::broadcast_to(force, Shape{state.shape()[0], 2}, s);
  const Var fx = col(f, 0, s), fy = col(f, 1, s);
  // J = [-l1 sin θ - l2 sin(θ+φ), -l2 sin(θ+φ);  l1 cos θ + l2 cos(θ+φ), l2 cos(θ+φ)]
  const Var s2 = ops::scale(ops::sin(both, s), p.l2, s), c2 = ops::scale(ops::cos(both, s), p.l2, s);
  const Var s1 = ops::scale(ops::sin(theta, s), p.l1, s), c1 = ops::scale(ops::cos(theta, s), p.l1, s);
  const Var elbow = ops::sub(ops::mul(c2, fy, s), ops::mul(s2, fx, s), s);
  const Var shoulder = ops::add(elbow, ops::sub(ops::mul(c1, fy, s), ops::mul(s1, fx, s), s), s);
  const Var cols[] = {shoulder, elbow};
  return ops::concat(cols, 1, s);
}

Var arm_step(Var state, Var torque, const ArmOptions& o, const ArmStepInputs& in, Site s) {
  expect_state(state, "arm_step", s);
  expect_pair(torque, state, "arm_step", "torque", s);
  Var tau = torque;
  if (o.command_noise > 0) {
    if (in.command_noise.empty())
      throw Error(
          fmt::format("arm_step: command_noise = {} needs the draws ε_u [N,2] at {}", o.command_noise, s.str()));
    expect_pair(in.command_noise, state, "arm_step", "command_noise draws", s);
    tau = ops::mul(tau, ops::add_scalar(ops::scale(in.command_noise, o.command_noise, s), 1.0, s), s);
  }
  for (Var d : {pair_constant(state, o.disturbance, s), in.disturbance}) {
    if (d.empty()) continue;
    expect_pair(d, state, "arm_step", "disturbance", s);
    tau = ops::add(tau, d, s);
  }
  Var force = pair_constant(state, o.hand_force, s);
  if (!in.hand_force.empty()) {
    expect_pair(in.hand_force, state, "arm_step", "hand_force", s);
    force = force.empty() ? in.hand_force : ops::add(force, in.hand_force, s);
  }
  if (!force.empty()) tau = ops::add(tau, hand_force_torque(state, force, o.arm, s), s);
  const Var rates[] = {ops::slice(state, 1, 2, 4, s), arm_acceleration(state, tau, o.arm, o.viscosity, s)};
  Var next = ops::add(state, ops::scale(ops::concat(rates, 1, s), o.dt, s), s);
  if (o.plant_noise > 0) {
    if (in.plant_noise.empty())
      throw Error(fmt::format("arm_step: plant_noise = {} needs the draws ε_f [N,4] at {}", o.plant_noise, s.str()));
    const Shape sh = in.plant_noise.shape();
    if (sh != state.shape() && sh != Shape{4})
      throw ShapeError(
          fmt::format("arm_step: plant_noise draws must be [N,4] or [4], got {} at {}", sh.str(), s.str()));
    next = ops::add(next, ops::scale(in.plant_noise, o.plant_noise, s), s);
  }
  return next;
}

FeedbackDelay::FeedbackDelay(int delay, Var initial_state) {
  if (delay < 0) throw Error(fmt::format("FeedbackDelay: delay must be >= 0 (got {})", delay));
  states_.assign(static_cast<size_t>(delay) + 1, initial_state);
}

void FeedbackDelay::push(Var state) {
  states_.push_back(state);
  states_.pop_front();
}

}  // namespace tg::models
