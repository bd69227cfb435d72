// tapegrad bench: the engine benchmark (LSTM character LM; forward, gradient, cached JVP and
// Gauss-Newton products, graph overhead). A readable table, or one JSON object with --json.
#include <fmt/format.h>

#include <memory>

#include "bench/lstm_lm.h"
#include "tools/commands.h"

namespace tg::cli {

Run add_bench(CLI::App& app) {
  auto opt = std::make_shared<bench::EngineBenchOptions>();
  auto json = std::make_shared<bool>(false);
  app.add_option("--vocab", opt->workload.vocab, "vocabulary size V")->check(CLI::Range(2, 100000));
  app.add_option("--hidden", opt->workload.hidden, "hidden units H")->check(CLI::Range(1, 8192));
  app.add_option("--batch", opt->workload.batch, "sequences per batch B")->check(CLI::Range(1, 100000));
  app.add_option("--steps", opt->workload.steps, "unrolled time steps T")->check(CLI::Range(1, 100000));
  app.add_option("--reps", opt->reps, "timed repetitions per pass (the median is reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--threads", opt->threads, "OpenBLAS threads")->check(CLI::Range(1, 256));
  app.add_flag("--json", *json, "print one JSON object instead of a table");
  return [opt, json] {
    opt->tiny.vocab = opt->workload.vocab;  // the overhead graph differs from the workload only in H, B
    bench::EngineBenchResult r = bench::run_engine_bench(*opt);
    if (*json) fmt::print("{}\n", bench::to_json(r).dump(2));
    else fmt::print("{}", bench::to_table(r));
    return 0;
  };
}

}  // namespace tg::cli
