#include "models/arm_controller.h"

#include <array>

#include <fmt/format.h>

#include "core/error.h"
#include "core/options.h"
#include "ops/ops.h"

namespace tg::models {

ArmController::ArmController(ParamBuilder& p, const ArmControllerOptions& o) : opt_(o), dtype_(p.dtype()) {
  if (o.hidden1 < 1 || o.hidden2 < 1)
    throw Error(fmt::format("arm controller: hidden sizes must be >= 1 (got {}, {})", o.hidden1, o.hidden2));
  w_1v_ = p.input("W_1v", kInputs, o.hidden1);
  w_11_ = p.recurrent("W_11", o.hidden1, o.hidden1);
  b_1_ = p.add("b_1", {o.hidden1}, init::zeros());
  w_21_ = p.weight("W_21", o.hidden1, o.hidden2);
  w_2v_ = p.input("W_2v", kInputs, o.hidden2);
  w_22_ = p.recurrent("W_22", o.hidden2, o.hidden2);
  b_2_ = p.add("b_2", {o.hidden2}, init::zeros());
  w_u2_ = p.output("W_u2", o.hidden2, kOutputs);
  b_u_ = p.add("b_u", {kOutputs}, init::zeros());
}

ArmController::State ArmController::initial_state(Graph& g, int64_t batch, DType dt) const {
  return {ops::fill(g, {batch, opt_.hidden1}, 0.0, dt), ops::fill(g, {batch, opt_.hidden2}, 0.0, dt)};
}

ArmController::Step ArmController::step(Graph& g, Var observed, Var target, const State& s) const {
  const std::array<Var, 2> parts{observed, target};
  Var v = ops::concat(parts, 1);
  Var u1 = ops::matmul(v, g[w_1v_]) + ops::matmul(s.h1, g[w_11_]) + g[b_1_];
  Var h1 = ops::tanh(u1);
  Var u2 = ops::matmul(h1, g[w_21_]) + ops::matmul(v, g[w_2v_]) + ops::matmul(s.h2, g[w_22_]) + g[b_2_];
  Var h2 = ops::tanh(u2);
  return {.torque = ops::matmul(h2, g[w_u2_]) + g[b_u_], .state = {h1, h2}, .preact1 = u1, .preact2 = u2};
}

const nlohmann::json& controller_defaults() {
  // The thesis gives no initialisation for this network (docs/control.md); output_scale 0.1 starts the
  // torques small, so the first rollouts do not spin the arm.
  static const nlohmann::json d = [] {
    nlohmann::json j = init::init_defaults(/*recurrent=*/true, 0.1);
    j["hidden1"] = 100;
    j["hidden2"] = 100;
    j["output_scale"] = 0.1;
    return j;
  }();
  return d;
}

nlohmann::json resolve_controller_options(const nlohmann::json& user) {
  return merge_options("model 'controller'", controller_defaults(), user);
}

ControllerBuild make_controller(const nlohmann::json& resolved, DType dt, Rng& rng) {
  const OptionReader o("model 'controller'", resolved);
  ParamSet ps(dt);
  ParamBuilder p(ps, "controller", init::InitOptions::read(o), rng);
  ArmController c(p, {.hidden1 = o.size("hidden1"), .hidden2 = o.size("hidden2")});
  return {std::move(ps), c};
}

Rollout rollout(Graph& g, const ArmController& controller, const ArmOptions& plant, Var start, Var target,
                int64_t steps, const std::vector<ArmStepInputs>& per_step, Site site) {
  if (steps < 1) throw Error(fmt::format("arm rollout: steps must be >= 1 (got {}) at {}", steps, site.str()));
  if (!per_step.empty() && static_cast<int64_t>(per_step.size()) != steps)
    throw Error(fmt::format("arm rollout: per_step has {} entries, expected 0 or {} at {}", per_step.size(), steps,
                            site.str()));
  const Shape s = start.shape();
  if (s.rank() != 2 || s[1] != 4 || !(target.shape() == s))
    throw Error(fmt::format("arm rollout: start and target must both be [N,4] (got {} and {}) at {}", s.str(),
                            target.shape().str(), site.str()));
  Rollout r;
  r.states.push_back(start);
  FeedbackDelay seen(plant.feedback_delay, start);
  ArmController::State h = controller.initial_state(g, s[0], start.value().dtype());
  for (int64_t t = 0; t < steps; ++t) {
    ArmController::Step c = controller.step(g, seen.observed(), target, h);
    h = c.state;
    Var x = arm_step(r.states.back(), c.torque, plant, per_step.empty() ? ArmStepInputs{} : per_step[t], site);
    seen.push(x);
    r.states.push_back(x);
    r.torques.push_back(c.torque);
    r.preacts.push_back(c.preact1);
    r.preacts.push_back(c.preact2);
  }
  return r;
}

}  // namespace tg::models
