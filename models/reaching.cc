#include "models/reaching.h"

#include <fmt/format.h>

#include "core/error.h"
#include "models/loss.h"
#include "ops/ops.h"

namespace tg::models {

std::vector<ArmStepInputs> step_inputs(Graph& g, const ReachBatch& b, int64_t steps, DType dt) {
  const bool noisy = !b.command_noise.empty() || !b.plant_noise.empty();
  if (!noisy && b.disturbance.empty() && b.hand_force.empty()) return {};
  if (noisy && b.steps != steps)
    throw Error(fmt::format("reaching: the batch's noise covers {} steps, the rollout has {}", b.steps, steps));
  const int64_t n = b.count;
  const auto size = static_cast<size_t>(n);
  Var force = b.hand_force.empty() ? Var{} : g.input(Tensor::from({n, 2}, b.hand_force, dt));
  std::vector<ArmStepInputs> in(static_cast<size_t>(steps));
  for (int64_t t = 0; t < steps; ++t) {
    ArmStepInputs& s = in[static_cast<size_t>(t)];
    s.hand_force = force;
    if (!b.disturbance.empty()) {  // d from the reach's onset on, 0 before
      std::vector<double> d(b.disturbance);
      for (size_t i = 0; i < size; ++i)
        if (!b.onset.empty() && t < b.onset[i]) d[2 * i] = d[2 * i + 1] = 0;
      s.disturbance = g.input(Tensor::from({n, 2}, d, dt));
    }
    auto block = [&](const std::vector<double>& v, int64_t k) {
      const auto first = v.begin() + t * n * k;
      return g.input(Tensor::from({n, k}, std::vector<double>(first, first + n * k), dt));
    };
    if (!b.command_noise.empty()) s.command_noise = block(b.command_noise, 2);
    if (!b.plant_noise.empty()) s.plant_noise = block(b.plant_noise, 4);
  }
  return in;
}

Var reaching_loss(const Rollout& r, Var target, const ReachCost& c) {
  const int64_t T = static_cast<int64_t>(r.torques.size());
  if (T != c.steps) throw Error(fmt::format("reaching loss: the rollout has {} steps, the cost {}", T, c.steps));
  const double n = static_cast<double>(target.shape()[0]);
  Var loss;
  auto add = [&](Var term) { loss = loss.empty() ? term : loss + term; };
  if (c.every_step) {  // the posture at every step, the velocities in the second half
    Var q_star = ops::slice(target, 1, 0, 2);
    for (int64_t t = 1; t <= T; ++t) {
      const Var& x = r.states[static_cast<size_t>(t)];
      add(ops::scale(ops::sum(ops::square(ops::slice(x, 1, 0, 2) - q_star)), 0.5 / n));
      if (2 * t > T) add(ops::scale(ops::sum(ops::square(ops::slice(x, 1, 2, 4))), 0.5 / n));
    }
  } else {
    add(ops::scale(ops::sum(ops::square(r.states.back() - target)), 0.5 / n));
  }
  if (c.alpha > 0)
    for (const Var& u : r.torques) add(ops::scale(ops::sum(ops::square(u)), 0.5 * c.alpha / n));
  return loss;
}

optim::Built build_reaching(Graph& g, const ArmController& controller, const ArmOptions& plant, const ReachCost& cost,
                            const ReachBatch& batch) {
  const DType dt = controller.dtype();
  Var target = g.input(batch.target_tensor(dt));
  Rollout r = rollout(g, controller, plant, g.input(batch.start_tensor(dt)), target, cost.steps,
                      step_inputs(g, batch, cost.steps, dt));
  Var loss = reaching_loss(r, target, cost);
  std::vector<Var> at;  // the nodes the cost squares
  if (cost.every_step) at.assign(r.states.begin() + 1, r.states.end());
  else at.push_back(r.states.back());
  at.insert(at.end(), r.torques.begin(), r.torques.end());
  std::vector<Var> outputs(r.states.begin() + 1, r.states.end());
  outputs.insert(outputs.end(), r.torques.begin(), r.torques.end());
  return optim::Built{
      .loss = loss,
      .curvature = ad::Block{.at = at, .head = loss},
      .structural = ad::Block{.at = r.preacts,
                              .head = structural_damping_head(g, "tanh", r.preacts, {}, 0,
                                                              1.0 / static_cast<double>(batch.count))},
      .fisher = std::nullopt,
      .outputs = outputs};
}

std::unique_ptr<optim::GraphObjective> reaching_objective(ParamSet params, const ArmController& controller,
                                                          const ArmOptions& plant, const ReachCost& cost) {
  check_arm(plant);
  return std::make_unique<optim::GraphObjective>(
      std::move(params), [controller, plant, cost](Graph& g, const ReachBatch& b) {
        return build_reaching(g, controller, plant, cost, b);
      });
}

}  // namespace tg::models
