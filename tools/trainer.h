// Training runs: a model, a task and an optimizer built from a RunConfig, the training loop with
// validation, metrics (DIR/metrics.jsonl), atomic checkpoints (DIR/checkpoint.npz) and exact resume.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/objective.h"
#include "optim/communicator.h"
#include "tasks/task.h"
#include "tools/run_config.h"

namespace tg::cli {

// One iteration of some optimizer: draws its own data from the task with `rng`, updates θ, and
// returns the metrics to log. Its state must round-trip through save/restore for exact resume.
class TrainStep {
 public:
  virtual ~TrainStep() = default;
  virtual nlohmann::json step(optim::Objective& obj, ParamVec& theta, const tasks::Task& task, Rng& rng,
                              int64_t iteration) = 0;
  virtual nlohmann::json scalars() const = 0;                           // small state (λ, counters)
  virtual std::vector<std::pair<std::string, ParamVec>> vectors() const = 0;  // vector state
  virtual void restore(const nlohmann::json& scalars, const std::vector<std::pair<std::string, ParamVec>>& vectors) = 0;
};

std::unique_ptr<TrainStep> make_train_step(const RunConfig& cfg, const ParamSet& layout);

// A model and its tasks, built from a config: the model's input/output sizes come from the task.
struct RunSetup {
  RunConfig cfg;
  std::unique_ptr<tasks::Task> train, valid, test;  // valid / test: the held-out parts, where the task has them
  std::unique_ptr<models::ModelObjective> objective;
};
RunSetup make_run(RunConfig cfg);

struct EvalResult {
  double loss = 0;        // mean loss per target (nats for softmax)
  double error_rate = 0;  // the task's own measure (bits per character for text)
  int64_t sequences = 0;
};
// Evaluates θ on `task`: its fixed sequences (up to max_sequences), or max_sequences fresh ones drawn
// with a generator seeded by `seed` (the same every time: a fixed validation set). With a parallel
// communicator, every rank scores its shard of each chunk and all get the combined result.
EvalResult evaluate(models::ModelObjective& obj, const ParamVec& theta, const tasks::Task& task,
                    int64_t max_sequences, uint64_t seed, optim::Communicator* comm = nullptr);

struct TrainOptions {
  std::string out_dir;
  bool resume = false;
  bool quiet = false;
};
// Returns the process exit code: 0 done, 130 / 143 interrupted by SIGINT / SIGTERM (checkpoint saved).
int train(RunConfig cfg, const TrainOptions& opt);

// Checkpoint I/O (DIR/checkpoint.npz): parameters (one array per name, plus the flat vector),
// optimizer state, RNG state, iteration and the config.
struct Checkpoint {
  int64_t iteration = 0;
  double seconds = 0;      // training time so far (wall clock)
  double cpu_seconds = 0;  // training CPU time so far (this process; rank 0 under MPI)
  ParamVec theta;
  std::string rng_state;
  nlohmann::json optimizer_scalars;
  std::vector<std::pair<std::string, ParamVec>> optimizer_vectors;
  nlohmann::json config;
};
void save_checkpoint(const std::string& path, const Checkpoint& c, const ParamSet& layout);
Checkpoint load_checkpoint(const std::string& path, const ParamSet& layout);

}  // namespace tg::cli
