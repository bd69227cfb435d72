// Gradient-check rows for the feedforward networks (models/network.h), like model_specs.h's for the
// sequence models: each row builds a network in float64 at tiny sizes with random parameters and checks
// its loss on a tiny batch of images (with dropout masks where the row has dropout) as a function of
// all parameters, with check_fn; and its Gauss-Newton product G v at the logits against Jᵀ H J v
// assembled independently: J v and Jᵀ u by central differences, H written out by hand per output kind.
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "gradcheck/gradcheck.h"
#include "models/network.h"
#include "tasks/images.h"

namespace tg::check {

struct NetworkSpec {
  std::string name;        // row label: the network's name, or "<network>/<variant>"
  std::string network;     // registry name (models::networks())
  nlohmann::json options;  // over the network's defaults: tiny sizes
  double lo = -0.5, hi = 0.5;  // parameters drawn uniform in [lo, hi]
};

const std::vector<NetworkSpec>& network_specs();

std::unique_ptr<models::Network> make_network(const NetworkSpec& spec, uint64_t seed = 1);
// B random images (inputs in [0, 1]) with the targets of the network's output kind, and a dropout
// mask for every layer that has dropout.
tasks::Images tiny_images(const models::Network& net, int64_t B = 3, uint64_t seed = 7);

Report check_network(const NetworkSpec& spec, const Options& opt = {});
// The largest |G v - Jᵀ H J v| over max |Jᵀ H J v| for a random v; ok when below 1e-6.
Report check_network_gauss_newton(const NetworkSpec& spec);

}  // namespace tg::check
