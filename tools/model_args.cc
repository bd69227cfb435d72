#include "tools/model_args.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json.h"

namespace tg::cli {

void add_model_args(CLI::App& app, ModelArgs& a) {
  app.add_option("--model", a.model, "registry name (see `tapegrad models`)")->required();
  app.add_option("--set", a.sets, "model option key=value (repeatable), e.g. --set hidden=400 --set layers=[150,130]");
  app.add_option("--config", a.config, "JSON file with an object of model options (--set wins)");
}

nlohmann::json user_options(const ModelArgs& a) {
  nlohmann::json opts = nlohmann::json::object();
  if (!a.config.empty()) {
    const std::string text = read_input_file(a.config, "config", kMaxJsonFileBytes);  // no FIFOs or devices
    nlohmann::json file = parse_json(text, "--config", false);
    if (file.is_discarded()) throw Error(fmt::format("config file '{}' is not valid JSON", a.config));
    if (!file.is_object()) throw Error(fmt::format("config file '{}' must hold a JSON object of options", a.config));
    opts.update(file);
  }
  for (const std::string& s : a.sets) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw Error(fmt::format("--set '{}': expected key=value", s));
    const std::string value = s.substr(eq + 1);
    nlohmann::json v = parse_json(value, "--set", false);
    opts[s.substr(0, eq)] = v.is_discarded() ? nlohmann::json(value) : v;
  }
  return opts;
}

}  // namespace tg::cli
