#include "gradcheck/control_specs.h"

#include <cmath>
#include <span>

#include "models/arm_controller.h"
#include "models/reaching.h"
#include "ops/ops.h"

namespace tg::check {

const std::vector<ControlSpec>& control_specs() {
  static const std::vector<ControlSpec> rows = {
      {.name = "controller"},
      {.name = "controller/delay_noise", .hidden1 = 3, .hidden2 = 4, .feedback_delay = 1, .perturbed = true},
      {.name = "controller/postural", .hidden1 = 3, .hidden2 = 3, .steps = 4, .feedback_delay = 2, .postural = true},
  };
  return rows;
}

Report check_control(const ControlSpec& spec, const Options& opt) {
  ParamSet ps(DType::f64);
  Rng rng(5);
  models::ParamBuilder p(ps, "controller", models::init::InitOptions{}, rng);
  const models::ArmController controller(p, {.hidden1 = spec.hidden1, .hidden2 = spec.hidden2});
  models::ArmOptions plant{.feedback_delay = spec.feedback_delay};
  plant.dt = 0.05;
  if (spec.perturbed) {
    plant.command_noise = 0.2;
    plant.plant_noise = 0.01;
    plant.disturbance = {0.1, -0.2};
  }
  const int64_t N = spec.reaches;
  std::vector<Shape> shapes;
  for (int32_t i = 0; i < ps.count(); ++i) shapes.push_back(ps.shape(ParamId{i}));
  const size_t n_params = shapes.size();
  shapes.push_back({N, 4});  // start
  shapes.push_back({N, 4});  // target
  // Fixed, asymmetric draws: data, not inputs of the checked function.
  auto draws = [](int64_t rows, int64_t cols, double offset) {
    std::vector<double> v(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.7 * std::sin(1.3 * static_cast<double>(i) + offset);
    return Tensor::from({rows, cols}, v, DType::f64);
  };
  const Fn closed_loop = [&](Graph& g, std::span<const Var> in) {
    g.bind(ps, in.subspan(0, n_params));
    std::vector<models::ArmStepInputs> per_step;
    if (spec.postural)
      per_step.assign(static_cast<size_t>(spec.steps), {.hand_force = g.input(draws(N, 2, 3.0))});
    if (spec.perturbed) {
      const Var disturbance = g.input(draws(N, 2, 5.0));
      for (int64_t t = 0; t < spec.steps; ++t)
        per_step.push_back({.command_noise = g.input(draws(N, 2, static_cast<double>(t))),
                            .plant_noise = g.input(draws(N, 4, 2.0 + static_cast<double>(t))),
                            .disturbance = disturbance,
                            .hand_force = {}});
    }
    const Var start = in[n_params], target = in[n_params + 1];
    const models::Rollout r = models::rollout(g, controller, plant, start, target, spec.steps, per_step);
    const models::ReachCost cost{.steps = spec.steps, .alpha = 0.3, .every_step = spec.postural};
    return std::vector<Var>{models::reaching_loss(r, target, cost), r.states.back(), r.torques.front(),
                            r.torques.back()};
  };
  return check_fn(closed_loop, random_inputs(shapes, -0.9, 0.9, 17), opt);
}

}  // namespace tg::check
