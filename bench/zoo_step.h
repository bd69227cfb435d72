// A training step of a model from the zoo (models/ registry) on random symbols: the workload the
// side-by-side comparison with PyTorch (scripts/bench_vs_torch.py) runs on both sides. Besides the
// step and Gauss-Newton product times it times the step's matrix products alone (bench/gemm_work.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/step_timings.h"

namespace tg::bench {

struct ZooStepConfig {
  std::string model = "lstm";  // any registered model with symbolic inputs and softmax outputs
  int64_t vocab = 96, hidden = 256, batch = 32, steps = 100;
  uint64_t seed = 1;
  int reps = 7;
  int threads = 1;  // OpenBLAS threads
};

struct ZooStepResult : StepTimings {
  ZooStepConfig cfg;
};

ZooStepResult run_zoo_step(const ZooStepConfig& cfg);
nlohmann::json to_json(const ZooStepResult& r);
std::string to_table(const ZooStepResult& r);

}  // namespace tg::bench
