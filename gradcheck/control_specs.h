// Gradient-check rows for the closed-loop arm controller (models/arm_controller.h): the center-out
// loss, the final state and two torques of a short rollout through the plant, as functions of every
// controller parameter, the start and the target, in float64 at tiny sizes. `tapegrad gradcheck
// --models` runs them beside the zoo's sequence models and networks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace tg::check {

struct ControlSpec {
  std::string name;
  int64_t hidden1 = 3, hidden2 = 3, steps = 3, reaches = 2;
  int feedback_delay = 0;
  bool perturbed = false;  // command and plant noise (fixed draws) and a per-reach disturbance
  bool postural = false;   // the postural task's cost (every step) and a per-reach force at the hand
};

const std::vector<ControlSpec>& control_specs();

// check_fn on the row's rollout; the plant steps at Δt = 0.05 so that three steps move the arm.
Report check_control(const ControlSpec& spec, const Options& opt = {});

}  // namespace tg::check
