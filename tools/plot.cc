// tapegrad plot: metrics.jsonl -> a grid of gnuplot panels in one PNG.
#include "tools/plot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json.h"
#include "tasks/task.h"

namespace tg {
namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("{}: cannot read", path));
  return s.str();
}

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1, ": the line
// is ours to name, so keep only what went wrong.
std::string json_reason(const std::string& what) {
  size_t at = what.find(": ");
  return at == std::string::npos ? what : what.substr(at + 2);
}

std::string base_name(const std::string& key) {
  std::string base = key;
  for (std::string_view prefix : {"train_", "training_", "valid_", "val_", "validation_", "test_", "eval_", "new_"})
    if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0) base = key.substr(prefix.size());
  // Other spellings of the same quantity; HF's chosen_iter (backtracking) belongs with its CG iterations.
  static const std::map<std::string, std::string> alias = {
      {"error", "error_rate"}, {"chosen_iter", "cg_iters"}, {"cg_iterations", "cg_iters"},
      {"bits_per_char", "bpc"}, {"learning_rate", "lr"}, {"damping", "lambda"}};
  auto it = alias.find(base);
  return it == alias.end() ? base : it->second;
}

// Which data a series is about, from its key's prefix: "validation", "test", "training" (no prefix).
std::string data_part(const std::string& key) {
  for (std::string_view p : {"valid_", "val_", "validation_", "eval_"})
    if (key.compare(0, p.size(), p) == 0) return "validation";
  if (key.compare(0, 5, "test_") == 0) return "test";
  if (key.compare(0, 4, "new_") == 0) return "";
  return "training";
}

// Known metrics: their panel order and titles; anything else follows in order of appearance.
struct Known {
  std::string_view base, title;
  bool always_log;  // λ spans decades by design
};
constexpr Known kKnown[] = {
    {"error_rate", "error rate", false},
    {"bpc", "bits per character", false},
    {"loss", "loss", false},
    {"accuracy", "accuracy", false},
    {"perplexity", "perplexity", false},
    {"grad_norm", "gradient norm", false},
    {"lr", "learning rate", false},
    {"lambda", "λ (Levenberg-Marquardt damping)", true},
    {"rho", "ρ (reduction ratio)", false},
    {"cg_iters", "CG iterations", false},
    {"seconds", "seconds", false},
};

const Known* known(const std::string& base) {
  for (const Known& k : kKnown)
    if (k.base == base) return &k;
  return nullptr;
}

// The task's measure: what the trainer logs as valid_error, and older runs' bpc.
bool is_measure(const std::string& base) { return base == "error_rate" || base == "bpc"; }

// What the run's config.json says; every field empty when it is missing or unreadable.
struct RunInfo {
  std::string model, task, optimizer;
};

// A line of a panel: points in plot units (x already scaled), and its legend.
struct Line {
  std::string key, label;
  std::vector<double> x, y;
};

// One panel: the series sharing a base name ("loss", "valid_loss" and "test_loss" share "loss").
struct Panel {
  std::string base, title, ylabel;
  std::vector<Line> lines;
};

// Everything a plot shows, decided before any gnuplot text is written.
struct Plan {
  std::string title, xlabel;
  bool time_axis = false;  // x from 0
  std::vector<Panel> panels;
  std::vector<std::string> caption;  // lines under the panels
};

// The x axis: a metric's values at each step (or the step counter itself) and the axis's label.
struct XAxis {
  std::string key;                 // the metric, or "" for the step counter
  std::string name;                // "wall-clock time", "CPU time", "iteration", ...
  std::map<double, double> at;     // step -> x, for a metric
  bool time = false;               // seconds: shown in s, min or h
};

bool is_step_key(const std::string& key) {
  return key == "step" || key == "iteration" || key == "iter" || key == "record";
}

const MetricSeries* find_series(const Metrics& m, const std::string& key) {
  for (const MetricSeries& s : m.series)
    if (s.key == key) return &s;
  return nullptr;
}

XAxis x_axis(const Metrics& m, const std::string& wanted, const std::string& file) {
  XAxis a;
  std::string key = wanted.empty() ? (find_series(m, "seconds") ? "seconds" : "") : wanted;
  if (key.empty() || is_step_key(key) || key == m.x_key) {
    a.name = m.x_key;
    return a;
  }
  const MetricSeries* s = find_series(m, key);
  if (!s) throw Error(fmt::format("{}: no metric '{}' for the x axis", file, key));
  a.key = key;
  a.time = key == "seconds" || key == "cpu_seconds";
  a.name = key == "seconds" ? "wall-clock time" : key == "cpu_seconds" ? "CPU time" : key;
  for (size_t i = 0; i < s->x.size(); ++i) a.at[s->x[i]] = s->y[i];
  return a;
}

// A series' points against the x axis (points logged without an x value are left out).
Line line_of(const MetricSeries& s, const XAxis& a) {
  Line l{s.key, s.key, {}, {}};
  for (size_t i = 0; i < s.x.size(); ++i) {
    double x = s.x[i];
    if (!a.key.empty()) {
      auto it = a.at.find(x);
      if (it == a.at.end()) continue;
      x = it->second;
    }
    l.x.push_back(x);
    l.y.push_back(s.y[i]);
  }
  return l;
}

// Seconds shown in minutes or hours when the run is long; returns the unit's name and scales the lines.
std::string scale_time(std::vector<Line*> lines) {
  double hi = 0;
  for (const Line* l : lines)
    for (double x : l->x) hi = std::max(hi, x);
  const auto [unit, div] = hi > 7200 ? std::pair{"h", 3600.0} : hi > 120 ? std::pair{"min", 60.0} : std::pair{"s", 1.0};
  for (Line* l : lines)
    for (double& x : l->x) x /= div;
  return unit;
}

// Never changes over two or more records: a setting (lr, momentum, sequences), not a curve.
bool constant(const MetricSeries& s) {
  return s.y.size() >= 2 && std::all_of(s.y.begin(), s.y.end(), [&](double y) { return y == s.y.front(); });
}

// Panel titles. The measure is named after the task (text's valid_error is bits per character).
std::string panel_title(const std::string& base, const RunInfo& run) {
  if (base == "error_rate" && !run.task.empty()) return tasks::measure(run.task).name;
  const Known* k = known(base);
  return k ? std::string(k->title) : base;
}

// Groups lines into panels by base name: known metrics first, in kKnown's order.
std::vector<Panel> make_panels(std::vector<Line> lines, const RunInfo& run) {
  std::vector<Panel> panels;
  for (Line& l : lines) {
    std::string base = base_name(l.key);
    auto it = std::find_if(panels.begin(), panels.end(), [&](const Panel& p) { return p.base == base; });
    if (it == panels.end()) it = panels.insert(panels.end(), Panel{base, panel_title(base, run), "", {}});
    it->lines.push_back(std::move(l));
  }
  auto rank = [](const Panel& p) {
    for (size_t i = 0; i < std::size(kKnown); ++i)
      if (kKnown[i].base == p.base) return i;
    return std::size(kKnown);
  };
  std::stable_sort(panels.begin(), panels.end(), [&](const Panel& a, const Panel& b) { return rank(a) < rank(b); });
  for (Panel& p : panels) {
    // The measure and the loss are read against each other: name their lines by the data, "validation".
    if (is_measure(p.base) || p.base == "loss") {
      bool all_valid = true;
      for (Line& l : p.lines) {
        const std::string part = data_part(l.key);
        if (!part.empty() && p.lines.size() > 1) l.label = part;
        all_valid = all_valid && part == "validation";
      }
      p.ylabel = p.title;
      if (p.base == "loss" && run.task == "text") p.ylabel += " (nats per character)";
      if (all_valid) p.title = "validation " + p.title;
    }
  }
  return panels;
}

// Log scale when every value is positive and they span two decades or more (or always, for λ).
bool log_scale(const Panel& p) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Line& l : p.lines)
    for (double y : l.y) lo = std::min(lo, y), hi = std::max(hi, y);
  if (!(lo > 0)) return false;
  // Running totals grow from near 0: on a log scale their start would fill the panel.
  if (p.base == "cpu_seconds" || p.base == "seconds" || p.base == "minibatches") return false;
  const Known* k = known(p.base);
  return (k && k->always_log) || hi / lo >= 100;
}

// "a, b, c" broken into lines of at most `width` characters.
std::vector<std::string> wrap(const std::string& head, const std::vector<std::string>& items, size_t width) {
  std::vector<std::string> out;
  std::string line = head;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (line.size() + 1 + item.size() > width && line.size() > head.size()) {
      out.push_back(line);
      line = "    ";
    }
    line += (line.empty() || line.back() == ' ' ? "" : " ") + item;
  }
  out.push_back(line);
  return out;
}

// A gnuplot single-quoted string ('' stands for '). Every piece of text in a plot script that comes
// from outside (metric keys, run directory names) goes through here: a newline would end the
// string's command and let the next line run as gnuplot, where '!' runs a shell command, so control
// characters become '?'. (Gnuplot does no backquote substitution inside single quotes.)
std::string gp_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'') q += "''";
    else if (u < 0x20 || u == 0x7f) q += '?';
    else q += c;
  }
  return q + "'";
}

std::string sh_quote(const std::string& s) {  // a POSIX shell single-quoted word
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string exe = (dir.empty() ? std::string(".") : dir) + "/gnuplot";
    if (::access(exe.c_str(), X_OK) == 0) return exe;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  throw Error("gnuplot not found on PATH (Debian: apt-get install gnuplot-nox)");
}

// A private directory under $TMPDIR for the data and script files, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tapegrad-plot-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw Error(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
    path_ = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw Error(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
}

// A key on one line, for the data file's comments (they name each block for a reader).
std::string printable(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

// The data file: one block per line (gnuplot's `index`), so series logged at different steps each
// draw an unbroken line. Each block starts with a comment naming its metric.
std::string data_blocks(const std::vector<Panel>& panels) {
  std::string d;
  for (const Panel& p : panels)
    for (const Line& l : p.lines) {
      d += fmt::format("# {}\n", printable(l.key));
      for (size_t i = 0; i < l.x.size(); ++i) d += fmt::format("{} {}\n", l.x[i], l.y[i]);
      d += "\n\n";
    }
  return d;
}

constexpr const char* kTerminal =
    "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {{ set terminal pngcairo noenhanced size {0},{1} font 'sans,10' }}"
    " else {{ set terminal png noenhanced size {0},{1} }}\n";

// Panels in a grid placed by hand (origin and size), leaving a strip on top for the title and one at the
// bottom for the caption. Every string from outside (keys, names, the title) goes through gp_quote.
std::string gnuplot_script(const Plan& plan, const std::string& data, const std::string& png) {
  const int n = static_cast<int>(plan.panels.size());
  const int cols = n == 1 ? 1 : n <= 4 ? 2 : 3;
  const int rows = (n + cols - 1) / cols;
  const int panel_w = 560, panel_h = 380, title_h = 34, line_h = 16;
  const int caption_h = plan.caption.empty() ? 0 : static_cast<int>(plan.caption.size()) * line_h + 12;
  const int width = cols * panel_w, height = title_h + rows * panel_h + caption_h;
  std::string s;
  s += "set encoding utf8\n";
  // gnuplot-nox has pngcairo; a gnuplot built without cairo still has libgd's png.
  s += fmt::format(kTerminal, width, height);
  s += fmt::format("set output {}\n", gp_quote(png));
  s += "set multiplot\n";
  // The key in one row at the top, over a band the y range leaves free (12% above the highest value), so it
  // hides no curve: a plateau at the top of a panel ran under it.
  s += "set grid\nset key inside top right horizontal opaque\nset offsets 0, 0, graph 0.12, 0\n";
  s += fmt::format("set xlabel {}\n", gp_quote(plan.xlabel));
  // Title and caption as screen labels, drawn with the first panel only.
  s += fmt::format("set label 1 {} at screen 0.5, {:.5f} center font ',12'\n", gp_quote(plan.title),
                   1.0 - (title_h / 2.0 + 2) / height);
  for (size_t i = 0; i < plan.caption.size(); ++i)
    s += fmt::format("set label {} {} at screen {:.5f}, {:.5f} left\n", i + 2, gp_quote(plan.caption[i]), 12.0 / width,
                     (caption_h - 6.0 - line_h * (i + 0.5)) / height);
  s += fmt::format("set size {:.5f}, {:.5f}\n", 1.0 / cols, static_cast<double>(panel_h) / height);
  // One x range for every panel, so that a moment of the run is at the same place in each.
  double x_lo = INFINITY, x_hi = -INFINITY;
  for (const Panel& p : plan.panels)
    for (const Line& l : p.lines)
      for (double x : l.x) x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
  if (plan.time_axis) x_lo = std::min(x_lo, 0.0);
  if (x_lo < x_hi) s += fmt::format("set xrange [{}:{}]\n", x_lo, x_hi);
  int index = 0;
  for (int i = 0; i < n; ++i) {
    const Panel& p = plan.panels[i];
    const int row = i / cols, col = i % cols;
    s += fmt::format("set origin {:.5f}, {:.5f}\n", static_cast<double>(col) / cols,
                     static_cast<double>(caption_h + (rows - 1 - row) * panel_h) / height);
    s += fmt::format("set title {}\n", gp_quote(p.title));
    s += fmt::format("set ylabel {}\n", gp_quote(p.ylabel));
    s += log_scale(p) ? "set logscale y\n" : "unset logscale y\n";
    s += "unset arrow\n";
    s += p.lines.size() > 1 ? "set key\n" : "unset key\n";  // a lone series is named by the panel title
    if (p.base == "rho")  // the usual thresholds of the Levenberg-Marquardt rule for λ
      for (double r : {0.25, 0.75})
        s += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lc rgb 'gray50'\n", r);
    s += "plot ";
    for (size_t j = 0; j < p.lines.size(); ++j) {
      const Line& l = p.lines[j];
      // Sparse series get point markers so that a single point is still visible; validation stands out.
      std::string style = l.x.size() <= 50 ? "linespoints pt 7 ps 0.6" : "lines";
      // One colour per data part in every panel: training 1, validation 2 (drawn heavier), test 3.
      const std::string part = data_part(l.key);
      const size_t colour = part == "validation" ? 2 : part == "test" ? 3 : part == "training" ? 1 : 4 + j;
      const double lw = part == "validation" ? 2 : 1.2;
      s += fmt::format("{}{} index {} using 1:2 with {} lw {} lc {} title {}", j ? ", " : "", gp_quote(data), index++,
                       style, lw, colour, gp_quote(l.label));
    }
    s += "\n";
    if (i == 0) s += "unset label\n";
  }
  s += "unset multiplot\nset output\n";
  return s;
}

// Runs gnuplot on the script; throws with its last message when it fails.
void run_gnuplot(const std::string& gnuplot, const fs::path& script) {
  std::string cmd = sh_quote(gnuplot) + " " + sh_quote(script.string()) + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw Error(fmt::format("cannot run gnuplot: {}", std::strerror(errno)));
  std::string output;
  char chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, p)) > 0;)
    if (output.size() < (1 << 16)) output.append(chunk, n);
  int status = ::pclose(p);
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string last;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t^") != std::string::npos) last = line;
  if (status != -1 && WIFEXITED(status))
    throw Error(fmt::format("gnuplot failed (exit {}): {}", WEXITSTATUS(status), last.empty() ? "no message" : last));
  throw Error(fmt::format("gnuplot failed: {}", last.empty() ? "killed by a signal" : last));
}

// The x axis: the first of these a record has.
constexpr const char* kStepKeys[] = {"step", "iteration", "iter"};

}  // namespace

Metrics read_metrics(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(fmt::format("{}: no such file", path));
  std::string text = read_text(path);
  Metrics m;
  m.x_key = "record";
  std::map<std::string, size_t> series_of;  // key -> index in m.series
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    bool complete = nl != std::string::npos;
    std::string line = text.substr(at, complete ? nl - at : std::string::npos);
    at = complete ? nl + 1 : text.size();
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    nlohmann::ordered_json j;
    try {
      j = parse_json<nlohmann::ordered_json>(line, path);
    } catch (const nlohmann::json::exception& e) {
      if (!complete) {
        std::fprintf(stderr, "tapegrad plot: warning: %s:%zu: ignoring an incomplete last line (is the run still writing?)\n",
                     path.c_str(), line_no);
        break;
      }
      throw Error(fmt::format("{}:{}: not valid JSON: {}", path, line_no, json_reason(e.what())));
    }
    if (!j.is_object()) throw Error(fmt::format("{}:{}: expected a JSON object, found {}", path, line_no, j.type_name()));
    ++m.records;
    double x = static_cast<double>(m.records);
    for (const char* counter : kStepKeys)
      if (auto c = j.find(counter); c != j.end() && c->is_number()) {
        x = c->get<double>();
        if (m.x_key == "record") m.x_key = counter;
        break;
      }
    for (const auto& [key, value] : j.items()) {
      bool is_step = std::find(std::begin(kStepKeys), std::end(kStepKeys), key) != std::end(kStepKeys);
      if (is_step || !value.is_number()) continue;  // is_number: not bool, null, strings
      double y = value.get<double>();
      if (!std::isfinite(y)) continue;
      auto [it, added] = series_of.emplace(key, m.series.size());
      if (added) m.series.push_back(MetricSeries{key, {}, {}});
      m.series[it->second].x.push_back(x);
      m.series[it->second].y.push_back(y);
    }
  }
  if (m.records == 0) throw Error(fmt::format("{}: empty: no logged steps", path));
  if (m.series.empty()) throw Error(fmt::format("{}: no numeric metrics besides 'step'", path));
  return m;
}

namespace {
// Checks that the PNG's directory exists, then has gnuplot draw `script_of(data, drawn)` into a file
// of a private temporary directory, and writes that PNG to `png` with the atomic writer: a failed or
// interrupted plot never leaves a half-written PNG under the real name, and the output path never
// enters the gnuplot script.
template <class ScriptOf>
std::string render_png(const std::string& png, const std::string& data_text, ScriptOf script_of) {
  std::error_code ec;
  fs::path out_dir = fs::path(png).parent_path();
  if (!out_dir.empty() && !fs::is_directory(out_dir, ec))
    throw Error(fmt::format("{}: directory '{}' does not exist", png, out_dir.string()));
  std::string gnuplot = find_gnuplot();
  TempDir tmp;
  fs::path data = tmp / "metrics.dat", script = tmp / "curves.gp", drawn = tmp / "curves.png";
  write_file(data, data_text);
  write_file(script, script_of(data.string(), drawn.string()));
  run_gnuplot(gnuplot, script);
  std::ifstream in(drawn, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 8 || std::memcmp(bytes.data(), "\x89PNG\r\n\x1a\n", 8) != 0)
    throw Error(fmt::format("{}: gnuplot did not write a PNG", png));
  write_file_atomically(png, bytes);
  return png;
}

void require_run_dir(const std::string& run_dir) {
  std::error_code ec;
  if (!fs::exists(run_dir, ec)) throw Error(fmt::format("run directory '{}' does not exist", run_dir));
  if (!fs::is_directory(run_dir, ec)) throw Error(fmt::format("'{}' is not a directory (--run wants a run directory)", run_dir));
}

// A run's model, task and optimizer for titles and labels. The config is optional here: a copied
// metrics.jsonl still plots, with generic names.
RunInfo read_run_info(const std::string& run_dir) {
  const std::string path = (fs::path(run_dir) / "config.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  try {
    const nlohmann::json j = parse_json(read_text(path), path);
    if (!j.is_object()) return {};
    auto text = [&](const char* key) {
      auto it = j.find(key);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    return {text("model"), text("task"), text("optimizer")};
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tapegrad plot: warning: %s: not read (%s); plotting without it\n", path.c_str(), e.what());
    return {};
  }
}

// "RUN: lstm on text, adam"
std::string run_title(const std::string& run_dir, const RunInfo& run) {
  std::string t = run_dir;
  if (!run.model.empty() && !run.task.empty())
    t += fmt::format(": {} on {}{}", run.model, run.task, run.optimizer.empty() ? "" : ", " + run.optimizer);
  return t;
}

// The lines of a run's plot: the measure and the loss by default, else every changing metric or the
// named ones; the rest goes to the caption.
Plan plan_run(const Metrics& m, const RunInfo& run, const PlotSelection& what, const std::string& file) {
  XAxis axis = x_axis(m, what.x, file);
  for (const std::string& key : what.metrics)
    if (!find_series(m, key)) {
      std::vector<std::string> keys;
      for (const MetricSeries& s : m.series) keys.push_back(s.key);
      throw Error(fmt::format("{}: no metric '{}' (logged: {})", file, key, fmt::join(keys, ", ")));
    }
  std::vector<Line> drawn;
  std::vector<std::string> constants, undrawn;
  auto wanted_by_default = [](const std::string& key) {
    const std::string base = base_name(key);
    return is_measure(base) || (base == "loss" && !data_part(key).empty());  // not HF's new_loss
  };
  bool any_default = false;
  for (const MetricSeries& s : m.series) any_default = any_default || wanted_by_default(s.key);
  const bool all = what.all || (what.metrics.empty() && !any_default);  // nothing to show first: show all
  for (const MetricSeries& s : m.series) {
    if (s.key == axis.key) continue;
    const bool named = std::find(what.metrics.begin(), what.metrics.end(), s.key) != what.metrics.end();
    bool draw = what.metrics.empty() ? all || wanted_by_default(s.key) : named;
    // A setting that never changes is a number, not a curve; the default pair is drawn even when flat.
    if (draw && !named && constant(s) && !wanted_by_default(s.key)) draw = false;
    if (draw) {
      Line l = line_of(s, axis);
      if (l.x.empty())
        throw Error(fmt::format("{}: '{}' and '{}' are never logged together", file, s.key, axis.key));
      drawn.push_back(std::move(l));
    } else if (constant(s)) {
      constants.push_back(fmt::format("{} {:.6g}", s.key, s.y.front()));
    } else {
      undrawn.push_back(s.key);
    }
  }
  Plan plan;
  plan.xlabel = axis.name;
  plan.time_axis = axis.time;
  if (axis.time) {
    std::vector<Line*> lines;
    for (Line& l : drawn) lines.push_back(&l);
    plan.xlabel += " (" + scale_time(lines) + ")";
  }
  plan.panels = make_panels(std::move(drawn), run);
  // Characters per caption line: about 7.5 px each in the 10-point font of 560 px panels.
  const size_t n = plan.panels.size();
  const size_t width = (n == 1 ? 560 : n <= 4 ? 1120 : 1680) * 2 / 15;
  if (!undrawn.empty()) {
    auto lines = wrap("also logged (tapegrad plot --all, or --metrics a,b):", undrawn, width);
    plan.caption.insert(plan.caption.end(), lines.begin(), lines.end());
  }
  if (!constants.empty()) {
    auto lines = wrap("constant:", constants, width);
    plan.caption.insert(plan.caption.end(), lines.begin(), lines.end());
  }
  return plan;
}
}  // namespace

std::string plot_run(const std::string& run_dir, const std::string& out_png, const PlotSelection& what) {
  require_run_dir(run_dir);
  const std::string file = (fs::path(run_dir) / "metrics.jsonl").string();
  Metrics m = read_metrics(file);
  const RunInfo run = read_run_info(run_dir);
  std::string png = out_png.empty() ? (fs::path(run_dir) / "curves.png").string() : out_png;
  Plan plan = plan_run(m, run, what, file);
  plan.title = run_title(run_dir, run);
  return render_png(png, data_blocks(plan.panels), [&](const std::string& data, const std::string& drawn) {
    return gnuplot_script(plan, data, drawn);
  });
}

namespace {
// A whole-string finite number, or nothing (strtod: no library parses a double more plainly).
std::optional<double> finite_number(const std::string& text) {
  // strtod skips leading blanks but stops at trailing ones: refuse both alike
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  // ERANGE with a finite result is an underflow (1e-400 reads as 0 or a denormal): a number, if a tiny one
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}
}  // namespace

ReferenceLine parse_reference_line(const std::string& text) {
  const size_t eq = text.find('=');
  const std::string number = text.substr(0, eq);
  const std::optional<double> y = finite_number(number);
  if (!y) throw Error(fmt::format("--hline: '{}' is not Y or Y=LABEL with Y a finite number", text));
  return ReferenceLine{*y, eq == std::string::npos ? fmt::format("y = {}", number) : text.substr(eq + 1)};
}

YRange parse_y_range(const std::string& text) {
  const size_t colon = text.find(':');
  const auto bad = [&](const std::string& why) {
    return Error(fmt::format("--y-range: '{}' {} (give LO:HI, e.g. 0:0.2, or one end: :0.2)", text, why));
  };
  if (colon == std::string::npos) throw bad("has no ':'");
  const std::string lo_text = text.substr(0, colon), hi_text = text.substr(colon + 1);
  YRange r{finite_number(lo_text), finite_number(hi_text)};
  if ((!lo_text.empty() && !r.lo) || (!hi_text.empty() && !r.hi)) throw bad("has an end that is not a finite number");
  if (!r.lo && !r.hi) throw bad("gives neither end");
  if (r.lo && r.hi && !(*r.lo < *r.hi)) throw bad("is empty: LO must be below HI");
  return r;
}

namespace {
bool inside(double y, const YRange& r) { return (!r.lo || y >= *r.lo) && (!r.hi || y <= *r.hi); }
// One end of a range as text, `open` when it is not given.
std::string end_text(const std::optional<double>& end, const char* open) { return end ? fmt::format("{}", *end) : open; }
}  // namespace

CompareYAxis compare_y_axis(const std::string& y_key, const std::vector<double>& values, const CompareStyle& style) {
  const YRange& range = style.y_range;
  const bool ranged = range.lo || range.hi;
  // The scale is chosen from what the axis shows: a spike outside the range does not make it logarithmic,
  // and a range reaching 0 or below cannot be.
  Line shown;
  for (double y : values)
    if (inside(y, range)) shown.y.push_back(y);
  if (ranged && shown.y.empty())
    throw Error(fmt::format("--y-range '{}:{}': no value of '{}' lies in it (they run from {} to {})",
                            end_text(range.lo, ""), end_text(range.hi, ""), y_key,
                            *std::min_element(values.begin(), values.end()), *std::max_element(values.begin(), values.end())));
  const bool range_reaches_zero = range.lo && !(*range.lo > 0);
  CompareYAxis axis;
  axis.log = style.log_y || (!range_reaches_zero && log_scale(Panel{base_name(y_key), "", "", {shown}}));
  for (const ReferenceLine& r : style.references)
    if (axis.log && !(r.y > 0))
      throw Error(fmt::format("--hline {}: the y axis is logarithmic here, so a reference line needs y > 0", r.y));
  for (const std::optional<double>& end : {range.lo, range.hi})
    if (axis.log && end && !(*end > 0))
      throw Error(fmt::format("--y-range: {} on a logarithmic y axis (--log-y); its ends must be > 0", *end));
  if (axis.log) axis.gnuplot += "set logscale y\n";
  if (ranged)  // "*" leaves an end to autoscale; "clip two" still draws a segment whose both ends are outside
    axis.gnuplot += fmt::format("set yrange [{}:{}]\nset clip two\n", end_text(range.lo, "*"), end_text(range.hi, "*"));
  return axis;
}

std::string off_axis_note(double y, const YRange& range) {
  if (range.hi && y > *range.hi) return " (above the axis)";
  if (range.lo && y < *range.lo) return " (below the axis)";
  return "";
}

std::string plot_compare(const std::vector<std::string>& run_dirs, const std::string& y_key, const std::string& x_key,
                         const std::string& out_png, const CompareStyle& style) {
  if (run_dirs.empty()) throw Error("plot: no runs to compare");
  if (out_png.empty()) throw Error("plot: comparing runs needs an output file (-o FILE.png)");
  for (const std::string& label : style.labels)
    if (label.empty()) throw Error("plot: --label is empty; a run needs a name in the key");
  if (!style.labels.empty() && style.labels.size() != run_dirs.size())
    throw Error(fmt::format("plot: {} --label for {} --run; give one per run, in the same order", style.labels.size(),
                            run_dirs.size()));
  std::vector<Line> lines;  // one per run
  std::set<std::string> measures, x_names;
  bool time = false;
  for (const std::string& dir : run_dirs) {
    require_run_dir(dir);
    const std::string file = (fs::path(dir) / "metrics.jsonl").string();
    Metrics m = read_metrics(file);
    const MetricSeries* y = find_series(m, y_key);
    if (!y) throw Error(fmt::format("{}: no metric '{}'", file, y_key));
    const XAxis axis = x_axis(m, x_key.empty() ? "seconds" : x_key, file);
    Line l = line_of(*y, axis);
    if (l.x.empty())
      throw Error(fmt::format("{}: '{}' and '{}' are never logged together", file, y_key, axis.key.empty() ? m.x_key : axis.key));
    time = axis.time;
    x_names.insert(axis.name);
    const RunInfo run = read_run_info(dir);
    measures.insert(panel_title(base_name(y_key), run));
    const std::string name = fs::path(dir).filename().string().empty() ? dir : fs::path(dir).filename().string();
    l.label = !style.labels.empty() ? style.labels[lines.size()]
              : run.model.empty()  ? name
                                   : fmt::format("{} ({}, {})", name, run.model, run.optimizer);
    lines.push_back(std::move(l));
  }
  Plan plan;
  plan.xlabel = fmt::format("{}", fmt::join(x_names, " / "));
  if (time) {
    std::vector<Line*> all;
    for (Line& l : lines) all.push_back(&l);
    plan.xlabel += " (" + scale_time(all) + ")";
  }
  // The y axis by the runs' measure when they share one ("validation bits per character"), else the key.
  std::string ylabel = measures.size() == 1 ? *measures.begin() : y_key;
  std::string title = ylabel;
  if (data_part(y_key) == "validation" && measures.size() == 1) title = "validation " + ylabel;
  plan.title = title;
  plan.panels.push_back(Panel{base_name(y_key), "", ylabel, std::move(lines)});
  std::vector<double> values;
  for (const Line& l : plan.panels[0].lines) values.insert(values.end(), l.y.begin(), l.y.end());
  const CompareYAxis y_axis = compare_y_axis(y_key, values, style);
  std::string data;
  for (size_t r = 0; r < plan.panels[0].lines.size(); ++r) {
    const Line& l = plan.panels[0].lines[r];
    data += fmt::format("# run {}\n", r + 1);
    for (size_t i = 0; i < l.x.size(); ++i) data += fmt::format("{} {}\n", l.x[i], l.y[i]);
    data += "\n\n";
  }
  return render_png(out_png, data, [&](const std::string& data_file, const std::string& drawn) {
    const auto& ls = plan.panels[0].lines;
    // The key beside the plot: inside, even an opaque one hides whatever curve passes under it (a run's
    // plateau under a top-right key). Past gnuplot's 8 colours each run keeps a look of its own: colour,
    // then dash and marker, change with the run's number.
    std::string s = "set encoding utf8\n";
    s += fmt::format(kTerminal, 1150, 600);
    s += fmt::format("set output {}\n", gp_quote(drawn));
    s += fmt::format("set grid\nset key outside right top\nset title {}\nset xlabel {}\nset ylabel {}\n",
                     gp_quote(plan.title), gp_quote(plan.xlabel), gp_quote(ylabel));
    s += y_axis.gnuplot;
    s += "plot ";
    constexpr int kMarkers[] = {7, 5, 9, 11};  // circle, square, triangle, diamond (filled)
    for (size_t r = 0; r < ls.size(); ++r) {
      const size_t cycle = r / 8;
      std::string style = ls[r].x.size() <= 50 ? fmt::format("linespoints pt {} ps 0.6", kMarkers[cycle % 4]) : "lines";
      s += fmt::format("{}{} index {} using 1:2 with {} lw 1.5 lc {} dt {} title {}", r ? ", " : "", gp_quote(data_file), r,
                       style, r % 8 + 1, cycle % 5 + 1, gp_quote(ls[r].label));
    }
    // A constant function: gnuplot spans it over the x range. Grey, so no run's colour is taken; each line a
    // dash of its own (dashed, dotted, dash-dot, dash-dot-dot), so the key tells two lines apart.
    for (size_t i = 0; i < style.references.size(); ++i) {
      const ReferenceLine& r = style.references[i];
      s += fmt::format(", {} with lines dt {} lw 1.5 lc rgb 'gray35' title {}", r.y, 2 + i % 4,
                       gp_quote(r.label + off_axis_note(r.y, style.y_range)));
    }
    s += "\nset output\n";
    return s;
  });
}

std::string render_gnuplot_png(const std::string& png, const std::string& data_text, const GnuplotScript& script_of) {
  return render_png(png, data_text, script_of);
}
std::string gnuplot_quote(const std::string& s) { return gp_quote(s); }
std::string gnuplot_terminal(int width, int height) { return fmt::format(kTerminal, width, height); }

}  // namespace tg
