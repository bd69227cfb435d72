// A training step of a model from the zoo (models/ registry) on random symbols: the workload the
// side-by-side comparison with PyTorch (scripts/bench_vs_torch.py) runs on both sides. Besides the
// step and Gauss-Newton product times it times the step's matrix products alone (bench/gemm_work.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/gemm_work.h"
#include "bench/lstm_lm.h"

namespace tg::bench {

struct ZooStepConfig {
  std::string model = "lstm";  // any registered model with symbolic inputs and softmax outputs
  int64_t vocab = 96, hidden = 256, batch = 32, steps = 100;
  uint64_t seed = 1;
  int reps = 7;
  int threads = 1;  // OpenBLAS threads
};

struct ZooStepResult {
  ZooStepConfig cfg;
  std::string machine;
  int threads = 0;
  int64_t params = 0;
  Timing step;  // forward + gradient (build, evaluate, reverse sweep), a training step minus the update
  Timing gnvp;  // one Gauss-Newton product on a cached linearization
  Timing gemm;  // the step's matrix products, run alone through cblas (same shapes, same counts)
  std::vector<GemmShape> shapes;
  double step_gflop = 0;  // matrix-product work of one step
  double achieved_gflops() const { return step_gflop / (step.median_ms * 1e-3); }
  double gemm_gflops() const { return step_gflop / (gemm.median_ms * 1e-3); }
};

ZooStepResult run_zoo_step(const ZooStepConfig& cfg);
nlohmann::json to_json(const ZooStepResult& r);
std::string to_table(const ZooStepResult& r);

}  // namespace tg::bench
