// The recurrent controller of Sutskever's thesis Ch. 6 (§6.4, §6.5; digest 000 §1.7) and its
// closed-loop rollout through the arm plant (models/arm_plant.h), all as one graph of ops:
//   v_t  = [x_{t-τ}; x*]                                   (delayed arm state, target: 8 inputs)
//   h1_t = tanh(v_t W_1v + h1_{t-1} W_11 + b_1)            (layer 1, recurrent within itself)
//   h2_t = tanh(h1_t W_21 + v_t W_2v + h2_{t-1} W_22 + b_2) (layer 2, with skip connections from v)
//   u_t  = h2_t W_u2 + b_u                                 (2 linear outputs: shoulder, elbow torque)
//   x_{t+1} = arm_step(x_t, u_t)
// The outputs are linear as §6.4 says (the formal one-layer statement's tanh is the digest's noted
// inconsistency). The hidden states start at zero (the thesis is silent; docs/control.md).
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "models/arm_plant.h"
#include "models/param_builder.h"

namespace tg::models {

struct ArmControllerOptions {
  int64_t hidden1 = 100;  // tanh units of layer 1
  int64_t hidden2 = 100;  // tanh units of layer 2
};

class ArmController {
 public:
  static constexpr int64_t kInputs = 8;   // (θ, φ, θ̇, φ̇) seen + (θ*, φ*, θ̇*, φ̇*)
  static constexpr int64_t kOutputs = 2;  // torques

  struct State {
    Var h1, h2;
  };
  struct Step {
    Var torque;           // u_t [N,2]
    State state;          // h1_t, h2_t
    Var preact1, preact2; // the tanh pre-activations (structural damping's block)
  };

  // Parameters under p's scope: W_1v, W_11, b_1, W_21, W_2v, W_22, b_2, W_u2, b_u.
  ArmController(ParamBuilder& p, const ArmControllerOptions& o = {});

  State initial_state(Graph& g, int64_t batch, DType dt) const;  // zeros
  // observed [N,4], target [N,4] -> one control step.
  Step step(Graph& g, Var observed, Var target, const State& s) const;

  const ArmControllerOptions& options() const { return opt_; }
  DType dtype() const { return dtype_; }  // the parameter set's

 private:
  ArmControllerOptions opt_;
  DType dtype_;
  ParamId w_1v_, w_11_, b_1_, w_21_, w_2v_, w_22_, b_2_, w_u2_, b_u_;
};

// A closed-loop trajectory: x_0 .. x_T, u_0 .. u_{T-1} and both layers' pre-activations per step.
struct Rollout {
  std::vector<Var> states;   // T + 1 states [N,4]
  std::vector<Var> torques;  // T commands [N,2]
  std::vector<Var> preacts;  // 2T pre-activations (layer 1, layer 2 at each step)
};

// T steps of controller and plant for N reaches from `start` [N,4] towards `target` [N,4]. The
// controller sees the state through FeedbackDelay(plant.feedback_delay). `per_step`, empty or of size
// T, carries step t's noise draws and disturbances (drawn by the caller, so runs are deterministic).
Rollout rollout(Graph& g, const ArmController& controller, const ArmOptions& plant, Var start, Var target,
                int64_t steps, const std::vector<ArmStepInputs>& per_step = {}, Site site = Site::current());

// The zoo's entry (`tapegrad train --model controller --task center_out|postural|ddn`): its options
// with their defaults (hidden1, hidden2 and the shared init options), and a controller built from
// resolved options in a fresh parameter set.
struct ControllerBuild {
  ParamSet params;
  ArmController controller;
};
const nlohmann::json& controller_defaults();
nlohmann::json resolve_controller_options(const nlohmann::json& user);  // unknown keys are an error
ControllerBuild make_controller(const nlohmann::json& resolved, DType dt, Rng& rng);
constexpr const char* kControllerDescription =
    "arm controller: 2 recurrent tanh layers (skip connections), linear torques, trained through the arm plant";

}  // namespace tg::models
