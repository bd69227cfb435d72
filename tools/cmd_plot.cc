// tapegrad plot --run DIR [-o FILE.png] [--all | --metrics a,b] [--x K]: a run's curves from
// DIR/metrics.jsonl (by default the task's measure and the loss against wall-clock time); with several
// --run and --metric M: one panel comparing the runs. Prints the PNG's path.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <utility>
#include <string>

#include "core/error.h"
#include "tools/arm_plot.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/plot.h"

namespace tg::cli {

Run add_plot(CLI::App& app) {
  auto run_dirs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto y_key = std::make_shared<std::string>();
  auto what = std::make_shared<PlotSelection>();
  app.add_option("--run", *run_dirs, "run directory holding metrics.jsonl (repeat to compare runs)")->required()->check(non_empty_path());
  app.add_option("-o,--output", *output, "PNG to write (default: RUN/curves.png)")->check(png_path());
  auto* all = app.add_flag("--all", what->all, "draw every metric that changes, not only the measure and the loss");
  app.add_option("--metrics", what->metrics, "draw these metrics of the run, e.g. lambda,rho,cg_iters")
      ->delimiter(',')
      ->excludes(all);
  app.add_option("--metric", *y_key, "compare the runs' metric, e.g. valid_error (with several --run)");
  auto hlines = std::make_shared<std::vector<std::string>>();
  app.add_option("--hline", *hlines,
                 "with --metric: a grey reference line at Y (dashed, then dotted, ...), named LABEL in the key (Y or Y=LABEL; "
                 "repeat for more), "
                 "e.g. --hline '0.0833=1/12, short-sighted baseline'");
  auto log_y = std::make_shared<bool>(false);
  app.add_flag("--log-y", *log_y,
               "with --metric: a log scale on y (by default when the values shown, those inside --y-range, span two decades "
               "and the range does not reach 0)");
  auto y_range = std::make_shared<std::optional<std::string>>();
  app.add_option("--y-range", *y_range,
                 "with --metric: the y axis from LO to HI, either end open (e.g. 0:0.2, :0.2); points outside are clipped");
  auto labels = std::make_shared<std::vector<std::string>>();
  app.add_option("--label", *labels,
                 "with --metric: the name of a run in the key, one per --run in the same order (default: the run's "
                 "directory, model and optimizer)");
  auto trajectories = std::make_shared<bool>(false);
  auto reaches = std::make_shared<int64_t>(0);
  app.add_flag("--trajectories", *trajectories,
               "an arm controller's hand paths on its reaching task (default PNG: RUN/trajectories.png)");
  app.add_option("--reaches", *reaches,
                 "with --trajectories: how many reaches to draw (default: all of a fixed task's, 32 of DDN's)")
      ->check(integer_in(1, 10000));
  app.add_option("--x", what->x,
                 "x axis: seconds (wall-clock time, the default), cpu_seconds, iteration, or another metric");
  return [run_dirs, output, y_key, what, trajectories, reaches, log_y, hlines, y_range, labels] {
    CompareStyle style;
    style.log_y = *log_y;
    for (const std::string& h : *hlines) style.references.push_back(parse_reference_line(h));
    if (*y_range) style.y_range = parse_y_range(**y_range);
    style.labels = *labels;
    for (const auto& [given, option] : {std::pair{!style.references.empty(), "--hline"}, std::pair{y_range->has_value(), "--y-range"},
                                           std::pair{!labels->empty(), "--label"}}) {
      if (given && *trajectories) throw Error(fmt::format("plot: {} does not apply to --trajectories", option));
      if (given && y_key->empty())
        throw Error(fmt::format("plot: {} is for a comparison of runs; give --metric (e.g. --metric valid_error)", option));
    }
    if (*trajectories) {
      if (run_dirs->size() != 1) throw Error("plot --trajectories draws one run: give one --run");
      fmt::print("{}\n", plot_trajectories(run_dirs->front(), *output, *reaches));
      return 0;
    }
    if (run_dirs->size() == 1 && y_key->empty()) {
      fmt::print("{}\n", plot_run(run_dirs->front(), *output, *what));
      return 0;
    }
    if (y_key->empty()) throw Error("plot: several --run need --metric (e.g. --metric valid_error)");
    if (what->all || !what->metrics.empty()) throw Error("plot: --all and --metrics draw one run; compare runs with --metric");
    fmt::print("{}\n", plot_compare(*run_dirs, *y_key, what->x, *output, style));
    return 0;
  };
}

}  // namespace tg::cli
