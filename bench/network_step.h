// A training step of a feedforward network (models/network.h: the autoencoder or the MLP) on random
// images, float32: the workload scripts/bench_vs_torch.py runs beside the same network in PyTorch.
// The step is forward + gradient of the loss, i.e. what a first-order optimizer's step costs minus
// the parameter update. Beside it: one Gauss-Newton product on a cached linearization, and the
// step's matrix products alone through cblas (bench/gemm_work.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/step_timings.h"

namespace tg::bench {

struct NetworkStepConfig {
  std::string network = "autoencoder";  // "autoencoder" or "mlp"
  // autoencoder: the encoder (the decoder mirrors it), logistic units, a linear code layer, logistic
  // outputs with binary cross-entropy against the inputs;
  // mlp: inputs-hidden...-classes, tanh units, softmax outputs with cross-entropy on random labels.
  std::string layers = "784-1000-500-250-30";
  int64_t batch = 200;
  uint64_t seed = 1;
  int reps = 7;
  int threads = 1;  // OpenBLAS threads
};

struct NetworkStepResult : StepTimings {
  NetworkStepConfig cfg;
  std::vector<int64_t> sizes;  // every layer's width, input first (the autoencoder: encoder + decoder)
  Timing forward;              // build + evaluate the loss: the step's first half
};

NetworkStepResult run_network_step(const NetworkStepConfig& cfg);
nlohmann::json to_json(const NetworkStepResult& r);
std::string to_table(const NetworkStepResult& r);

}  // namespace tg::bench
