#include "tools/model_args.h"

#include <fmt/format.h>

#include "core/error.h"
#include "tools/run_config.h"

namespace tg::cli {

void add_model_args(CLI::App& app, ModelArgs& a) {
  app.add_option("--model", a.model, "registry name (see `tapegrad models`)")->required();
  app.add_option("--set", a.sets, "model option key=value (repeatable), e.g. --set hidden=400 --set layers=[150,130]");
  app.add_option("--config", a.config, "JSON file with an object of model options (--set wins)");
}

nlohmann::json user_options(const ModelArgs& a) {
  nlohmann::json opts = nlohmann::json::object();
  if (!a.config.empty()) {
    const nlohmann::json file = read_json_file(a.config);  // no FIFOs or devices; a syntax error's line and column
    if (!file.is_object()) throw Error(fmt::format("config file '{}' must hold a JSON object of options", a.config));
    opts.update(file);
  }
  for (const std::string& s : a.sets) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw Error(fmt::format("--set '{}': expected key=value", s));
    const std::string value = s.substr(eq + 1);
    opts[s.substr(0, eq)] = set_value(value, "--set " + s.substr(0, eq));
  }
  return opts;
}

}  // namespace tg::cli
