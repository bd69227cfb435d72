// Every training method by name, for the trainer: "riemannian" (Ollivier's methods, which need the
// model itself) and the ones optim/ makes from the objective alone (hf and the first-order family).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "optim/optimizer.h"
#include "tools/run_config.h"
#include "tools/run_setup.h"

namespace tg::cli {

// The method of cfg.optimizer on this run's model and data (the run must outlive it).
std::unique_ptr<optim::Optimizer> make_optimizer(const RunConfig& cfg, const RunSetup& run);
// Every option of the named method with its default filled in.
nlohmann::json resolved_optimizer_options(const std::string& name, const nlohmann::json& options);
std::vector<std::string> optimizer_names();

}  // namespace tg::cli
