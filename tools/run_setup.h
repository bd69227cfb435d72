// A training run's pieces built from its RunConfig: the task (and its held-out parts), the model as an
// objective, and every option resolved; and the scoring of parameters on a task.
#pragma once
#include <cstdint>
#include <memory>

#include "core/confidence.h"
#include "models/network_objective.h"
#include "models/objective.h"
#include "optim/communicator.h"
#include "tasks/task.h"
#include "tools/run_config.h"

namespace tg::cli {

// A model and its data, built from a config: the model's input/output sizes come from the data. The
// model is a sequence model (models/model.h) on a sequence task, or a feedforward network
// (models/network.h) on an image set; the trainer and the optimizers see only the Objective.
struct RunSetup {
  RunConfig cfg;  // every option resolved (what config.json records)
  std::unique_ptr<tasks::Dataset> train, valid, test;  // valid / test: the held-out parts, where the data has them
  std::unique_ptr<optim::Objective> objective;
  models::ModelObjective* sequence = nullptr;    // *objective, when the model is a sequence model
  models::NetworkObjective* network = nullptr;   // *objective, when the model is a feedforward network
  // The sequence model's objective, for what only sequence models do (sampling, Ollivier's methods);
  // for a network, a tg::Error saying `who` needs a sequence model.
  models::ModelObjective& sequence_objective(const std::string& who) const;
};
RunSetup make_run(RunConfig cfg);

// A run saved by an older build lacks the options added since; they take their defaults, which leave
// the run's meaning unchanged, so they are filled in before comparing (else every new option would
// make old runs impossible to resume).
RunConfig with_current_defaults(RunConfig c);
// A run saved before `threads` and `gemm` were recorded ran on one thread with OpenBLAS: unset (0 / "")
// in a saved config means that, not today's defaults.
RunConfig as_recorded_before_options(RunConfig c);

// Mixed into evaluate()'s seed, so a validation set never shares its generator's state with the training
// stream seeded by the run's seed; eval --seed S undoes it to score what `tasks --dump --seed S` writes.
constexpr uint64_t kEvaluateSeedMix = 0x9e3779b97f4a7c15ULL;

struct EvalResult {
  double loss = 0;        // mean loss per target (nats for softmax; per pixel for an autoencoder), without
                          // the objective's regularizer terms (Ω, stability penalties: Evaluation::task_value)
  double error_rate = 0;  // the data set's own measure (bits per character for text, squared error per image, ...)
  int64_t sequences = 0;  // cases scored (sequences, images)
  Interval interval{};    // 95% interval of error_rate: Wilson's for a fraction of wrong sequences,
                          // batch means over chunks of 500 sequences for other measures
};
// Evaluates θ on `data`: its fixed cases (up to max_sequences), or max_sequences fresh ones drawn
// with a generator seeded by `seed ^ kEvaluateSeedMix` (the same every time: a fixed validation set). With a parallel
// communicator, every rank scores its shard of each chunk and all get the combined result.
EvalResult evaluate(optim::Objective& obj, const ParamVec& theta, const tasks::Dataset& data, int64_t max_sequences,
                    uint64_t seed, optim::Communicator* comm = nullptr);

}  // namespace tg::cli
