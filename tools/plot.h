// Training curves: RUN/metrics.jsonl (one JSON object per logged step) drawn with gnuplot into a PNG.
#pragma once
#include <functional>
#include <optional>
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

// Which metrics plot_run draws. By default what a user looks at first: the task's measure on the
// validation data (named from config.json's task: "bits per character" for text, "error rate", ...)
// and the training and validation loss; the other metrics are named in a caption. `all` draws every
// metric that changes; `metrics` exactly these keys. A metric that never changes is listed in the
// caption with its value, never drawn as a flat panel (unless named in `metrics`).
struct PlotSelection {
  bool all = false;
  std::vector<std::string> metrics;
  // The x axis: "seconds" (wall-clock time, in s, min or h), "cpu_seconds", the step counter
  // ("iteration"), or another metric. Empty: seconds when the run logs it, else the step counter.
  std::string x;
};

// Plots RUN_DIR/metrics.jsonl into out_png (RUN_DIR/curves.png when empty) and returns the PNG's path.
// Series of one quantity ("loss", "valid_loss") share a panel; Hessian-free's λ gets a log scale and ρ
// the thresholds of its rule. The title names the run, model, task and optimizer (RUN_DIR/config.json;
// without it, the run alone). Throws tg::Error on bad input, when gnuplot is missing or when it fails.
std::string plot_run(const std::string& run_dir, const std::string& out_png = "", const PlotSelection& what = {});

// A horizontal reference line on a comparison: a baseline or success threshold (e.g. 1/12 on the adding
// task), drawn dashed in grey and named in the key.
struct ReferenceLine {
  double y = 0;
  std::string label;
};
// "Y" or "Y=LABEL" (--hline): Y a finite number; the label defaults to "y = Y". Throws tg::Error otherwise.
ReferenceLine parse_reference_line(const std::string& text);

// The y axis's range on a comparison (--y-range LO:HI): either end may be left open (":0.2", "0.001:").
struct YRange {
  std::optional<double> lo, hi;
};
// "LO:HI" with LO < HI finite numbers, one of them possibly empty. Throws tg::Error otherwise.
YRange parse_y_range(const std::string& text);

// How plot_compare draws. `log_y` forces a log scale; without it the scale is chosen as for plot_run
// (positive values spanning two decades), counting only the values inside y_range, and linear when the range
// reaches 0 or below. Points outside the range are clipped; lines crossing it are drawn. `labels` name the
// runs in the key, in the order of run_dirs (empty: each run's directory name, model and optimizer).
struct CompareStyle {
  bool log_y = false;
  std::vector<ReferenceLine> references;
  YRange y_range;
  std::vector<std::string> labels;
};

// The y axis of a comparison of y_key's `values`, decided before gnuplot runs: whether it is logarithmic,
// and the gnuplot lines setting its scale and range. Throws tg::Error for a reference line or range end a
// log axis cannot show, and for a range that none of the values lies in.
struct CompareYAxis {
  bool log = false;
  std::string gnuplot;
};
CompareYAxis compare_y_axis(const std::string& y_key, const std::vector<double>& values, const CompareStyle& style);

// " (above the axis)" or " (below the axis)" for a reference line outside the range, else "": added to its
// label in the key, which would otherwise name a line the reader cannot find.
std::string off_axis_note(double y, const YRange& range);

// One panel comparing runs: y_key (e.g. "valid_error", labelled by the runs' task measure) against x_key
// (as PlotSelection::x; empty: wall-clock time), one line per run named by its directory, and the
// reference lines. Throws tg::Error naming the file when a run lacks either key, for labels that are not one
// per run, and as compare_y_axis.
std::string plot_compare(const std::vector<std::string>& run_dirs, const std::string& y_key, const std::string& x_key,
                         const std::string& out_png, const CompareStyle& style = {});

// For other drawings made with gnuplot (tools/arm_plot.h): the script `script_of(data_path, png_path)`
// reads `data_text` from data_path and draws png_path, both in a private temporary directory; the PNG
// is then written to `png` atomically. gnuplot_quote makes any text a safe gnuplot string, and
// gnuplot_terminal(w, h) the PNG terminal line (pngcairo when gnuplot has it).
using GnuplotScript = std::function<std::string(const std::string& data_path, const std::string& png_path)>;
std::string render_gnuplot_png(const std::string& png, const std::string& data_text, const GnuplotScript& script_of);
std::string gnuplot_quote(const std::string& s);
std::string gnuplot_terminal(int width, int height);

}  // namespace tg
