#include <fmt/format.h>

#include "core/error.h"
#include "core/options.h"
#include "tasks/families.h"
#include "tasks/generated.h"

namespace tg::tasks {

std::unique_ptr<Data> Dataset::cases(int64_t, int64_t) const {
  throw Error(fmt::format("data set '{}' is a generator: it has no fixed list of {}", name(), case_noun()));
}

Batch Task::sequences(int64_t, int64_t) const {
  throw Error(fmt::format("task '{}' is a generator: it has no fixed list of sequences (use sample)", name()));
}

Batch GeneratedTask::sample(int64_t batch, Rng& rng) const {
  if (batch < 1) throw Error(fmt::format("task '{}': a batch needs at least 1 sequence (got {})", name_, batch));
  std::vector<Example> examples;
  examples.reserve(static_cast<size_t>(batch));
  for (int64_t i = 0; i < batch; ++i) examples.push_back(generate(rng));
  return collate(examples, sig_);
}

const std::vector<TaskInfo>& registry() {
  static const std::vector<TaskInfo> all = [] {
    std::vector<TaskInfo> r;
    register_pathological(r);
    register_krueger(r);
    register_ollivier(r);
    register_text(r);
    register_image_sets(r);
    register_reaching(r);
    register_video(r);
    register_gated(r);
    register_speech(r);
    register_speech_frames(r);
    return r;
  }();
  return all;
}

const TaskInfo& find(const std::string& name) {
  std::string known;
  for (const TaskInfo& t : registry()) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw Error(fmt::format("unknown task '{}' (known: {})", name, known));
}


nlohmann::json resolve(const TaskInfo& info, const nlohmann::json& user) {
  return merge_options(fmt::format("task '{}'", info.name), info.defaults, user, /*check_kinds=*/true);
}

Measure measure(const std::string& task) {
  // One row per task whose error_rate is not a fraction of wrong sequences (lines, steps); keep in step
  // with the error_rate overrides and docs/tasks.md. tests/tasks/registry_test.cc checks every task has a name.
  if (task == "text") return {"bits per character", "bpc"};
  if (task == "adding") return {"mean squared error", "MSE"};
  if (task == "alphabet") return {"regret (bits per line)", "regret"};
  if (task == "music") return {"regret (bits per bar)", "regret"};
  if (task == "anbn") return {"regret (bits per pair)", "regret"};
  if (task == "curves" || task == "fashion_mnist" || task == "images")
    return {"squared reconstruction error per image", "sq.err"};
  if (task == "center_out" || task == "ddn") return {"final hand distance to the target (cm)", "cm"};
  if (task == "postural") return {"mean hand distance from the posture (cm)", "cm"};
  if (task == "bouncing_balls") return {"squared error per pixel per predicted frame", "MSE"};
  if (task == "bouncing_balls_kl") return {"KL divergence per sequence", "KL"};
  if (task == "image_pairs" || task == "transformed_video" || task == "sine_walk") return {"mean squared error", "MSE"};
  if (task == "phonemes") return {"phoneme error rate", "PER"};
  if (task == "speech_frames") return {"squared error per frame", "SE/frame"};
  for (const TaskInfo& t : registry())
    if (t.name == task) return {"error rate", "error"};
  return {"error measure", "error"};
}

const Task& as_task(const Dataset& d, const std::string& who) {
  if (const auto* t = dynamic_cast<const Task*>(&d)) return *t;
  throw Error(fmt::format("{} needs sequences, but data set '{}' holds {}", who, d.name(), d.case_noun()));
}

std::unique_ptr<Dataset> make_dataset(const std::string& name, const nlohmann::json& options) {
  const TaskInfo& info = find(name);
  return info.make(resolve(info, options));
}

std::unique_ptr<Task> make(const std::string& name, const nlohmann::json& options) {
  std::unique_ptr<Dataset> d = make_dataset(name, options);
  as_task(*d, fmt::format("tasks::make('{}')", name));
  return std::unique_ptr<Task>(static_cast<Task*>(d.release()));
}

}  // namespace tg::tasks
