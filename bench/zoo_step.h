// A training step of a model from the zoo (models/ registry) on random symbols, or with `ctc` a deep
// bidirectional net's CTC step on random frames and label sequences (the speech workload): the
// workloads the side-by-side comparison with PyTorch (scripts/bench_vs_torch.py) runs on both sides. Besides the
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
  // ctc: dense inputs of `in` features, `depth` layers of `hidden` units (per direction), `vocab`
  // classes with the blank last, label sequences of steps / 10 labels (the corpus's phones per frame)
  bool ctc = false;
  int64_t in = 39, depth = 3;
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
