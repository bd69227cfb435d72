// Training curves: RUN/metrics.jsonl (one JSON object per logged step) drawn with gnuplot into a PNG.
#pragma once
#include <string>
#include <vector>

namespace tg {

struct MetricSeries {
  std::string key;        // "loss", "valid_loss", "lambda", ...
  std::vector<double> x;  // the record's "step" or "iteration" (else its 1-based record number)
  std::vector<double> y;
};

struct Metrics {
  std::string x_key;  // "step", "iteration", or "record" when no record has either
  size_t records = 0;
  std::vector<MetricSeries> series;  // every numeric key but the step, in order of first appearance
};

// Parses a metrics.jsonl. Blank lines are skipped; non-numeric values (strings, null, ...) are ignored.
// Throws tg::Error naming file:line for a line that is not a JSON object, and for a missing or empty
// file. An unparsable last line without a newline is skipped with a warning: the run may be writing it.
Metrics read_metrics(const std::string& jsonl_path);

// Plots RUN_DIR/metrics.jsonl into out_png (RUN_DIR/curves.png when empty) and returns the PNG's path.
// Series of one quantity ("loss", "valid_loss", "new_loss") share a panel; Hessian-free's λ (log scale), ρ and CG
// iterations get their own. Throws tg::Error on bad input, when gnuplot is missing or when it fails.
std::string plot_run(const std::string& run_dir, const std::string& out_png = "");

// One panel comparing runs: y_key (e.g. "valid_error") against x_key (the step counter, or another
// metric logged at the same steps, e.g. "cpu_seconds"), one line per run named by its directory.
// Throws tg::Error naming the file when a run lacks either key.
std::string plot_compare(const std::vector<std::string>& run_dirs, const std::string& y_key, const std::string& x_key,
                         const std::string& out_png);

}  // namespace tg
