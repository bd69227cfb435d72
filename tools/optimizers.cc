#include "tools/optimizers.h"

#include <fmt/format.h>

#include "core/error.h"
#include "riemannian/optimizer.h"

namespace tg::cli {

std::vector<std::string> optimizer_names() {
  std::vector<std::string> names = optim::optimizer_names();
  names.push_back("riemannian");
  return names;
}

std::unique_ptr<optim::Optimizer> make_optimizer(const RunConfig& cfg, const RunSetup& run) {
  if (cfg.optimizer == "riemannian")
    return std::make_unique<riemannian::RiemannianOptimizer>(
        run.sequence_objective("optimizer 'riemannian'").model(), tasks::as_task(*run.train, "optimizer 'riemannian'"),
        riemannian::riemannian_options_from_json(cfg.optimizer_options));
  return optim::make_optimizer(cfg.optimizer, cfg.optimizer_options, {cfg.batch, cfg.curvature_batch});
}

nlohmann::json resolved_optimizer_options(const std::string& name, const nlohmann::json& options) {
  if (name == "riemannian") return riemannian::to_json(riemannian::riemannian_options_from_json(options));
  for (const std::string& n : optim::optimizer_names())
    if (n == name) return optim::resolved_options(name, options);
  std::string known;
  for (const std::string& n : optimizer_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(fmt::format("unknown optimizer '{}' (known: {})", name, known));
}

}  // namespace tg::cli
