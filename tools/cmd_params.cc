// tapegrad params --model M [--set key=value ...] [--config file.json]: the model's options, one
// line per parameter (name, shape, count), and the total parameter count as the last line.
#include <fmt/format.h>

#include "models/model.h"
#include "tools/commands.h"
#include "tools/model_args.h"

namespace tg::cli {

Run add_params(CLI::App& app) {
  auto args = std::make_shared<ModelArgs>();
  add_model_args(app, *args);
  return [args] {
    const models::ModelInfo& info = models::find(args->model);
    const nlohmann::json cfg = models::resolve(info, user_options(*args));
    Rng rng(1);
    std::unique_ptr<models::Model> m = info.make(cfg, DType::f32, rng);
    const ParamSet& ps = m->params();
    fmt::print("model {} (seed {}): {}\n", info.name, info.seed, cfg.dump());
    fmt::print("{:<28} {:<14} {:>12}\n", "parameter", "shape", "count");
    for (const ParamLayout::Entry& e : ps.layout()->entries)
      fmt::print("{:<28} {:<14} {:>12}\n", e.name, e.shape.str(), e.shape.size());
    fmt::print("{:<28} {:<14} {:>12}\n", "total", "", ps.numel());
    fmt::print("{}\n", ps.numel());
    return 0;
  };
}

}  // namespace tg::cli
