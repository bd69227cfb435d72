// tapegrad params --model M [--set key=value ...] [--config file.json]: the model's options, one
// line per parameter (name, shape, count), and the total parameter count as the last line. Feedforward
// networks too (mlp, autoencoder), given their input size (and the MLP's output size).
#include <fmt/format.h>

#include "core/error.h"
#include "models/gating_pyramid.h"
#include "models/model.h"
#include "models/network.h"
#include "models/temporal_rbm.h"
#include "tools/commands.h"
#include "tools/model_args.h"

namespace tg::cli {
namespace {

void print_table(const ParamSet& ps) {
  fmt::print("{:<28} {:<14} {:>12}\n", "parameter", "shape", "count");
  for (const ParamLayout::Entry& e : ps.layout()->entries)
    fmt::print("{:<28} {:<14} {:>12}\n", e.name, e.shape.str(), e.shape.size());
  fmt::print("{:<28} {:<14} {:>12}\n", "total", "", ps.numel());
  fmt::print("{}\n", ps.numel());
}

// A feedforward network's sizes come from its data in train; here the user gives them ("in", and "out"
// for the MLP; an autoencoder's output is its input).
int print_network(const models::NetworkInfo& info, const ModelArgs& args) {
  nlohmann::json user = user_options(args);
  if (info.name == "autoencoder" && user.contains("in") && !user.contains("out")) user["out"] = user["in"];
  if (!user.contains("in") || (info.name != "autoencoder" && !user.contains("out")))
    throw Error(fmt::format("params: network '{}' takes its sizes from the data in train; give them here: --set in=784{}",
                            info.name, info.name == "autoencoder" ? "" : " --set out=10"));
  const nlohmann::json cfg = models::resolve(info, user);
  Rng rng(1);
  std::unique_ptr<models::Network> net = info.make(cfg, DType::f32, rng);
  fmt::print("network {} (seed {}): {}\n", info.name, info.seed, cfg.dump());
  print_table(net->params());
  return 0;
}

}  // namespace

Run add_params(CLI::App& app) {
  auto args = std::make_shared<ModelArgs>();
  add_model_args(app, *args);
  return [args] {
    if (const models::NetworkInfo* net = models::find_network(args->model)) return print_network(*net, *args);
    // the arm controller, the temporal RBMs and the gated models are made for a task (`models` lists them too)
    if (args->model == "controller" || models::is_temporal_rbm(args->model) || models::is_gating_pyramid(args->model) ||
        args->model == "pair_ae")
      throw Error(fmt::format("params: model '{0}' is built for its task, and params builds sequence models and "
                              "networks only; `tapegrad train --model {0} --task TASK --steps 0 --out DIR` builds it "
                              "(DIR/checkpoint.npz holds its param/* arrays)",
                              args->model));
    const models::ModelInfo& info = models::find(args->model);
    const nlohmann::json cfg = models::resolve(info, user_options(*args));
    Rng rng(1);
    std::unique_ptr<models::Model> m = info.make(cfg, DType::f32, rng);
    const ParamSet& ps = m->params();
    fmt::print("model {} (seed {}): {}\n", info.name, info.seed, cfg.dump());
    print_table(ps);
    return 0;
  };
}

}  // namespace tg::cli
