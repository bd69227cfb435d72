// tapegrad: the model-zoo command. Git-style subcommands; exit 0 on success, 1 when a check fails,
// 2 on bad input (with one clear error line).
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/printable.h"
#include "tools/commands.h"

namespace {
// The first argument after the subcommand that is an option the subcommand does not have: --name,
// --name=value or -x (-n5: -n with its value attached). The value that follows an option taking one is
// skipped, whatever it starts with (-o -x.png, --prompt -foo); so are negative numbers.
std::optional<std::string> first_unknown_option(CLI::App& app, int argc, char** argv) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();  // the one being parsed when the error came
  if (parsed.empty()) return std::nullopt;
  CLI::App* sub = parsed.front();
  bool value_next = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (value_next) {
      value_next = false;
      continue;
    }
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.') continue;
    const bool long_name = arg[1] == '-';
    const std::string name = long_name ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    const CLI::Option* opt = sub->get_option_no_throw(name);
    if (!opt) return name;
    const bool attached = long_name ? arg.find('=') != std::string::npos : arg.size() > 2;
    value_next = !attached && opt->get_items_expected_min() > 0;
  }
  return std::nullopt;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tapegrad: recurrent networks trained with first- and second-order methods"};
  app.require_subcommand(1);
  std::map<CLI::App*, tg::cli::Run> runs;
  std::vector<std::string> names;  // in registration order, for messages
  auto reg = [&](const char* name, const char* help, auto add) {
    names.push_back(name);
    CLI::App* sub = app.add_subcommand(name, help);
    runs[sub] = add(*sub);
  };
  reg("gradcheck", "check every op's JVP/VJP (finite differences, dot-product test, 2nd order, linearize)",
      tg::cli::add_gradcheck);
  reg("models", "list the model zoo: name, seed document(s), one-line description", tg::cli::add_models);
  reg("params", "a model's parameters (name, shape, count); the total count is the last line", tg::cli::add_params);
  reg("bench", "engine benchmark: LSTM LM forward, gradient, cached JVP and Gauss-Newton products, graph overhead",
      tg::cli::add_bench);
  reg("train", "train a model on a task (checkpoints, metrics, exact resume)", tg::cli::add_train);
  reg("eval", "score a trained run: the task's error measure, or bits per character", tg::cli::add_eval);
  reg("sample", "generate text from a trained character-level run", tg::cli::add_sample);
  reg("reconstruct", "an autoencoder run's reconstructions beside the original images, as a PNG grid",
      tg::cli::add_reconstruct);
  reg("video", "a video model's next-frame predictions (and a temporal RBM's own continuation) beside the true "
      "frames, as a PNG grid", tg::cli::add_video);
  reg("gated", "a gated model's predictions beside the truth (PNG grid or waveforms), or its factor filter pairs",
      tg::cli::add_gated);
  reg("plot", "training curves of a run (metrics.jsonl) as a PNG, via gnuplot", tg::cli::add_plot);
  reg("tasks", "list the tasks; --dump NAME writes generated sequences to a task file, --check FILE validates one",
      tg::cli::add_tasks);
  reg("ollivier", "Ollivier's Riemannian training (RUOP / RBPM, QDH) of GLNN / GNN / RNN; --grid prints Table 1",
      tg::cli::add_ollivier);
  reg("ilqr", "iLQR's open-loop torques for every center-out reach of the arm: per-reach loss, iterations, CPU time",
      tg::cli::add_ilqr);
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const std::string& n : names) {
      known += (known.empty() ? "" : ", ") + n;
      found |= n == argv[1];
    }
    if (!found) {
      std::fprintf(stderr, "tapegrad: error: unknown subcommand '%s' (known: %s)\n", tg::printable(argv[1]).c_str(),
                   known.c_str());
      return 2;
    }
  }
  if (argc > 1 && argv[1][0] == '-' && std::string(argv[1]) != "-h" && std::string(argv[1]) != "--help") {
    // CLI11 would only say "A subcommand is required"
    std::fprintf(stderr, "tapegrad: error: unknown option '%s': options follow a command (tapegrad COMMAND --help)\n",
                 tg::printable(argv[1]).c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    // CLI11 checks required options before unknown ones: `train --bogus` said only "--out is required"
    if (auto unknown = first_unknown_option(app, argc, argv))
      std::fprintf(stderr, "tapegrad: error: %s: unknown option '%s' (tapegrad %s --help lists them)\n", argv[1],
                   tg::printable(*unknown).c_str(), argv[1]);
    else
      std::fprintf(stderr, "tapegrad: error: %s\n", tg::printable(e.what()).c_str());
    return 2;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --version and the like
    std::fprintf(stderr, "tapegrad: error: %s\n", tg::printable(e.what()).c_str());  // one line, no usage dump
    return 2;
  }
  try {
    for (auto& [sub, run] : runs) {
      if (!sub->parsed()) continue;
      const int code = run();
      errno = 0;
      // printf's output is buffered: a full disk shows only here (`eval > /dev/full` exited 0)
      if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "tapegrad: error: cannot write to standard output: %s\n",
                     errno ? std::strerror(errno) : "write error");
        return 2;
      }
      return code;
    }
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "tapegrad: error: %s\n", tg::printable(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tapegrad: error: %s\n", tg::printable(e.what()).c_str());
    return 2;
  }
  return 2;
}
