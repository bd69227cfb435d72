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
#include "tasks/dataset.h"

namespace tg::tasks {

// A data set of sequences: the seeds' synthetic problems, text, task files.
class Task : public Dataset {
 public:
  // B fresh sequences; deterministic given the RNG state.
  virtual Batch sample(int64_t batch, Rng& rng) const = 0;
  // The task's own error measure on model outputs (per-step logits / predictions, as from
  // Model::unroll, values read as float64): e.g. the fraction of sequences off by more than 0.04.
  virtual double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const = 0;

  // Fixed data sets (a text split, a dump file) also hand out their sequences in order, for a full
  // evaluation pass. Generators have none: num_sequences() is 0 and sequences() throws tg::Error.
  virtual int64_t num_sequences() const { return 0; }
  virtual Batch sequences(int64_t first, int64_t count) const;

  // The Dataset interface, in terms of the above.
  std::unique_ptr<Data> draw(int64_t count, Rng& rng) const final { return std::make_unique<Batch>(sample(count, rng)); }
  int64_t num_cases() const final { return num_sequences(); }
  std::unique_ptr<Data> cases(int64_t first, int64_t count) const final {
    return std::make_unique<Batch>(sequences(first, count));
  }
  double score(const Data& d, const std::vector<Tensor>& outputs) const final {
    return error_rate(data_as<Batch>(d), outputs);
  }
};

// `d` as a sequence task, for what only sequences have (sampling text, Ollivier's methods); else a
// tg::Error naming the data set and `who` needs sequences.
const Task& as_task(const Dataset& d, const std::string& who);

struct TaskInfo {
  std::string name;         // "addition", "temporal_order", ...
  std::string description;  // one line
  std::string seed;         // which seed document
  nlohmann::json defaults;  // every option with its default ("T": 100, ...)
  std::function<std::unique_ptr<Dataset>(const nlohmann::json& cfg)> make;  // cfg: resolved options
};

const std::vector<TaskInfo>& registry();
const TaskInfo& find(const std::string& name);  // throws tg::Error naming the known tasks
// User options merged over the defaults; an unknown key, or a value of the wrong JSON type, is a
// tg::Error naming the key and the task.
nlohmann::json resolve(const TaskInfo& info, const nlohmann::json& user);
std::unique_ptr<Dataset> make_dataset(const std::string& name, const nlohmann::json& options);  // resolve + info.make
// make_dataset of a sequence task; a data set of other cases (images) is a tg::Error naming it.
std::unique_ptr<Task> make(const std::string& name, const nlohmann::json& options);

// What a task's error_rate measures, by the task's name alone, so that a finished run's config.json is
// enough to label its plots and progress lines (no corpus to load). docs/tasks.md, "error measure".
struct Measure {
  std::string name;        // "error rate", "bits per character", "mean squared error", "regret (bits per line)"
  std::string short_name;  // "error", "bpc", "MSE", "regret": for a progress line
};
// A name that is not a registered task gets {"error measure", "error"}.
Measure measure(const std::string& task);

}  // namespace tg::tasks
