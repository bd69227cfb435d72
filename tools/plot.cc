// tapegrad plot: metrics.jsonl -> a grid of gnuplot panels in one PNG.
#include "tools/plot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json.h"

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

// One panel: the series sharing a base name ("loss", "valid_loss" and "test_loss" share "loss").
struct Panel {
  std::string base;
  std::vector<const MetricSeries*> series;
};

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

// Known metrics: their panel order and titles; anything else follows in order of appearance.
struct Known {
  std::string_view base, title;
  bool always_log;  // λ spans decades by design
};
constexpr Known kKnown[] = {
    {"loss", "loss", false},
    {"bpc", "bits per character", false},
    {"error_rate", "error rate", false},
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

std::vector<Panel> make_panels(const Metrics& m) {
  std::vector<Panel> panels;
  for (const MetricSeries& s : m.series) {
    std::string base = base_name(s.key);
    auto it = std::find_if(panels.begin(), panels.end(), [&](const Panel& p) { return p.base == base; });
    if (it == panels.end()) it = panels.insert(panels.end(), Panel{base, {}});
    it->series.push_back(&s);
  }
  auto rank = [](const Panel& p) {
    for (size_t i = 0; i < std::size(kKnown); ++i)
      if (kKnown[i].base == p.base) return i;
    return std::size(kKnown);
  };
  std::stable_sort(panels.begin(), panels.end(), [&](const Panel& a, const Panel& b) { return rank(a) < rank(b); });
  return panels;
}

// Log scale when every value is positive and they span two decades or more (or always, for λ).
bool log_scale(const Panel& p) {
  double lo = INFINITY, hi = -INFINITY;
  for (const MetricSeries* s : p.series)
    for (double y : s->y) lo = std::min(lo, y), hi = std::max(hi, y);
  if (!(lo > 0)) return false;
  const Known* k = known(p.base);
  return (k && k->always_log) || hi / lo >= 100;
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

// The data file: one block per series (gnuplot's `index`), so series logged at different steps each
// draw an unbroken line.
std::string data_blocks(const std::vector<Panel>& panels) {
  std::string d;
  for (const Panel& p : panels)
    for (const MetricSeries* s : p.series) {
      d += fmt::format("# {}\n", s->key);
      for (size_t i = 0; i < s->x.size(); ++i) d += fmt::format("{} {}\n", s->x[i], s->y[i]);
      d += "\n\n";
    }
  return d;
}

std::string gnuplot_script(const std::vector<Panel>& panels, const Metrics& m, const std::string& data,
                           const std::string& png, const std::string& title) {
  int n = static_cast<int>(panels.size());
  int cols = n == 1 ? 1 : n <= 4 ? 2 : 3;
  int rows = (n + cols - 1) / cols;
  int width = cols * 560, height = rows * 380 + 40;
  std::string s;
  s += "set encoding utf8\n";
  // gnuplot-nox has pngcairo; a gnuplot built without cairo still has libgd's png.
  s += fmt::format(
      "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {{ set terminal pngcairo noenhanced size {0},{1} font 'sans,10' }}"
      " else {{ set terminal png noenhanced size {0},{1} }}\n",
      width, height);
  s += fmt::format("set output {}\n", gp_quote(png));
  s += fmt::format("set multiplot layout {},{} title {}\n", rows, cols, gp_quote(title));
  s += "set grid\nset key top right opaque\n";
  s += fmt::format("set xlabel {}\n", gp_quote(m.x_key));
  int index = 0;
  for (const Panel& p : panels) {
    const Known* k = known(p.base);
    s += fmt::format("set title {}\n", gp_quote(k ? std::string(k->title) : p.base));
    s += log_scale(p) ? "set logscale y\n" : "unset logscale y\n";
    s += "unset arrow\n";
    s += p.series.size() > 1 ? "set key\n" : "unset key\n";  // a lone series is named by the panel title
    if (p.base == "rho")  // the usual thresholds of the Levenberg-Marquardt rule for λ
      for (double r : {0.25, 0.75})
        s += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lc rgb 'gray50'\n", r);
    s += "plot ";
    for (size_t i = 0; i < p.series.size(); ++i) {
      const MetricSeries* ser = p.series[i];
      // Sparse series get point markers so that a single point is still visible.
      std::string style = ser->x.size() <= 50 ? "linespoints pt 7 ps 0.6" : "lines";
      s += fmt::format("{}{} index {} using 1:2 with {} lw 1.5 title {}", i ? ", " : "", gp_quote(data), index++,
                       style, gp_quote(ser->key));
    }
    s += "\n";
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

const MetricSeries* find_series(const Metrics& m, const std::string& key) {
  for (const MetricSeries& s : m.series)
    if (s.key == key) return &s;
  return nullptr;
}
}  // namespace

std::string plot_run(const std::string& run_dir, const std::string& out_png) {
  require_run_dir(run_dir);
  Metrics m = read_metrics((fs::path(run_dir) / "metrics.jsonl").string());
  std::string png = out_png.empty() ? (fs::path(run_dir) / "curves.png").string() : out_png;
  std::vector<Panel> panels = make_panels(m);
  return render_png(png, data_blocks(panels), [&](const std::string& data, const std::string& drawn) {
    return gnuplot_script(panels, m, data, drawn, run_dir);
  });
}

std::string plot_compare(const std::vector<std::string>& run_dirs, const std::string& y_key, const std::string& x_key,
                         const std::string& out_png) {
  if (run_dirs.empty()) throw Error("plot: no runs to compare");
  if (out_png.empty()) throw Error("plot: comparing runs needs an output file (-o FILE.png)");
  std::string data;
  std::vector<std::string> series;  // one plot clause per run, without its data file
  for (size_t r = 0; r < run_dirs.size(); ++r) {
    const std::string& dir = run_dirs[r];
    require_run_dir(dir);
    const std::string file = (fs::path(dir) / "metrics.jsonl").string();
    Metrics m = read_metrics(file);
    const MetricSeries* y = find_series(m, y_key);
    if (!y) throw Error(fmt::format("{}: no metric '{}'", file, y_key));
    // x: the step counter itself, or another metric read at the same steps
    std::map<double, double> x_at;
    if (x_key != m.x_key) {
      const MetricSeries* x = find_series(m, x_key);
      if (!x) throw Error(fmt::format("{}: no metric '{}' for the x axis", file, x_key));
      for (size_t i = 0; i < x->x.size(); ++i) x_at[x->x[i]] = x->y[i];
    }
    data += fmt::format("# {}\n", dir);
    size_t points = 0;
    for (size_t i = 0; i < y->x.size(); ++i) {
      double xv = y->x[i];
      if (x_key != m.x_key) {
        auto it = x_at.find(y->x[i]);
        if (it == x_at.end()) continue;
        xv = it->second;
      }
      data += fmt::format("{} {}\n", xv, y->y[i]);
      ++points;
    }
    if (points == 0) throw Error(fmt::format("{}: '{}' and '{}' are never logged together", file, y_key, x_key));
    data += "\n\n";
    std::string style = points <= 50 ? "linespoints pt 7 ps 0.6" : "lines";
    const std::string name = fs::path(dir).filename().string().empty() ? dir : fs::path(dir).filename().string();
    series.push_back(fmt::format("index {} using 1:2 with {} lw 1.5 title {}", r, style, gp_quote(name)));
  }
  return render_png(out_png, data, [&](const std::string& data_file, const std::string& drawn) {
    std::string s = "set encoding utf8\n";
    s += "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo noenhanced size 900,600 font 'sans,10' }"
         " else { set terminal png noenhanced size 900,600 }\n";
    s += fmt::format("set output {}\n", gp_quote(drawn));
    s += fmt::format("set grid\nset key top right opaque\nset xlabel {}\nset ylabel {}\n", gp_quote(x_key), gp_quote(y_key));
    s += "plot ";
    for (size_t r = 0; r < series.size(); ++r) s += fmt::format("{}{} {}", r ? ", " : "", gp_quote(data_file), series[r]);
    s += "\nset output\n";
    return s;
  });
}

}  // namespace tg
