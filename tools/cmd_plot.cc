// tapegrad plot --run DIR [-o FILE.png]: training curves from DIR/metrics.jsonl; with several --run and
// --metric M [--x K]: one panel comparing the runs. Prints the PNG's path.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "core/error.h"
#include "tools/commands.h"
#include "tools/plot.h"

namespace tg::cli {

Run add_plot(CLI::App& app) {
  auto run_dirs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto y_key = std::make_shared<std::string>();
  auto x_key = std::make_shared<std::string>("iteration");
  app.add_option("--run", *run_dirs, "run directory holding metrics.jsonl (repeat to compare runs)")->required();
  app.add_option("-o,--output", *output, "PNG to write (default: RUN/curves.png)");
  app.add_option("--metric", *y_key, "compare the runs' metric, e.g. valid_error (with several --run)");
  app.add_option("--x", *x_key, "x axis of the comparison: iteration, or a metric such as cpu_seconds or seconds");
  return [run_dirs, output, y_key, x_key] {
    if (run_dirs->size() == 1 && y_key->empty()) {
      fmt::print("{}\n", plot_run(run_dirs->front(), *output));
      return 0;
    }
    if (y_key->empty()) throw Error("plot: several --run need --metric (e.g. --metric valid_error)");
    fmt::print("{}\n", plot_compare(*run_dirs, *y_key, *x_key, *output));
    return 0;
  };
}

}  // namespace tg::cli
