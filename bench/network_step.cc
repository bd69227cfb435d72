#include "bench/network_step.h"

#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "models/network.h"
#include "models/network_objective.h"
#include "ops/blas.h"
#include "tasks/images.h"
#include "tasks/random.h"

namespace tg::bench {

namespace {

// The network's options: sizes from the layer spec, everything else the registry's defaults.
nlohmann::json network_options(const NetworkStepConfig& c) {
  const std::vector<int64_t> sizes = models::read_layer_sizes(c.layers, "bench --network " + c.network);
  if (c.network == "autoencoder")
    return {{"in", sizes.front()}, {"out", sizes.front()}, {"encoder", c.layers}};
  if (c.network == "mlp") {
    if (sizes.size() < 3) throw Error(fmt::format("bench --network mlp: layers {} need inputs, hidden sizes and classes", c.layers));
    return {{"in", sizes.front()}, {"out", sizes.back()},
            {"hidden", std::vector<int64_t>(sizes.begin() + 1, sizes.end() - 1)}};
  }
  throw Error(fmt::format("bench: unknown network '{}' (autoencoder, mlp)", c.network));
}

// N random images with pixels uniform in [0, 1]: the autoencoder's targets are its inputs (the same
// buffer, as tasks::ImageSet gives them), the MLP's are uniform random labels.
tasks::Images random_images(const NetworkStepConfig& c, const models::Network& net) {
  Rng rng(c.seed + 1000);
  tasks::Images b;
  b.inputs = Tensor::empty({c.batch, net.input_size()}, DType::f32);
  float* x = b.inputs.data<float>();
  for (int64_t i = 0; i < b.inputs.size(); ++i) x[i] = static_cast<float>(tasks::uniform01(rng));
  if (net.output_kind() == tasks::OutputKind::softmax) {
    std::vector<int32_t> labels(static_cast<size_t>(c.batch));
    for (int32_t& l : labels) l = static_cast<int32_t>(rng() % static_cast<uint64_t>(net.output_size()));
    b.labels = ops::make_index(std::move(labels));
  } else {
    b.targets = b.inputs;
  }
  return b;
}

}  // namespace

NetworkStepResult run_network_step(const NetworkStepConfig& cfg) {
  NetworkStepResult r;
  r.cfg = cfg;
  blas::set_threads(cfg.threads);
  r.threads = blas::threads();
  r.gemm_clock_sums_threads = false;  // the BLAS's own threads: each gemm timed once
  r.machine = machine_line();

  const models::NetworkInfo* info = models::find_network(cfg.network);
  if (!info) throw Error(fmt::format("bench: unknown network '{}' (autoencoder, mlp)", cfg.network));
  Rng rng(cfg.seed);
  models::NetworkObjective obj(info->make(models::resolve(*info, network_options(cfg)), DType::f32, rng));
  const models::Network& net = obj.network();
  r.sizes = {net.input_size()};
  for (const models::Network::Layer& l : net.layers()) r.sizes.push_back(l.out);
  const ParamVec theta = obj.params().values();
  r.params = theta.size();
  const tasks::Images batch = random_images(cfg, net);

  time_step(obj, theta, batch, cfg.reps, r, &r.forward);
  return r;
}

nlohmann::json to_json(const NetworkStepResult& r) {
  nlohmann::json j = to_json(static_cast<const StepTimings&>(r), r.cfg.reps);
  j["network"] = r.cfg.network;
  j["config"] = {{"layers", r.cfg.layers}, {"sizes", r.sizes}, {"B", r.cfg.batch}, {"dtype", "float32"}};
  j["forward_ms"] = r.forward.median_ms;
  j["forward_samples_ms"] = r.forward.samples_ms;
  return j;
}

std::string to_table(const NetworkStepResult& r) {
  const NetworkStepConfig& c = r.cfg;
  const bool ae = c.network == "autoencoder";
  std::string s = fmt::format("tapegrad training step: {} {} ({}), B={} float32, {} parameters\n", c.network,
                              fmt::join(r.sizes, "-"), ae ? "logistic units, linear code, BCE on the inputs"
                                                          : "tanh units, softmax cross-entropy on random labels",
                              c.batch, r.params);
  s += fmt::format("machine: {}   BLAS threads: {}   reps: {} rounds, passes side by side\n\n", r.machine, r.threads,
                   c.reps);
  s += fmt::format("{:<44}{:>11}{:>9}\n", "pass (ms)", "median", "min");
  s += timing_row("forward (loss only)", r.forward);
  s += timing_row("step (forward + gradient, no update)", r.step);
  s += step_summary_rows(r);
  return s;
}

}  // namespace tg::bench
