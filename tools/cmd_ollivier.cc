// tapegrad ollivier: Ollivier's Riemannian training (seed 003, riemannian/) of the GLNN, GNN
// and classical RNN on his synthetic tasks, one run or a Table-1-style grid at an equal CPU budget per
// run. Every run goes through the common trainer (tapegrad train --optimizer riemannian) into a run
// directory, so it checkpoints and resumes like any other. Data: one training and one validation
// sequence drawn from the task with --data-seed (the same for every run of a grid); the model's graph
// and initialisation use --seed. Prints every validation scoring (one run) and the best cumulative
// regret over the trajectory (early stopping), in bits.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <malloc.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "tasks/task.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/trainer.h"

namespace tg::cli {

namespace {
namespace fs = std::filesystem;

struct Args {
  std::string task = "anbn", options, model = "glnn", writing = "qdh", transition = "rbpm", graph = "out";
  std::string grid_tasks, grid_sizes = "4,8,16", rows, out;
  int64_t units = 8, degree = 3, max_passes = 0, patience = 0, sample = 0, line_batch = 0, checkpoint_every = 10;
  uint64_t seed = 1, data_seed = 1;
  double budget = 60, eps = 1, stop_error = -1;
  bool grid = false, quiet = false, resume = false;
};

nlohmann::json parse_options(const std::string& s) {
  if (s.empty()) return nlohmann::json::object();
  nlohmann::json j = parse_json(s, "--options", false);
  if (j.is_discarded() || !j.is_object())
    throw Error(fmt::format("--options must be a JSON object, like '{{\"pairs\": 10}}' (got '{}')", s));
  return j;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream in(s);
  std::string x;
  while (std::getline(in, x, ','))
    if (!x.empty()) r.push_back(x);
  return r;
}

// The run of one model and method as a training run: one round (w-step, tau-step, scoring) per
// iteration, the CPU budget as the run's, no validation of the trainer's own (every round scores the
// validation sequence).
RunConfig run_config(const Args& a, const std::string& task, const nlohmann::json& task_options,
                     const std::string& model, int64_t units, const std::string& writing, const std::string& transition) {
  RunConfig c;
  c.model = model;
  c.model_options = {{"units", units}, {"degree", a.degree}, {"graph", a.graph}};
  c.task = task;
  c.task_options = task_options;
  c.optimizer = "riemannian";
  c.optimizer_options = {{"writing", writing},       {"transition", transition}, {"eps", a.eps},
                         {"line_batch", a.line_batch}, {"data_seed", a.data_seed}, {"patience", a.patience},
                         {"stop_error", a.stop_error}};
  c.seed = a.seed;
  c.dtype = "float64";
  c.steps = a.max_passes > 0 ? (a.max_passes + 1) / 2 : 1'000'000'000;  // two passes a round
  c.cpu_budget = a.budget;
  c.batch = 1;
  c.eval_every = 0;
  c.eval_batch = 1;
  c.checkpoint_every = a.checkpoint_every;
  c.threads = 1;  // Ollivier's small graphs: one thread, as the recorded grid ran
  return c;
}

std::vector<nlohmann::json> read_metrics(const std::string& dir) {
  std::ifstream in(dir + "/metrics.jsonl");
  std::vector<nlohmann::json> rows;
  std::string line;
  while (std::getline(in, line)) rows.push_back(parse_json(line, dir + "/metrics.jsonl"));
  return rows;
}

// Characters drawn from the model given everything drawn so far (one unroll per character).
std::string sample_text(models::Model& m, const tasks::Signature& sig, int64_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<int32_t> xs = {0};  // "\n" (every alphabet here starts with it)
  std::string text;
  for (int64_t k = 0; k < count; ++k) {
    models::Sequence seq;
    seq.T = static_cast<int64_t>(xs.size());
    seq.B = 1;
    for (int32_t x : xs) seq.symbols.push_back(ops::make_index({x}));
    Graph g;
    models::Outputs out = m.unroll(g, seq);
    const Tensor z = out.logits.back().value();
    std::vector<double> p(z.size());
    double top = -INFINITY, sum = 0;
    for (int64_t i = 0; i < z.size(); ++i) top = std::max(top, z.at(i));
    for (int64_t i = 0; i < z.size(); ++i) sum += p[i] = std::exp(z.at(i) - top);
    std::uniform_real_distribution<double> U(0, sum);
    double r = U(rng);
    int32_t c = 0;
    while (c + 1 < static_cast<int32_t>(p.size()) && r >= p[c]) r -= p[c++];
    xs.push_back(c);
    text += sig.alphabet[c];
  }
  return text;
}

std::string method_name(const std::string& model, const std::string& w, const std::string& tau) {
  std::string up_w = w == "qdh" ? "QDH" : "DH";
  std::string t = tau;
  for (char& ch : t) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string m = model == "ollivier_rnn" ? "RNN" : model == "glnn" ? "GLNN" : "GNN";
  return fmt::format("{} with {} and {}", m, up_w, t);
}

// Without --out the run lives in a temporary directory, removed at the end.
struct TemporaryDirectory {
  fs::path path = fs::temp_directory_path() / fmt::format("tapegrad-ollivier-{}", ::getpid());
  ~TemporaryDirectory() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

int run_one(Args a) {
  if (a.resume && a.out.empty()) throw Error("ollivier --resume: name the run with --out DIR");
  std::optional<TemporaryDirectory> temporary;
  if (a.out.empty()) a.out = temporary.emplace().path.string();
  const RunConfig cfg = run_config(a, a.task, parse_options(a.options), a.model, a.units, a.writing, a.transition);
  const int code = train(cfg, {a.out, a.resume, a.quiet});
  if (code != 0) return code;
  const std::vector<nlohmann::json> rows = read_metrics(a.out);
  if (rows.empty()) throw Error(fmt::format("ollivier: {} has no scorings", a.out));
  fmt::print("# task {} {}; {} N={} degree={} graph={}; w: {}, tau: {}; budget {} CPU s{}\n", a.task,
             parse_options(a.options).dump(), a.model, a.units, a.degree, a.graph, a.writing, a.transition, a.budget,
             a.line_batch > 0 ? fmt::format("; lines from the start state, {} per unroll", a.line_batch) : "");
  std::fflush(stdout);
  if (!a.quiet) {
    fmt::print("{:>6} {:>8} {:>14} {:>12} {:>10} {:>8} {:>9} {:>9}\n", "pass", "cpu_s", "train_LL_bits", "valid_bits",
               "regret", "error", "eta_w", "eta_tau");
    const nlohmann::json& r0 = rows.front();
    fmt::print("{:>6} {:>8.1f} {:>14.1f} {:>12.1f} {:>10.1f} {:>8.4f} {:>9.3g} {:>9.3g}\n", 0, 0.0,
               r0["initial_train_ll_bits"].get<double>(), r0["initial_valid_bits"].get<double>(),
               r0["initial_regret"].get<double>(), r0["initial_error"].get<double>(), 1.0 / static_cast<double>(a.units),
               1.0 / static_cast<double>(a.units));
    for (const nlohmann::json& r : rows)
      fmt::print("{:>6} {:>8.1f} {:>14.1f} {:>12.1f} {:>10.1f} {:>8.4f} {:>9.3g} {:>9.3g}\n", r["passes"].get<int64_t>(),
                 r["cpu_seconds"].get<double>(), r["train_ll_bits"].get<double>(), r["valid_bits"].get<double>(),
                 r["regret"].get<double>(), r["error"].get<double>(), r["eta_w"].get<double>(),
                 r["eta_tau"].get<double>());
  }
  const nlohmann::json& last = rows.back();
  const double true_bits = last["valid_bits"].get<double>() - last["regret"].get<double>();
  fmt::print("best: pass {} valid LL {:.1f} bits, true {:.1f}, regret {:.1f} bits, error {:.4f} (rejected steps: w {}, "
             "tau {}; passes {}; {:.1f} CPU s)\n",
             last["best_pass"].get<int64_t>(), -last["best_valid_bits"].get<double>(), -true_bits,
             last["best_regret"].get<double>(), last["best_error"].get<double>(), last["rejected_w"].get<int64_t>(),
             last["rejected_tau"].get<int64_t>(), last["passes"].get<int64_t>(), last["cpu_seconds"].get<double>());
  if (a.sample > 0) {
    RunSetup run = make_run(
        as_recorded_before_options(run_config_from_json(read_json_file(a.out + "/config.json"), a.out + "/config.json")));
    models::Model& m = run.sequence_objective("ollivier --sample").model();
    const Checkpoint c = load_checkpoint(a.out + "/checkpoint.npz", m.params());
    for (const auto& [name, v] : c.optimizer_vectors)
      if (name == "best_params") m.params().set_values(v);
    fmt::print("sample (best parameters, seed {}):\n{}\n", a.seed,
               sample_text(m, run.train->signature(), a.sample, a.seed));
  }
  return 0;
}

// Table 1's rows that this implementation has (no LSTM, HMM, CTW, bzip2).
struct Row {
  const char* model;
  const char* writing;
  const char* transition;
  const char* section;
};
const Row kRows[] = {
    {"ollivier_rnn", "dh", "fb", "Non-invariant methods"}, {"ollivier_rnn", "dh", "rms", "Non-invariant methods"},
    {"gnn", "dh", "fb", "Non-invariant methods"},          {"glnn", "dh", "fb", "Non-invariant methods"},
    {"ollivier_rnn", "qdh", "qd-ruop", "Invariant methods"}, {"ollivier_rnn", "qdh", "qd-rbpm", "Invariant methods"},
    {"gnn", "qdh", "ruop", "Invariant methods"},           {"gnn", "qdh", "rbpm", "Invariant methods"},
    {"glnn", "qdh", "ruop", "Invariant methods"},          {"glnn", "qdh", "rbpm", "Invariant methods"},
};

int run_grid(const Args& a) {
  std::vector<std::string> task_names = split(a.grid_tasks.empty() ? a.task : a.grid_tasks);
  std::vector<int64_t> sizes;
  for (const std::string& item : split(a.grid_sizes)) {
    const size_t first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
    const std::string s = first == std::string::npos ? "" : item.substr(first, last - first + 1);  // "4, 8"
    int64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size() || n < 1 || n > 1'000'000)
      throw Error(fmt::format("--sizes: '{}' is not a network size (a whole number in [1, 1000000])", s));
    sizes.push_back(n);
  }
  if (sizes.empty()) throw Error("--sizes: no network size given");
  std::vector<std::string> models_kept = split(a.model), rows_kept = split(a.rows);
  for (const std::string& wanted : rows_kept) {  // a misspelt row would silently run nothing
    const bool known = std::any_of(std::begin(kRows), std::end(kRows), [&](const Row& r) {
      return wanted == fmt::format("{}:{}:{}", r.model, r.writing, r.transition);
    });
    if (!known) {
      std::string all;
      for (const Row& r : kRows) all += fmt::format("{}{}:{}:{}", all.empty() ? "" : ", ", r.model, r.writing, r.transition);
      throw Error(fmt::format("--rows: '{}' is not a row of Table 1 here (rows: {})", wanted, all));
    }
  }
  auto kept = [&](const Row& r) {
    if (std::find(models_kept.begin(), models_kept.end(), r.model) == models_kept.end()) return false;
    const std::string spec = fmt::format("{}:{}:{}", r.model, r.writing, r.transition);
    return rows_kept.empty() || std::find(rows_kept.begin(), rows_kept.end(), spec) != rows_kept.end();
  };
  std::vector<std::vector<std::string>> cells(std::size(kRows), std::vector<std::string>(task_names.size(), "-"));
  const nlohmann::json options = parse_options(a.options);
  // Every cell is a run directory under --out (a killed grid continues where it stopped), or under a
  // temporary directory removed at the end.
  std::optional<TemporaryDirectory> temporary;
  const fs::path root = a.out.empty() ? temporary.emplace().path : fs::path(a.out);
  for (size_t c = 0; c < task_names.size(); ++c) {
    // --options apply to the first task only when the grid has several (each task has its own keys).
    const nlohmann::json task_options = c == 0 ? options : nlohmann::json::object();
    for (size_t r = 0; r < std::size(kRows); ++r) {
      if (!kept(kRows[r])) continue;
      double best = INFINITY;
      int64_t best_size = 0;
      for (int64_t n : sizes) {
        const fs::path dir = root / task_names[c] /
                             fmt::format("{}-{}-{}-N{}", kRows[r].model, kRows[r].writing, kRows[r].transition, n);
        const RunConfig cfg = run_config(a, task_names[c], task_options, kRows[r].model, n, kRows[r].writing,
                                         kRows[r].transition);
        const bool resume = fs::exists(dir / "checkpoint.npz");
        if (const int code = train(cfg, {dir.string(), resume, true}); code != 0) return code;
        const std::vector<nlohmann::json> rows = read_metrics(dir.string());
        if (rows.empty()) throw Error(fmt::format("ollivier: {} has no scorings", dir.string()));
        const nlohmann::json& last = rows.back();
        fmt::print("# {} | {} | N={} : best regret {:.1f} bits at pass {} ({:.0f} CPU s, {} passes)\n", task_names[c],
                   method_name(kRows[r].model, kRows[r].writing, kRows[r].transition), n,
                   last["best_regret"].get<double>(), last["best_pass"].get<int64_t>(),
                   last["cpu_seconds"].get<double>(), last["passes"].get<int64_t>());
        std::fflush(stdout);
        if (last["best_regret"].get<double>() < best) best = last["best_regret"].get<double>(), best_size = n;
      }
      cells[r][c] = fmt::format("{:.1f} (N={})", best, best_size);
    }
  }
  fmt::print("\nCumulative regret in bits (best over sizes {} and over the trajectory; {} CPU s per run; data seed {}, "
             "model seed {})\n",
             a.grid_sizes, a.budget, a.data_seed, a.seed);
  std::string head = fmt::format("{:<34}", "Method");
  for (const std::string& t : task_names) head += fmt::format(" {:>18}", t);
  fmt::print("{}\n", head);
  const char* section = "";
  for (size_t r = 0; r < std::size(kRows); ++r) {
    if (!kept(kRows[r])) continue;
    if (std::string(section) != kRows[r].section) fmt::print("--- {} ---\n", section = kRows[r].section);
    std::string line = fmt::format("{:<34}", method_name(kRows[r].model, kRows[r].writing, kRows[r].transition));
    for (const std::string& cell : cells[r]) line += fmt::format(" {:>18}", cell);
    fmt::print("{}\n", line);
  }
  return 0;
}
}  // namespace

Run add_ollivier(CLI::App& app) {
  auto a = std::make_shared<Args>();
  app.add_option("--task", a->task, "alphabet | music | distant_xor | anbn")->check(non_empty_name());
  app.add_option("--options", a->options, "task options as a JSON object, e.g. '{\"pairs\": 10}'");
  app.add_option("--model", a->model, "glnn | gnn | ollivier_rnn (grid: a comma list of the models to run)")->check(non_empty_name());
  app.add_option("--units", a->units, "network size N")->check(integer_in(1, 1'000'000));
  app.add_option("--degree", a->degree, "edges per unit, the self-loop included (0: the paper's semi-sparse d)")
      ->check(integer_in(0, 1'000'000));
  app.add_option("--graph", a->graph, "out | in | full");
  app.add_option("--writing", a->writing, "qdh | dh");
  app.add_option("--transition", a->transition, "rbpm | ruop | qd-rbpm | qd-ruop | fb | rms | bptt");
  app.add_option("--eps", a->eps, "damping of the transition metric")->check(positive_number());
  app.add_option("--budget-seconds", a->budget, "CPU seconds per run")->check(positive_number());
  app.add_option("--max-passes", a->max_passes, "gradient passes per run (w-steps + tau-steps, two a round: rounds = ceil(P / 2)); 0 = no limit")
      ->check(integer_in(0, INT64_MAX));
  app.add_option("--patience", a->patience, "stop after this many validation scorings without improvement; 0 = never")
      ->check(integer_in(0, INT64_MAX));
  app.add_option("--stop-error", a->stop_error, "stop once the task's error rate is below this on the validation sequence and on 10,000 fresh scored targets (distant XOR: 0.01)")
      ->check(number_in(-1.0, 1.0));
  app.add_option("--line-batch", a->line_batch,
                 "K > 0: cut the sequences into lines, each from the start state, K lines per unroll "
                 "(tasks with independent lines: distant_xor, alphabet); 0 = one sequence (the paper)")
      ->check(integer_in(0, INT64_MAX));
  app.add_option("--out", a->out,
                 "one run: its run directory (config, metrics, checkpoints; tapegrad plot/eval read it); grid: the "
                 "directory of every cell's run (default: a temporary one); a grid continues the cells it finds");
  app.add_option("--checkpoint-every", a->checkpoint_every, "rounds (w-step, tau-step, scoring) between checkpoints")
      ->check(integer_in(1, INT64_MAX));
  app.add_flag("--resume", a->resume,
               "one run: continue the run in --out (same task, data, model and methods; --budget-seconds and "
               "--max-passes may change)");
  app.add_option("--seed", a->seed, "seed of the graph and the initialisation")->check(unsigned_in(0, UINT64_MAX));
  app.add_option("--data-seed", a->data_seed, "seed of the training and validation sequences")
      ->check(unsigned_in(0, UINT64_MAX));
  app.add_option("--sample", a->sample, "characters to sample from the best parameters at the end")
      ->check(integer_in(0, 1'000'000));
  app.add_flag("--quiet", a->quiet, "print only the result line");
  app.add_flag("--grid", a->grid, "run Table 1's rows over --sizes and print the table");
  app.add_option("--tasks", a->grid_tasks, "grid: comma list of tasks (default: --task)");
  app.add_option("--sizes", a->grid_sizes, "grid: comma list of network sizes");
  app.add_option("--rows", a->rows, "grid: comma list of rows to run as model:writing:transition (default: all)");
  return [a] {
    // Each pass builds and frees a tape of ~10^6 small nodes; glibc's fastbin consolidation then takes
    // about a third of the time. Without fastbins the same run is ~30% faster (measured with perf).
    mallopt(M_MXFAST, 0);
    if (a->grid && a->resume) throw Error("--resume: one run only (a grid continues the cells it finds in --out)");
    if (a->grid) return run_grid(*a);
    return run_one(*a);
  };
}

}  // namespace tg::cli
