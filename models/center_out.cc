#include "models/center_out.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "models/loss.h"
#include "ops/ops.h"

namespace tg::models {

std::array<double, 2> arm_inverse_kinematics(const ArmParams& p, double x, double y) {
  const double r2 = x * x + y * y;
  const double cos_phi = (r2 - p.l1 * p.l1 - p.l2 * p.l2) / (2 * p.l1 * p.l2);
  if (!(cos_phi >= -1 && cos_phi <= 1))
    throw Error(fmt::format("arm inverse kinematics: hand ({}, {}) is out of reach", x, y));
  const double phi = std::acos(cos_phi);
  const double theta = std::atan2(y, x) - std::atan2(p.l2 * std::sin(phi), p.l1 + p.l2 * cos_phi);
  return {theta, phi};
}

std::unique_ptr<tasks::Data> ReachBatch::slice(int64_t first, int64_t n) const {
  if (first < 0 || n < 0 || first + n > count) throw Error("reaches: slice out of range");
  auto b = std::make_unique<ReachBatch>();
  b->count = n;
  b->starts.assign(starts.begin() + first * 4, starts.begin() + (first + n) * 4);
  b->targets.assign(targets.begin() + first * 4, targets.begin() + (first + n) * 4);
  return b;
}

bool ReachBatch::same_as(const Data& other) const {
  const auto* o = dynamic_cast<const ReachBatch*>(&other);
  return o && o->count == count && o->starts == starts && o->targets == targets;
}

std::string ReachBatch::describe() const { return fmt::format("{} reaches", count); }

ReachBatch center_out_reaches(const CenterOutOptions& o) {
  if (o.reaches < 1 || o.steps < 1 || !(o.radius > 0) || !(o.alpha >= 0))
    throw Error(fmt::format("center-out: need reaches >= 1, steps >= 1, radius > 0, alpha >= 0 (got {}, {}, {}, {})",
                            o.reaches, o.steps, o.radius, o.alpha));
  const ArmParams& p = o.plant.arm;
  const double th = o.start_angles[0], ph = o.start_angles[1];
  const double hx = p.l1 * std::cos(th) + p.l2 * std::cos(th + ph), hy = p.l1 * std::sin(th) + p.l2 * std::sin(th + ph);
  ReachBatch b;
  b.count = o.reaches;
  for (int64_t k = 0; k < o.reaches; ++k) {
    const double a = 2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(o.reaches);
    const auto q = arm_inverse_kinematics(p, hx + o.radius * std::cos(a), hy + o.radius * std::sin(a));
    b.starts.insert(b.starts.end(), {th, ph, 0.0, 0.0});
    b.targets.insert(b.targets.end(), {q[0], q[1], 0.0, 0.0});
  }
  return b;
}

Var center_out_loss(const Rollout& r, Var target, double alpha) {
  const double n = static_cast<double>(target.shape()[0]);
  Var loss = ops::scale(ops::sum(ops::square(r.states.back() - target)), 0.5 / n);
  if (alpha > 0)
    for (const Var& u : r.torques) loss = loss + ops::scale(ops::sum(ops::square(u)), 0.5 * alpha / n);
  return loss;
}

optim::Built build_center_out(Graph& g, const ArmController& controller, const CenterOutOptions& o,
                              const ReachBatch& batch) {
  const DType dt = controller.dtype();
  Var target = g.input(batch.target_tensor(dt));
  Rollout r = rollout(g, controller, o.plant, g.input(batch.start_tensor(dt)), target, o.steps);
  Var loss = center_out_loss(r, target, o.alpha);
  std::vector<Var> at{r.states.back()};
  at.insert(at.end(), r.torques.begin(), r.torques.end());
  return optim::Built{
      .loss = loss,
      .curvature = ad::Block{.at = at, .head = loss},
      .structural = ad::Block{.at = r.preacts,
                              .head = structural_damping_head(g, "tanh", r.preacts, {}, 0,
                                                              1.0 / static_cast<double>(batch.count))},
      .fisher = std::nullopt,
      .outputs = r.torques};
}

std::unique_ptr<optim::GraphObjective> center_out_objective(ParamSet params, const ArmController& controller,
                                                            const CenterOutOptions& o) {
  check_arm(o.plant);
  return std::make_unique<optim::GraphObjective>(
      std::move(params),
      [controller, o](Graph& g, const ReachBatch& b) { return build_center_out(g, controller, o, b); });
}

}  // namespace tg::models
