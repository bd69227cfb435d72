// tapegrad tasks: the task list (name, seed document, description, options with defaults), and
// --dump NAME: N generated sequences written as a task file (JSON lines, docs/tasks.md), or --check
// FILE: validate a task file (for data made elsewhere). Bad input: one error line, exit code 2.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "tasks/task_file.h"
#include "tasks/task.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/run_config.h"

namespace tg::cli {

namespace {

// --options '{"T": 50}' then each --set KEY=VALUE over it; VALUE is read as JSON when it parses
// (50, 0.5, [0.8,0.1,0.1], "x"), else as a plain string (file=data/x.txt).
nlohmann::json task_options(const std::string& options, const std::vector<std::string>& sets) {
  nlohmann::json j = nlohmann::json::object();
  if (!options.empty()) {
    j = parse_json(options, "--options", false);
    if (j.is_discarded() || !j.is_object())
      throw Error(fmt::format("--options must be a JSON object, like '{{\"T\": 50}}' (got '{}')", options));
  }
  for (const std::string& s : sets) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw Error(fmt::format("--set needs KEY=VALUE (got '{}')", s));
    const std::string value = s.substr(eq + 1);
    j[s.substr(0, eq)] = set_value(value, "--set " + s.substr(0, eq));
  }
  return j;
}

}  // namespace

Run add_tasks(CLI::App& app) {
  auto dump = std::make_shared<std::string>();
  auto check = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto options = std::make_shared<std::string>();
  auto sets = std::make_shared<std::vector<std::string>>();
  auto seed = std::make_shared<uint64_t>(1);
  auto count = std::make_shared<int64_t>(100);
  app.add_option("--dump", *dump, "write generated sequences of this task to -o FILE");
  app.add_option("--check", *check, "validate a task file and summarise it");
  app.add_option("-o,--output", *out, "the task file to write (JSON lines; written atomically)");
  app.add_option("--options", *options, "task options as a JSON object, e.g. '{\"T\": 50}'");
  app.add_option("--set", *sets, "one task option KEY=VALUE (repeatable; over --options)");
  app.add_option("--seed", *seed, "generator seed (the file holds sample(N) of Rng(seed))")->check(unsigned_in(0, UINT64_MAX));
  app.add_option("-n", *count, "number of sequences")->check(integer_in(1, 100'000'000));
  return [=] {
    if (!dump->empty() && !check->empty()) throw Error("give --dump or --check, not both");
    if (!check->empty()) {
      tasks::TaskFile f = tasks::read_task_file(*check);
      int64_t steps = 0, targets = 0;
      for (const tasks::Example& e : f.examples) {
        steps += e.length;
        for (uint8_t m : e.loss_mask) targets += m;
      }
      const size_t n = f.examples.size();
      const tasks::Signature s = f.header.signature;
      const std::string name = f.header.task;
      auto task = tasks::open_task_file(std::move(f));  // checks a registered task's options and signature too
      fmt::print("{}: {} sequences of task '{}', {} steps, {} target steps; input {} {}, output {} {}\n", *check, n,
                 name, steps, targets, s.symbolic_input ? "symbols" : "dense", s.input_dim, tasks::output_kind_name(s.output),
                 s.output_dim);
      fmt::print("criterion: {}\n", task->success_criterion());
      return 0;
    }
    if (!dump->empty()) {
      if (out->empty()) throw Error("--dump needs -o FILE");
      const tasks::TaskInfo& info = tasks::find(*dump);
      const nlohmann::json cfg = tasks::resolve(info, task_options(*options, *sets));
      auto task = info.make(cfg);
      tasks::write_task_file(*out, tasks::as_task(*task, "tasks --dump (task files hold sequences)"), cfg, *seed, *count);
      fmt::print("wrote {} sequences of task '{}' (seed {}) to {}\n", *count, info.name, *seed, *out);
      return 0;
    }
    if (!options->empty() || !sets->empty() || !out->empty())
      throw Error("--options, --set and -o go with --dump NAME");
    fmt::print("{:<20} {:<10} {}\n", "task", "seed", "description");
    for (const tasks::TaskInfo& info : tasks::registry()) {
      fmt::print("{:<20} {:<10} {}\n", info.name, info.seed, info.description);
      fmt::print("{:<20} {:<10} options {}\n", "", "", info.defaults.dump());
    }
    fmt::print("chance levels and success criteria: docs/tasks.md\n");
    return 0;
  };
}

}  // namespace tg::cli
