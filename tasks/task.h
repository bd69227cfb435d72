// Tasks: seeded generators of training / test batches (the seeds' synthetic problems) and
// character-level text. A batch is time-major: T steps of B sequences, with per-step input masks
// (variable lengths) and per-step loss masks (targets only at chosen steps). docs/tasks.md lists
// every task with its rules, chance level and success criterion.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/params.h"
#include "tasks/batch.h"

namespace tg::tasks {

// What a model must look like to be trained on a task.
struct Signature {
  bool symbolic_input = false;  // inputs are symbols in [0, input_dim) (else dense vectors)
  int64_t input_dim = 0;
  OutputKind output = OutputKind::softmax;
  int64_t output_dim = 0;
  // Next-character tasks (text, Ollivier's): the UTF-8 character of each symbol, input and output
  // alike (for sampling and for reading dumps); empty for the other tasks.
  std::vector<std::string> alphabet;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual const std::string& name() const = 0;
  virtual Signature signature() const = 0;
  // B fresh sequences; deterministic given the RNG state.
  virtual Batch sample(int64_t batch, Rng& rng) const = 0;
  // The task's own error measure on model outputs (per-step logits / predictions, as from
  // Model::unroll, values read as float64): e.g. the fraction of sequences off by more than 0.04.
  virtual double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const = 0;
  virtual std::string success_criterion() const = 0;  // e.g. "< 1% of test sequences off by > 0.04"
  virtual double success_threshold() const = 0;       // error_rate below this counts as success
  // error_rate of a predictor that ignores the inputs (docs/tasks.md says which, per task); NaN if unknown.
  virtual double chance_level() const = 0;

  // Fixed data sets (a text split, a dump file) also hand out their sequences in order, for a full
  // evaluation pass. Generators have none: num_sequences() is 0 and sequences() throws tg::Error.
  virtual int64_t num_sequences() const { return 0; }
  virtual Batch sequences(int64_t first, int64_t count) const;
};

struct TaskInfo {
  std::string name;         // "addition", "temporal_order", ...
  std::string description;  // one line
  std::string seed;         // which seed document
  nlohmann::json defaults;  // every option with its default ("T": 100, ...)
  std::function<std::unique_ptr<Task>(const nlohmann::json& cfg)> make;  // cfg: resolved options
};

const std::vector<TaskInfo>& registry();
const TaskInfo& find(const std::string& name);  // throws tg::Error naming the known tasks
// User options merged over the defaults; an unknown key, or a value of the wrong JSON type, is a
// tg::Error naming the key and the task.
nlohmann::json resolve(const TaskInfo& info, const nlohmann::json& user);
std::unique_ptr<Task> make(const std::string& name, const nlohmann::json& options);  // resolve + info.make

// What a task's error_rate measures, by the task's name alone, so that a finished run's config.json is
// enough to label its plots and progress lines (no corpus to load). docs/tasks.md, "error measure".
struct Measure {
  std::string name;        // "error rate", "bits per character", "mean squared error", "regret (bits per line)"
  std::string short_name;  // "error", "bpc", "MSE", "regret": for a progress line
};
// A name that is not a registered task gets {"error measure", "error"}.
Measure measure(const std::string& task);

}  // namespace tg::tasks
