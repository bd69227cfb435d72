#include <fmt/format.h>

#include "core/error.h"
#include "core/options.h"
#include "models/families.h"
#include "models/model.h"
#include "models/network.h"

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
  std::string networks;
  for (const NetworkInfo& n : models::networks()) networks += (networks.empty() ? "" : ", ") + n.name;
  if (find_network(name))
    throw Error(fmt::format("'{}' is a feedforward network, not a sequence model (sequence models: {})", name, known));
  throw Error(fmt::format("unknown model '{}' (sequence models: {}; feedforward networks: {})", name, known, networks));
}

nlohmann::json resolve(const ModelInfo& info, const nlohmann::json& user) {
  return merge_options(fmt::format("model '{}'", info.name), info.defaults, user);
}

}  // namespace tg::models
