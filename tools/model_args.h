// The model options of any subcommand that builds a model: --model NAME, repeated --set key=value
// (the value is JSON when it parses as JSON: 400, true, [150,130,110]; else a string: tanh) and
// --config file.json (an object of options; --set wins).
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tg::cli {

struct ModelArgs {
  std::string model;
  std::vector<std::string> sets;
  std::string config;
};

// Registers --model (required), --set and --config on `app`.
void add_model_args(CLI::App& app, ModelArgs& a);
// The user's options: the config file's object, then each --set; throws tg::Error on a bad file or
// a --set without '='. Unknown keys are reported by models::resolve.
nlohmann::json user_options(const ModelArgs& a);

}  // namespace tg::cli
