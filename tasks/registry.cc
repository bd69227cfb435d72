#include <fmt/format.h>

#include "core/error.h"
#include "tasks/families.h"
#include "tasks/generated.h"

namespace tg::tasks {

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

namespace {
// Same JSON type as the default (any number for a number): "T": "50" is caught here, by name.
bool same_kind(const nlohmann::json& def, const nlohmann::json& v) {
  if (def.is_number()) return v.is_number();
  if (def.is_string()) return v.is_string();
  if (def.is_boolean()) return v.is_boolean();
  if (def.is_array()) return v.is_array();
  if (def.is_object()) return v.is_object();
  return true;
}
const char* kind_name(const nlohmann::json& def) {
  if (def.is_number()) return "a number";
  if (def.is_string()) return "a string";
  if (def.is_boolean()) return "true or false";
  if (def.is_array()) return "a list";
  return "an object";
}
}  // namespace

nlohmann::json resolve(const TaskInfo& info, const nlohmann::json& user) {
  nlohmann::json cfg = info.defaults;
  if (user.is_null()) return cfg;
  if (!user.is_object()) throw Error(fmt::format("task '{}': options must be a JSON object (got {})", info.name, user.dump()));
  for (auto it = user.begin(); it != user.end(); ++it) {
    if (!cfg.contains(it.key())) {
      std::string known;
      for (auto d = cfg.begin(); d != cfg.end(); ++d) known += (known.empty() ? "" : ", ") + d.key();
      throw Error(fmt::format("task '{}': unknown option '{}' (options: {})", info.name, it.key(), known));
    }
    if (!same_kind(cfg[it.key()], it.value()))
      throw Error(fmt::format("task '{}': option '{}' must be {} (got {})", info.name, it.key(),
                              kind_name(cfg[it.key()]), it.value().dump()));
    cfg[it.key()] = it.value();
  }
  return cfg;
}

std::unique_ptr<Task> make(const std::string& name, const nlohmann::json& options) {
  const TaskInfo& info = find(name);
  return info.make(resolve(info, options));
}

}  // namespace tg::tasks
