// tapegrad plot: metrics.jsonl parsing (errors name file:line) and a PNG from gnuplot.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "tests/harness/error_of.h"
#include "tools/plot.h"

namespace tg {
namespace {
namespace fs = std::filesystem;

using check::contains;
using check::error_of;

class RunDir {
 public:
  RunDir() {
    std::string tmpl = (fs::temp_directory_path() / "tapegrad-plot-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~RunDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string str() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(path_ / name, std::ios::binary);
    out << text;
  }

 private:
  fs::path path_;
};

bool have_gnuplot() { return std::system("gnuplot --version >/dev/null 2>&1") == 0; }

// A Hessian-free run: losses every step, validation every 10, λ over decades, ρ, CG iterations.
std::string hf_metrics(int steps) {
  std::string s;
  double lambda = 1.0;
  for (int t = 0; t <= steps; ++t) {
    double loss = 4.2 * std::exp(-t / 15.0) + 1.3;
    double rho = 0.5 + 0.45 * std::sin(t * 0.7);
    lambda *= rho > 0.75 ? 2.0 / 3.0 : rho < 0.25 ? 1.5 : 1.0;
    s += fmt::format(R"({{"step": {}, "loss": {}, "bpc": {}, "lambda": {}, "rho": {}, "cg_iters": {}, "seconds": {}, "phase": "train")",
                     t, loss, loss / std::log(2.0), lambda, rho, 10 + (t * 7) % 40, 1.5 * t);
    if (t % 10 == 0) s += fmt::format(R"(, "valid_loss": {}, "valid_bpc": {})", loss + 0.1, (loss + 0.1) / std::log(2.0));
    s += "}\n";
  }
  return s;
}

TEST(Plot, ReadMetricsGroupsNumericKeysByFirstAppearance) {
  RunDir run;
  run.write("metrics.jsonl",
            "{\"step\": 10, \"loss\": 2.5, \"lr\": 0.1, \"note\": \"x\", \"ok\": true, \"gone\": null}\n"
            "\n"
            "{\"step\": 20, \"loss\": 2.0, \"valid_loss\": 2.2}\r\n"
            "{\"loss\": 1.5}\n");
  Metrics m = read_metrics(run / "metrics.jsonl");
  EXPECT_EQ(m.records, 3u);
  EXPECT_EQ(m.x_key, "step");
  ASSERT_EQ(m.series.size(), 3u);
  EXPECT_EQ(m.series[0].key, "loss");
  EXPECT_EQ(m.series[0].x, (std::vector<double>{10, 20, 3}));  // no step: the record number
  EXPECT_EQ(m.series[0].y, (std::vector<double>{2.5, 2.0, 1.5}));
  EXPECT_EQ(m.series[1].key, "lr");
  EXPECT_EQ(m.series[2].key, "valid_loss");
  EXPECT_EQ(m.series[2].x, (std::vector<double>{20}));
}

TEST(Plot, IterationIsAnXAxisToo) {  // the trainer logs "iteration"
  RunDir run;
  run.write("metrics.jsonl", "{\"loss\": 2, \"iteration\": 5, \"accepted\": true}\n{\"loss\": 1, \"iteration\": 6}\n");
  Metrics m = read_metrics(run / "metrics.jsonl");
  EXPECT_EQ(m.x_key, "iteration");
  ASSERT_EQ(m.series.size(), 1u);
  EXPECT_EQ(m.series[0].x, (std::vector<double>{5, 6}));
}

TEST(Plot, BadLinesAreErrorsNamingFileAndLine) {
  RunDir run;
  std::string file = run / "metrics.jsonl";
  run.write("metrics.jsonl", "{\"step\": 1, \"loss\": 2}\n\n{\"step\": 2, loss: 3}\n{\"step\": 3, \"loss\": 1}\n");
  std::string msg = error_of([&] { plot_run(run.str()); });
  EXPECT_TRUE(contains(msg, file + ":3: not valid JSON")) << msg;
  EXPECT_FALSE(contains(msg, "json.exception")) << msg;

  run.write("metrics.jsonl", "{\"step\": 1, \"loss\": 2}\n[1, 2]\n");
  msg = error_of([&] { read_metrics(file); });
  EXPECT_EQ(msg, file + ":2: expected a JSON object, found array");

  run.write("metrics.jsonl", "\n  \n");
  EXPECT_EQ(error_of([&] { read_metrics(file); }), file + ": empty: no logged steps");
  run.write("metrics.jsonl", "{\"step\": 1, \"phase\": \"warmup\"}\n");
  EXPECT_EQ(error_of([&] { read_metrics(file); }), file + ": no numeric metrics besides 'step'");

  fs::remove(file);
  EXPECT_EQ(error_of([&] { plot_run(run.str()); }), file + ": no such file");
  EXPECT_EQ(error_of([&] { plot_run(run / "nope"); }), "run directory '" + (run / "nope") + "' does not exist");
}

TEST(Plot, IncompleteLastLineOfALiveRunIsSkipped) {
  RunDir run;
  run.write("metrics.jsonl", "{\"step\": 1, \"loss\": 2}\n{\"step\": 2, \"loss\": 1.5}\n{\"step\": 3, \"lo");
  Metrics m = read_metrics(run / "metrics.jsonl");
  EXPECT_EQ(m.records, 2u);
}

TEST(Plot, WritesAPngForAHessianFreeRun) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  RunDir run;
  run.write("metrics.jsonl", hf_metrics(60));
  std::string png = plot_run(run.str());
  EXPECT_EQ(png, run / "curves.png");
  std::ifstream in(png, std::ios::binary);
  std::string head(8, '\0');
  ASSERT_TRUE(in.read(head.data(), 8));
  EXPECT_EQ(head, "\x89PNG\r\n\x1a\n");
  EXPECT_GT(fs::file_size(png), 10000u);
  EXPECT_FALSE(fs::exists(png + ".tmp"));

  std::string custom = run / "custom name's.png";  // a quote survives gnuplot and shell quoting
  EXPECT_EQ(plot_run(run.str(), custom), custom);
  EXPECT_TRUE(fs::exists(custom));
  if (const char* keep = std::getenv("TAPEGRAD_KEEP_PLOT")) fs::copy_file(png, keep, fs::copy_options::overwrite_existing);

  std::string msg = error_of([&] { plot_run(run.str(), run / "no/such/dir/x.png"); });
  EXPECT_TRUE(contains(msg, "does not exist")) << msg;
}

TEST(Plot, ComparesRunsAgainstAnotherMetric) {
  RunDir root;
  fs::create_directories(root / "a");
  fs::create_directories(root / "b");
  root.write("a/metrics.jsonl", "{\"iteration\": 1, \"cpu_seconds\": 2, \"valid_error\": 3}\n"
                                "{\"iteration\": 2, \"cpu_seconds\": 4}\n"
                                "{\"iteration\": 3, \"cpu_seconds\": 6, \"valid_error\": 2.5}\n");
  root.write("b/metrics.jsonl", "{\"iteration\": 1, \"loss\": 1}\n");
  // errors name the run file and the missing key, before gnuplot is needed
  std::string msg = error_of([&] { plot_compare({root / "a", root / "b"}, "valid_error", "cpu_seconds", root / "c.png"); });
  EXPECT_EQ(msg, (root / "b") + "/metrics.jsonl: no metric 'valid_error'");
  msg = error_of([&] { plot_compare({root / "a"}, "valid_error", "wall", root / "c.png"); });
  EXPECT_EQ(msg, (root / "a") + "/metrics.jsonl: no metric 'wall' for the x axis");
  msg = error_of([&] { plot_compare({root / "a"}, "valid_error", "cpu_seconds", ""); });
  EXPECT_TRUE(contains(msg, "needs an output file")) << msg;
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  root.write("b/metrics.jsonl", "{\"iteration\": 5, \"cpu_seconds\": 1, \"valid_error\": 4}\n");
  std::string png = plot_compare({root / "a", root / "b"}, "valid_error", "cpu_seconds", root / "c.png");
  EXPECT_EQ(png, root / "c.png");
  EXPECT_GT(fs::file_size(png), 5000u);
  EXPECT_FALSE(fs::exists(png + ".tmp"));
}

TEST(Plot, ReferenceLines) {
  const ReferenceLine r = parse_reference_line("0.0833=1/12, short-sighted");
  EXPECT_EQ(r.y, 0.0833);
  EXPECT_EQ(r.label, "1/12, short-sighted");
  EXPECT_EQ(parse_reference_line("1e-2").label, "y = 1e-2");
  for (const char* bad : {"", "=x", "abc", "0.1x=y", "nan", "inf=big", "1e999"})
    EXPECT_TRUE(contains(error_of([&] { parse_reference_line(bad); }), "is not Y or Y=LABEL")) << bad;
  RunDir root;
  fs::create_directories(root / "a");
  // values spanning three decades: a log axis, where a line at 0 cannot be drawn (refused before gnuplot)
  root.write("a/metrics.jsonl", "{\"iteration\": 1, \"valid_error\": 1}\n{\"iteration\": 2, \"valid_error\": 0.001}\n");
  CompareStyle style;
  style.references = {{0, "zero"}};
  std::string msg = error_of([&] { plot_compare({root / "a"}, "valid_error", "iteration", root / "c.png", style); });
  EXPECT_TRUE(contains(msg, "--hline 0: the y axis is logarithmic here")) << msg;
  EXPECT_FALSE(fs::exists(root / "c.png"));
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  style.references = {{0.01, "1%"}};
  const std::string png = plot_compare({root / "a"}, "valid_error", "iteration", root / "c.png", style);
  EXPECT_GT(fs::file_size(png), 5000u);
}

TEST(Plot, YRange) {
  YRange r = parse_y_range("0:0.2");
  EXPECT_EQ(r.lo, 0.0);
  EXPECT_EQ(r.hi, 0.2);
  r = parse_y_range(":1e-1");
  EXPECT_FALSE(r.lo);
  EXPECT_EQ(r.hi, 0.1);
  r = parse_y_range("-3:");
  EXPECT_EQ(r.lo, -3.0);
  EXPECT_FALSE(r.hi);
  r = parse_y_range("-1:-0.5");
  EXPECT_EQ(r.lo, -1.0);
  EXPECT_EQ(r.hi, -0.5);
  EXPECT_EQ(parse_y_range("1e-400:1").lo, 0.0);  // an underflow is a (tiny) number
  for (const char* bad : {"", "0.2", ":", "a:1", "0:b", "nan:1", "0:inf", "1:1", "2:1", "0:1:2", " 0:1", "0: 1", "0 :1",
                          "0:1 ", "1e999:"})
    EXPECT_TRUE(contains(error_of([&] { parse_y_range(bad); }), "--y-range: '")) << bad;
  EXPECT_TRUE(contains(error_of([&] { parse_y_range("2:1"); }), "LO must be below HI"));
}

TEST(Plot, YAxisFollowsTheRange) {
  // a plateau near 0.2 that drops to 0.01, with a spike of 1e7: without a range the spike makes the axis log
  const std::vector<double> ys = {0.2, 1e7, 0.01};
  CompareStyle style;
  EXPECT_EQ(compare_y_axis("valid_error", ys, style).gnuplot, "set logscale y\n");
  // a range from 0 hides the spike: linear, clipped, segments crossing the window still drawn
  style.y_range = {0.0, 0.25};
  CompareYAxis y = compare_y_axis("valid_error", ys, style);
  EXPECT_FALSE(y.log);
  EXPECT_EQ(y.gnuplot, "set yrange [0:0.25]\nset clip two\n");
  // the scale is chosen from the values inside: 0.01..0.2 spans less than two decades...
  style.y_range = {0.001, std::nullopt};
  EXPECT_EQ(compare_y_axis("valid_error", {0.2, 0.01}, style).gnuplot, "set yrange [0.001:*]\nset clip two\n");
  // ...the spike inside the range spans nine: log
  EXPECT_EQ(compare_y_axis("valid_error", ys, style).gnuplot, "set logscale y\nset yrange [0.001:*]\nset clip two\n");
  // an end at 0 cannot be on a log axis
  style.log_y = true;
  style.y_range = {0.0, 0.3};
  EXPECT_TRUE(contains(error_of([&] { compare_y_axis("valid_error", ys, style); }), "--y-range: 0 on a logarithmic y axis"));
  // a range no value lies in is refused before gnuplot (which would fail on a one-sided one)
  style.log_y = false;
  style.y_range = {1e8, std::nullopt};
  EXPECT_TRUE(contains(error_of([&] { compare_y_axis("valid_error", ys, style); }),
                       "--y-range '100000000:': no value of 'valid_error' lies in it (they run from 0.01 to 10000000)"));
  // a reference line off the range is named so in the key
  EXPECT_EQ(off_axis_note(0.5, {0.0, 0.25}), " (above the axis)");
  EXPECT_EQ(off_axis_note(-1, {0.0, std::nullopt}), " (below the axis)");
  EXPECT_EQ(off_axis_note(0.1, {0.0, 0.25}), "");
  RunDir root;
  fs::create_directories(root / "a");
  root.write("a/metrics.jsonl", "{\"iteration\": 1, \"valid_error\": 0.2}\n{\"iteration\": 2, \"valid_error\": 1e7}\n"
                                "{\"iteration\": 3, \"valid_error\": 0.01}\n");
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  style.y_range = {0.0, 0.25};
  style.references = {{0.0833, "1/12"}, {0.5, "1/2"}};
  const std::string png = plot_compare({root / "a"}, "valid_error", "iteration", root / "c.png", style);
  EXPECT_GT(fs::file_size(png), 5000u);
}

TEST(Plot, LabelsAreOnePerRun) {
  RunDir root;
  fs::create_directories(root / "a");
  root.write("a/metrics.jsonl", "{\"iteration\": 1, \"valid_error\": 0.2}\n");
  CompareStyle style;
  style.labels = {"seed 1", "seed 2"};
  const std::string msg = error_of([&] { plot_compare({root / "a"}, "valid_error", "iteration", root / "c.png", style); });
  EXPECT_EQ(msg, "plot: 2 --label for 1 --run; give one per run, in the same order");
  style.labels = {""};
  EXPECT_TRUE(contains(error_of([&] { plot_compare({root / "a"}, "valid_error", "iteration", root / "c.png", style); }),
                       "--label is empty"));
  EXPECT_FALSE(fs::exists(root / "c.png"));
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  style.labels = {"beta = 0, seed 1"};
  EXPECT_GT(fs::file_size(plot_compare({root / "a"}, "valid_error", "iteration", root / "c.png", style)), 5000u);
}

TEST(Plot, MissingGnuplotIsAnError) {
  RunDir run;
  run.write("metrics.jsonl", hf_metrics(3));
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", run.str().c_str(), 1);
  std::string msg = error_of([&] { plot_run(run.str()); });
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_TRUE(contains(msg, "gnuplot not found on PATH")) << msg;
  EXPECT_FALSE(fs::exists(run / "curves.png"));
}

}  // namespace
}  // namespace tg
