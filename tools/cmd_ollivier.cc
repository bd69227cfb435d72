// tapegrad ollivier: Ollivier's Riemannian training (seed 003, riemannian/) of the GLNN, GNN
// and classical RNN on his synthetic tasks, one run or a Table-1-style grid at an equal CPU budget per
// run. Data: one training and one validation sequence drawn from the task with --data-seed (the same
// for every run of a grid); the model's graph and initialisation use --seed. Prints every validation
// scoring (one run) and the best cumulative regret over the trajectory (early stopping), in bits.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <malloc.h>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "models/ollivier.h"
#include "riemannian/training.h"
#include "tasks/task.h"
#include "tools/commands.h"
#include "tools/ollivier_checkpoint.h"

namespace tg::cli {

namespace {
namespace rm = tg::riemannian;

struct Args {
  std::string task = "anbn", options, model = "glnn", writing = "qdh", transition = "rbpm", graph = "out";
  std::string grid_tasks, grid_sizes = "4,8,16", rows, checkpoint;
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

struct Data {
  std::unique_ptr<tasks::Task> task;
  tasks::Batch train, valid;
};

Data make_data(const std::string& name, const nlohmann::json& options, uint64_t data_seed) {
  Data d;
  d.task = tasks::make(name, options);
  if (d.task->signature().alphabet.empty() || d.task->chance_level() != d.task->chance_level())
    throw Error(fmt::format("ollivier: task '{}' is not one of Ollivier's (alphabet, music, distant_xor, anbn)", name));
  Rng train_rng(data_seed), valid_rng(data_seed + 1'000'003);
  d.train = d.task->sample(1, train_rng);
  d.valid = d.task->sample(1, valid_rng);
  if (d.valid.true_bits.empty()) throw Error(fmt::format("ollivier: task '{}' has no true generator bits", name));
  return d;
}

std::unique_ptr<models::Model> make_model(const Args& a, const std::string& kind, int64_t units, const Data& d) {
  const tasks::Signature sig = d.task->signature();
  std::vector<int32_t> targets, inputs;
  std::vector<double> chi;
  for (int64_t t = 0; t < d.train.steps(); ++t) {
    inputs.push_back((*d.train.inputs.symbols[t])[0]);
    targets.push_back((*d.train.targets.symbols[t])[0]);
    chi.push_back(d.train.targets.mask.empty() ? 1.0 : d.train.targets.mask[t].at(0));
  }
  nlohmann::json cfg = {{"vocab", sig.input_dim}, {"out", sig.output_dim}, {"units", units},
                        {"degree", a.degree},     {"graph", a.graph}};
  cfg.update(models::ollivier::statistics_options(targets, chi, inputs, sig.input_dim, sig.output_dim));
  const models::ModelInfo& info = models::find(kind);
  Rng rng(a.seed);
  return info.make(models::resolve(info, cfg), DType::f64, rng);
}

rm::TrainOptions train_options(const Args& a, const std::string& writing, const std::string& transition) {
  rm::TrainOptions o;
  o.writing = rm::writing_method(writing);
  o.transition = rm::transition_method(transition);
  o.eps = a.eps;
  o.budget_seconds = a.budget;
  o.max_passes = a.max_passes;
  o.patience = a.patience;
  o.stop_error = a.stop_error;
  o.line_batch = a.line_batch;
  return o;
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

// What a checkpoint must match to be resumed: everything that fixes the data, the model and the steps
// (the stopping rules --budget-seconds, --max-passes, --patience, --stop-error may change).
std::string run_identity(const Args& a) {
  const nlohmann::json j = {{"task", a.task},       {"options", parse_options(a.options)},
                            {"model", a.model},     {"units", a.units},
                            {"degree", a.degree},   {"graph", a.graph},
                            {"writing", a.writing}, {"transition", a.transition},
                            {"eps", a.eps},         {"seed", a.seed},
                            {"data_seed", a.data_seed}, {"line_batch", a.line_batch}};
  return j.dump();
}

int run_one(const Args& a) {
  if (a.resume && a.checkpoint.empty()) throw Error("--resume needs --checkpoint PATH (the state to continue)");
  Data d = make_data(a.task, parse_options(a.options), a.data_seed);
  auto m = make_model(a, a.model, a.units, d);
  rm::TrainState saved;
  const bool resuming = a.resume;
  if (!resuming && !a.checkpoint.empty() && std::filesystem::exists(a.checkpoint))
    throw Error(fmt::format("--checkpoint {}: the file exists (continue it with --resume, or remove it)", a.checkpoint));
  if (resuming) {
    saved = load_ollivier_state(a.checkpoint, m->params(), run_identity(a));
    fmt::print("# resumed from {}: pass {}, {:.1f} CPU s, {} scorings\n", a.checkpoint, saved.passes, saved.seconds,
               saved.result.history.size());
  }
  fmt::print("# task {} (train {} steps, valid {} steps, true valid bits {:.1f}); {} N={} degree={} graph={}; "
             "w: {}, tau: {}; budget {} CPU s{}\n",
             a.task, d.train.steps(), d.valid.steps(), d.valid.true_bits[0], a.model, a.units, a.degree, a.graph,
             a.writing, a.transition, a.budget,
             a.line_batch > 0 ? fmt::format("; lines from the start state, {} per unroll", a.line_batch) : "");
  if (!a.quiet) fmt::print("{:>6} {:>8} {:>14} {:>12} {:>10} {:>8} {:>9} {:>9}\n", "pass", "cpu_s", "train_LL_bits",
                           "valid_bits", "regret", "error", "eta_w", "eta_tau");
  rm::TrainOptions opt = train_options(a, a.writing, a.transition);
  opt.checkpoint_every = a.checkpoint.empty() ? 0 : a.checkpoint_every;
  const std::string identity = run_identity(a);
  std::function<void(const rm::TrainState&)> save;
  if (!a.checkpoint.empty())
    save = [&](const rm::TrainState& st) { save_ollivier_state(a.checkpoint, st, identity); };
  rm::TrainResult r = rm::train(*m, *d.task, d.train, d.valid, opt,
                                [&](const rm::Scoring& s) {
                                  if (a.quiet) return;
                                  fmt::print("{:>6} {:>8.1f} {:>14.1f} {:>12.1f} {:>10.1f} {:>8.4f} {:>9.3g} {:>9.3g}\n",
                                             s.pass, s.seconds, s.train_ll_bits, s.valid_bits, s.regret, s.error,
                                             s.eta_w, s.eta_tau);
                                  std::fflush(stdout);
                                },
                                save, resuming ? &saved : nullptr);
  fmt::print("best: pass {} cpu {:.1f}s valid LL {:.1f} bits, true {:.1f}, regret {:.1f} bits, error {:.4f} "
             "(rejected steps: w {}, tau {}; passes {})\n",
             r.best.pass, r.best.seconds, -r.best.valid_bits, -d.valid.true_bits[0], r.best.regret, r.best.error,
             r.rejected_w, r.rejected_tau, r.last.pass);
  if (a.sample > 0) {
    m->params().set_values(r.best_params);
    fmt::print("sample (best parameters, seed {}):\n{}\n", a.seed, sample_text(*m, d.task->signature(), a.sample, a.seed));
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
  for (const std::string& s : split(a.grid_sizes)) sizes.push_back(std::stoll(s));
  if (sizes.empty()) throw Error("--sizes: no network size given");
  std::vector<std::string> models_kept = split(a.model), rows_kept = split(a.rows);
  auto kept = [&](const Row& r) {
    if (std::find(models_kept.begin(), models_kept.end(), r.model) == models_kept.end()) return false;
    const std::string spec = fmt::format("{}:{}:{}", r.model, r.writing, r.transition);
    return rows_kept.empty() || std::find(rows_kept.begin(), rows_kept.end(), spec) != rows_kept.end();
  };
  std::vector<std::vector<std::string>> cells(std::size(kRows), std::vector<std::string>(task_names.size(), "-"));
  const nlohmann::json options = parse_options(a.options);
  for (size_t c = 0; c < task_names.size(); ++c) {
    // --options apply to the first task only when the grid has several (each task has its own keys).
    Data d = make_data(task_names[c], c == 0 ? options : nlohmann::json::object(), a.data_seed);
    for (size_t r = 0; r < std::size(kRows); ++r) {
      if (!kept(kRows[r])) continue;
      double best = INFINITY;
      int64_t best_size = 0;
      for (int64_t n : sizes) {
        auto m = make_model(a, kRows[r].model, n, d);
        rm::TrainResult res = rm::train(*m, *d.task, d.train, d.valid, train_options(a, kRows[r].writing, kRows[r].transition));
        fmt::print("# {} | {} | N={} : best regret {:.1f} bits at pass {} ({:.0f} CPU s, {} passes)\n", task_names[c],
                   method_name(kRows[r].model, kRows[r].writing, kRows[r].transition), n, res.best.regret,
                   res.best.pass, res.last.seconds, res.last.pass);
        std::fflush(stdout);
        if (res.best.regret < best) best = res.best.regret, best_size = n;
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
  app.add_option("--task", a->task, "alphabet | music | distant_xor | anbn");
  app.add_option("--options", a->options, "task options as a JSON object, e.g. '{\"pairs\": 10}'");
  app.add_option("--model", a->model, "glnn | gnn | ollivier_rnn (grid: a comma list of the models to run)");
  app.add_option("--units", a->units, "network size N")->check(CLI::PositiveNumber);
  app.add_option("--degree", a->degree, "edges per unit, the self-loop included (0: the paper's semi-sparse d)");
  app.add_option("--graph", a->graph, "out | in | full");
  app.add_option("--writing", a->writing, "qdh | dh");
  app.add_option("--transition", a->transition, "rbpm | ruop | qd-rbpm | qd-ruop | fb | rms | bptt");
  app.add_option("--eps", a->eps, "damping of the transition metric")->check(CLI::PositiveNumber);
  app.add_option("--budget-seconds", a->budget, "CPU seconds per run")->check(CLI::PositiveNumber);
  app.add_option("--max-passes", a->max_passes, "gradient passes per run (w-steps + tau-steps); 0 = no limit");
  app.add_option("--patience", a->patience, "stop after this many validation scorings without improvement; 0 = never");
  app.add_option("--stop-error", a->stop_error, "stop once the task's error rate is below this (distant XOR: 0.01)");
  app.add_option("--line-batch", a->line_batch,
                 "K > 0: cut the sequences into lines, each from the start state, K lines per unroll "
                 "(tasks with independent lines: distant_xor, alphabet); 0 = one sequence (the paper)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--checkpoint", a->checkpoint,
                 "one run: save the training state to this .npz (atomically) every --checkpoint-every rounds and "
                 "at the end");
  app.add_option("--checkpoint-every", a->checkpoint_every, "rounds (w-step, tau-step, scoring) between checkpoints")
      ->check(CLI::PositiveNumber);
  app.add_flag("--resume", a->resume,
               "continue the run saved in --checkpoint (same task, data, model and methods; the stopping rules may "
               "change)");
  app.add_option("--seed", a->seed, "seed of the graph and the initialisation");
  app.add_option("--data-seed", a->data_seed, "seed of the training and validation sequences");
  app.add_option("--sample", a->sample, "characters to sample from the best parameters at the end");
  app.add_flag("--quiet", a->quiet, "print only the result line");
  app.add_flag("--grid", a->grid, "run Table 1's rows over --sizes and print the table");
  app.add_option("--tasks", a->grid_tasks, "grid: comma list of tasks (default: --task)");
  app.add_option("--sizes", a->grid_sizes, "grid: comma list of network sizes");
  app.add_option("--rows", a->rows, "grid: comma list of rows to run as model:writing:transition (default: all)");
  return [a] {
    // Each pass builds and frees a tape of ~10^6 small nodes; glibc's fastbin consolidation then takes
    // about a third of the time. Without fastbins the same run is ~30% faster (measured with perf).
    mallopt(M_MXFAST, 0);
    if (a->grid && (!a->checkpoint.empty() || a->resume)) throw Error("--checkpoint / --resume: one run only, not --grid");
    if (a->grid) return run_grid(*a);
    return run_one(*a);
  };
}

}  // namespace tg::cli
