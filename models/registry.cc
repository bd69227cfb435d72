#include <fmt/format.h>

#include "core/error.h"
#include "models/families.h"
#include "models/model.h"

namespace tg::models {

const std::vector<ModelInfo>& registry() {
  static const std::vector<ModelInfo> all = [] {
    std::vector<ModelInfo> r;
    register_core_models(r);
    register_more_models(r);
    return r;
  }();
  return all;
}

const ModelInfo& find(const std::string& name) {
  std::string known;
  for (const ModelInfo& m : registry()) {
    if (m.name == name) return m;
    known += (known.empty() ? "" : ", ") + m.name;
  }
  throw Error(fmt::format("unknown model '{}' (known: {})", name, known));
}

nlohmann::json resolve(const ModelInfo& info, const nlohmann::json& user) {
  nlohmann::json cfg = info.defaults;
  if (user.is_null()) return cfg;
  if (!user.is_object()) throw Error(fmt::format("model '{}': options must be a JSON object", info.name));
  for (auto it = user.begin(); it != user.end(); ++it) {
    if (!cfg.contains(it.key())) {
      std::string known;
      for (auto d = cfg.begin(); d != cfg.end(); ++d) known += (known.empty() ? "" : ", ") + d.key();
      throw Error(fmt::format("model '{}': unknown option '{}' (options: {})", info.name, it.key(), known));
    }
    cfg[it.key()] = it.value();
  }
  return cfg;
}

}  // namespace tg::models
