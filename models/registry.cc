#include <fmt/format.h>

#include "core/error.h"
#include "core/options.h"
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
  return merge_options(fmt::format("model '{}'", info.name), info.defaults, user);
}

}  // namespace tg::models
