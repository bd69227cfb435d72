#include "tools/trainer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/json.h"
#include "ops/blas.h"
#include "ops/float_env.h"
#include "optim/distributed.h"
#include "optim/threaded_objective.h"
#include "tasks/text.h"
#include "tools/config_diff.h"
#include "tools/early_stopping.h"
#include "tools/optimizers.h"
#include "tools/run_limits.h"
#include "tools/run_lock.h"
#include "tools/text_fingerprint.h"

namespace tg::cli {

namespace fs = std::filesystem;

namespace {

// CPU seconds this process has used (all its threads): the clock of the cpu_budget option.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The temporary file of an atomic write (PATH.tmp.XXXXXX), which a SIGKILL can leave behind.
bool is_atomic_write_temporary(const std::string& file_name) { return file_name.find(".tmp.") != std::string::npos; }

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::atomic<int> g_signal{0};
extern "C" void on_signal(int s) { g_signal.store(s); }

// SIGINT and SIGTERM set a flag the loop reads (it then saves a checkpoint) while a run trains.
class SignalFlag {
 public:
  SignalFlag() {
    g_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalFlag() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  SignalFlag(const SignalFlag&) = delete;
  SignalFlag& operator=(const SignalFlag&) = delete;
  int raised() const { return g_signal.load(); }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// Keeps the lines of metrics.jsonl logged before `iteration` (a resumed run rewrites the rest).
void truncate_metrics(const std::string& path, int64_t iteration) {
  if (!fs::exists(path)) return;
  InputFile in(path, "metrics file", kMaxTaskFileBytes);  // a FIFO or device in its place is an error
  std::string line, kept;
  int64_t torn = 0, last_kept = -1;
  while (in.read_line(line)) {
    auto j = parse_json(line, path, false);
    if (j.is_discarded() || !j.contains("iteration") || !j["iteration"].is_number_integer()) {
      ++torn;  // a torn last line from a kill
      continue;
    }
    const int64_t at = j["iteration"].get<int64_t>();
    if (at <= iteration) kept += line + "\n", last_kept = std::max(last_kept, at);
  }
  // A torn line before the checkpoint's iteration leaves records missing for good: say so, once.
  if (torn > 0 && iteration > 0 && last_kept < iteration)  // at iteration 0 there is nothing to lose
    std::fprintf(stderr, "warning: %s: %lld unreadable line(s) dropped; the last record kept is iteration %lld, the "
                 "checkpoint's %lld: the records between are lost\n", path.c_str(), static_cast<long long>(torn),
                 static_cast<long long>(last_kept), static_cast<long long>(iteration));
  write_file_atomically(path, kept);
}

std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  int64_t t = static_cast<int64_t>(s);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60) : fmt::format("{}:{:02}", t / 60, t % 60);
}

// Why a run ends before its step limit. A run that can no longer move (exit 3) or was interrupted
// (128 + signal) says so on stderr even when quiet; the other reasons are progress.
struct Stop {
  std::string message;
  int exit_code = 0;
  bool always_print = false;
};

// The progress line: a bar on a terminal, plain lines (every 10 s and at each validation) otherwise.
class Progress {
 public:
  Progress(bool quiet, int64_t first_iteration, const RunConfig& cfg)
      : quiet_(quiet),
        tty_(!quiet && ::isatty(STDERR_FILENO)),
        first_(first_iteration),
        cfg_(cfg),
        t0_(std::chrono::steady_clock::now()),
        last_print_(t0_) {}

  // After iteration `done_iterations` (1-based), `cpu_so_far` CPU seconds into the whole run, of
  // which `cpu_here` in this invocation.
  void show(int64_t done_iterations, const nlohmann::json& m, std::chrono::steady_clock::time_point now,
            double cpu_so_far, double cpu_here, const std::string& tail) {
    if (quiet_) return;
    const double wall = seconds_between(t0_, now);
    const double rate = static_cast<double>(done_iterations - first_) / std::max(1e-9, wall);
    const double eta = eta_seconds(done_iterations, rate, wall, cpu_so_far, cpu_here);
    const bool last = done_iterations == cfg_.steps;
    if (tty_) {
      const int width = 24;
      const int filled = static_cast<int>(width * done_iterations / std::max<int64_t>(1, cfg_.steps));
      std::fprintf(stderr, "\r[%s%s] %lld/%lld %.2f it/s ETA %s  %s\x1b[K", std::string(filled, '=').c_str(),
                   std::string(width - filled, ' ').c_str(), static_cast<long long>(done_iterations),
                   static_cast<long long>(cfg_.steps), rate, clock_text(eta).c_str(), tail.c_str());
      std::fflush(stderr);
    } else if (seconds_between(last_print_, now) >= 10 || last || m.contains("valid_loss")) {
      std::fprintf(stderr, "iteration %lld/%lld  %.2f it/s  ETA %s  %s\n", static_cast<long long>(done_iterations),
                   static_cast<long long>(cfg_.steps), rate, clock_text(eta).c_str(), tail.c_str());
      last_print_ = now;
    }
  }
  // Ends the bar's line before any other message.
  void end_line() const {
    if (tty_) std::fprintf(stderr, "\n");
  }

 private:
  // The time to whichever ends the run first: the step limit at the current rate, --max-seconds, or
  // the CPU budget at the wall time per CPU second seen so far.
  double eta_seconds(int64_t done_iterations, double rate, double wall, double cpu_so_far, double cpu_here) const {
    double eta = static_cast<double>(cfg_.steps - done_iterations) / rate;
    if (cfg_.max_seconds > 0) eta = std::min(eta, std::max(0.0, cfg_.max_seconds - wall));
    if (cfg_.cpu_budget > 0 && cpu_here > 0)
      eta = std::min(eta, std::max(0.0, cfg_.cpu_budget - cpu_so_far) * wall / cpu_here);
    return eta;
  }

  bool quiet_, tty_;
  int64_t first_;
  const RunConfig& cfg_;
  std::chrono::steady_clock::time_point t0_, last_print_;
};

// One rank's part of a run (the whole run without MPI). Every rank draws the same data and holds the
// same θ; the optimizer's objective spreads each batch over the ranks (optim/distributed.h); only
// rank 0 writes files and prints.
class Trainer {
 public:
  Trainer(RunConfig requested, const TrainOptions& opt, optim::Communicator& comm);
  int run();

 private:
  void open_run_directory();
  void refuse_foreign_files() const;
  void continue_from_checkpoint();
  void remove_stale_temporaries();
  void checkpoint(int64_t iteration);
  void save_best();
  bool roll_back_after_nan(nlohmann::json& m);
  nlohmann::json iterate(int64_t it);
  bool confirm_success(nlohmann::json& m);
  void log(const nlohmann::json& m, int64_t it);
  std::optional<Stop> stop_after(const nlohmann::json& m, int64_t done_iterations, bool solved);
  std::string progress_tail(const nlohmann::json& m) const;
  void print_summary(int64_t iterations);
  // Whether the trainer runs validations of its own: every eval_every iterations (0: only at the end),
  // unless the method scores the validation data itself.
  bool trainer_validates() const { return !optimizer_->validates_itself(); }

  const TrainOptions opt_;
  optim::Communicator& comm_;
  const bool lead_;
  const std::string dir_, cfg_path_, ckpt_path_, metrics_path_, best_path_, vocab_path_;
  RunSetup run_;
  RunConfig& cfg_;
  std::optional<optim::DistributedObjective> distributed_;
  // threads > 1 in one process: the batch split between the threads, each with its own copy of the
  // objective (replicas_: the run built again per extra thread)
  std::vector<RunSetup> replicas_;
  std::optional<optim::ThreadedObjective> threaded_;
  ParamVec theta_;
  std::unique_ptr<optim::Optimizer> optimizer_;
  std::optional<nlohmann::json> text_fingerprint_;  // a text run's corpus, which its checkpoints keep
  std::optional<tools::RunLock> lock_;  // rank 0 writes the directory, so rank 0 holds it
  std::ofstream metrics_;
  Rng rng_;
  int64_t start_ = 0;
  double trained_seconds_ = 0, trained_cpu_ = 0;
  uint64_t valid_seed_;
  EvalResult last_eval_{};
  bool have_eval_ = false;
  EarlyStopping early_;
  // The best validation's parameters: kept in the checkpoint (so resume is exact) and written out as
  // DIR/best.npz after each checkpoint that has new ones.
  std::optional<ParamVec> best_theta_;
  bool best_unsaved_ = false;
  // The state of the last checkpoint, which the NaN rule rolls back to (every rank keeps it).
  struct Snapshot {
    ParamVec theta;
    optim::Optimizer::State optimizer;
    int64_t iteration = 0;
  };
  Snapshot last_saved_;
  std::optional<EvalResult> confirmation_;  // the last confirmation of a success, if any
  bool confirmed_ = false;                  // this iteration's validation success held on fresh data
  // A first-order optimizer skips a step whose loss, gradient or update is not finite; a run that does
  // nothing else for this long has diverged and only burns time. Likewise Hessian-free rejecting step
  // after step while λ grows.
  static constexpr int64_t kMaxSkippedInARow = 200;
  static constexpr double kMaxLambda = 1e25;  // far above any λ of a run that still learns; well below overflow
  int64_t skipped_in_a_row_ = 0, rejected_in_a_row_ = 0;
  double seconds_since_start_ = 0;  // wall time of this invocation (the clock of --max-seconds)
};

// Before the requested run is built: the model, task, optimizer and dtype of the run being resumed
// (another optimizer would read the run's options as its own and name the wrong culprit).
void check_same_kind_of_run(const RunConfig& requested, const std::string& ckpt_path) {
  if (!fs::exists(ckpt_path)) return;  // open_run_directory says so
  const nlohmann::json saved = read_checkpoint_config(ckpt_path);
  const nlohmann::json asked = to_json(requested);
  for (const char* key : {"model", "task", "optimizer", "dtype"})
    if (saved.contains(key) && saved[key] != asked[key])
      throw Error(fmt::format("train --resume: option '{}' is {} here but {} in the run in {} (only --steps, "
                              "--max-seconds, --cpu-budget and checkpoint_every may change)",
                              key, asked[key].dump(), saved[key].dump(), fs::path(ckpt_path).parent_path().string()));
}

// A run's data files as absolute paths, so that eval and sample find them from any directory, and a
// --resume that names them relative to here matches the run (absolute paths stay as they are).
RunConfig with_absolute_data_paths(RunConfig c) {
  if (c.task == "text")
    c.task_options = tasks::text::with_absolute_paths(tasks::resolve(tasks::find("text"), c.task_options));
  for (const char* key : {"file", "test_file", "labels", "test_labels", "dir"})  // the image tasks' files
    if (c.task != "text" && c.task_options.contains(key) && c.task_options[key].is_string() &&
        !c.task_options[key].get<std::string>().empty())
      c.task_options[key] = fs::absolute(c.task_options[key].get<std::string>()).lexically_normal().string();
  return c;
}

// A resumed run keeps its thread count, gemm backend and denormal mode unless they are asked for: the
// defaults (every core, auto, flush) would otherwise be resolved on this machine, or by today's rules,
// which may not be the run's.
RunConfig with_run_machine_settings(RunConfig requested, const std::string& ckpt_path) {
  if (!fs::exists(ckpt_path)) return requested;
  const RunConfig saved = as_recorded_before_options(run_config_from_json(read_checkpoint_config(ckpt_path), ckpt_path));
  if (requested.threads == 0) requested.threads = saved.threads;
  if (requested.gemm.empty() || requested.gemm == "auto") requested.gemm = saved.gemm;
  if (requested.denormals.empty()) requested.denormals = saved.denormals;
  return requested;
}

RunConfig checked_request(RunConfig requested, const TrainOptions& opt) {
  if (opt.resume) {
    check_same_kind_of_run(requested, opt.out_dir + "/checkpoint.npz");
    requested = with_run_machine_settings(std::move(requested), opt.out_dir + "/checkpoint.npz");
  }
  return with_absolute_data_paths(std::move(requested));
}

// A resumed text run whose file no longer gives its vocabulary fails in make_run with the model's size
// ("vocab=25 does not fit"): say what most likely happened.
RunSetup make_checked_run(RunConfig requested, const TrainOptions& opt) {
  RunConfig cfg = checked_request(std::move(requested), opt);
  try {
    return make_run(cfg);
  } catch (const Error& e) {
    if (!opt.resume || cfg.task != "text") throw;
    throw Error(fmt::format("train --resume: {} (has the text file changed since the run began?)", e.what()));
  }
}

Trainer::Trainer(RunConfig requested, const TrainOptions& opt, optim::Communicator& comm)
    : opt_(opt),
      comm_(comm),
      lead_(comm.rank() == 0),
      dir_(opt.out_dir),
      cfg_path_(dir_ + "/config.json"),
      ckpt_path_(dir_ + "/checkpoint.npz"),
      metrics_path_(dir_ + "/metrics.jsonl"),
      best_path_(dir_ + "/best.npz"),
      vocab_path_(dir_ + "/vocab.json"),
      run_(make_checked_run(std::move(requested), opt)),
      cfg_(run_.cfg),
      rng_(cfg_.seed * 0x2545F4914F6CDD1DULL + 1),
      valid_seed_(cfg_.seed + 1000003),
      early_(cfg_.patience) {
  check_run_limits(run_, opt.resume);  // sizes this machine cannot run: before any thread or the directory exists
  blas::set_gemm_backend(cfg_.gemm);
  blas::set_threads(cfg_.threads);
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"); lead_ && local) {
    const long ranks = std::atol(local), cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (ranks * cfg_.threads > cores)
      std::fprintf(stderr, "warning: %ld ranks x %d threads on %ld cores oversubscribe the machine%s\n", ranks,
                   cfg_.threads, cores, cfg_.threads > 1 ? " (set threads=1)" : " (use fewer ranks)");
  }
  if (comm.parallel()) {
    if (cfg_.optimizer == "riemannian") throw Error("optimizer 'riemannian' runs in one process, not under MPI");
    distributed_.emplace(*run_.objective, comm);
  } else if (cfg_.threads > 1 && cfg_.optimizer != "riemannian") {
    std::vector<optim::Objective*> objectives{run_.objective.get()};
    const int64_t shards = std::min<int64_t>(cfg_.threads, cfg_.batch);  // a thread per sequence at most
    for (int64_t r = 1; r < shards; ++r) objectives.push_back(replicas_.emplace_back(make_run(cfg_)).objective.get());
    threaded_.emplace(std::move(objectives));  // which makes the products single-threaded
  }
  theta_ = run_.objective->params().values().clone();
  text_fingerprint_ = text_fingerprint(*run_.train);
  optimizer_ = make_optimizer(cfg_, run_);
  if (cfg_.nan_rule && !optimizer_->scale_learning_rate(1.0))  // x1: asks whether it has a learning rate
    throw Error(fmt::format("train: nan_rule halves a learning rate, and optimizer '{}' has none (it is for sgd, "
                            "momentum, nag, rmsprop, adam and lbfgs)",
                            cfg_.optimizer));
  if (cfg_.patience > 0 && !trainer_validates())  // early stopping would wait for validations that never come
    throw Error(fmt::format("train: patience counts the trainer's validations, and optimizer '{}' scores the "
                            "validation data itself (the trainer never validates it): set optimizer_options.patience",
                            cfg_.optimizer));
}

// Every input is valid by now: only then touch the output directory.
void Trainer::open_run_directory() {
  if (opt_.resume) {
    if (!fs::exists(ckpt_path_)) throw Error(fmt::format("--resume: no checkpoint at {} (nothing to continue)", ckpt_path_));
    if (lead_) lock_.emplace(dir_);
    return;
  }
  if (!lead_) return;  // the other ranks would see rank 0's first checkpoint
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw Error(fmt::format("train: cannot create {}: {}", dir_, ec.message()));
  if (::access(dir_.c_str(), W_OK) != 0) throw Error(fmt::format("train: {} is not writable", dir_));
  if (!fs::exists(ckpt_path_)) refuse_foreign_files();  // before the lock, whose .lock would join them
  lock_.emplace(dir_);
  if (fs::exists(ckpt_path_))
    throw Error(fmt::format("train: {} already holds a run (use --resume to continue it, or another --out)", dir_));
}

// A new run writes config.json and metrics.jsonl over whatever has those names, so its directory must be new,
// empty, or what a run killed before its first checkpoint leaves behind: `--out .` or `--out ~` never
// replaces somebody's files.
void Trainer::refuse_foreign_files() const {
  const auto refuse = [&](const std::string& why) {
    throw Error(fmt::format("train: {} is not empty and holds no run ({}): use a new or empty --out", dir_, why));
  };
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    const bool run_file = name == ".lock" || name == "config.json" || name == "metrics.jsonl" || name == "vocab.json" ||
                          is_atomic_write_temporary(name);
    if (!run_file) refuse(fmt::format("'{}' is not a file of a run", name));
  }
  if (!fs::exists(cfg_path_)) {
    if (fs::exists(metrics_path_) || fs::exists(vocab_path_)) refuse("run files without a config.json");
    return;
  }
  std::ifstream in(cfg_path_);
  const nlohmann::json left = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!left.is_object() || !left.contains("model") || !left.contains("optimizer"))
    refuse("its config.json is not a run's");
}

void Trainer::continue_from_checkpoint() {
  // the options first: a changed size would otherwise be reported as arrays of the wrong length
  const RunConfig saved = with_current_defaults(run_config_from_json(read_checkpoint_config(ckpt_path_), ckpt_path_));
  if (auto d = first_difference(run_identity(saved), run_identity(cfg_)))
    throw Error(fmt::format("train --resume: the options differ from the run in {}: {} (only --steps, --max-seconds, "
                            "--cpu-budget and checkpoint_every may change)",
                            dir_, *d));
  Checkpoint c = load_checkpoint(ckpt_path_, run_.objective->params());
  if (text_fingerprint_ && c.trainer.contains("text"))  // runs of older builds did not record it
    if (auto d = fingerprint_difference(c.trainer["text"], *text_fingerprint_))
      throw Error(fmt::format("train --resume: the text of run {} is not what it trained on: {} (the file changed since "
                              "the run began; resume on that text, or start a new run)",
                              dir_, *d));
  theta_ = c.theta;
  rng_ = rng_from_string(c.rng_state, ckpt_path_);
  try {
    optimizer_->restore({c.optimizer_scalars, c.optimizer_vectors});
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", ckpt_path_, e.what()));
  }
  start_ = c.iteration;
  early_.restore(c.trainer.value("early_stopping", nlohmann::json::object()), ckpt_path_);
  best_theta_ = c.best_theta;
  if (best_theta_) save_best();  // a kill between the two writes leaves best.npz newer than the checkpoint
  trained_seconds_ = c.seconds;
  trained_cpu_ = c.cpu_seconds;
  if (lead_) {
    truncate_metrics(metrics_path_, start_);
    remove_stale_temporaries();
  }
}

// A SIGKILL during an atomic write leaves its uniquely named temporary file; the run lock is held, so no
// writer of this run owns one now.
void Trainer::remove_stale_temporaries() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec))
    if (is_atomic_write_temporary(entry.path().filename().string()) && entry.is_regular_file(ec))
      fs::remove(entry.path(), ec);
}

void Trainer::checkpoint(int64_t iteration) {
  const optim::Optimizer::State state = optimizer_->state();
  if (cfg_.nan_rule) last_saved_ = {theta_.clone(), state, iteration};
  if (!lead_) return;
  Checkpoint c;
  c.iteration = iteration;
  c.seconds = trained_seconds_;
  c.cpu_seconds = trained_cpu_;
  c.theta = theta_;
  c.rng_state = rng_to_string(rng_);
  c.optimizer_scalars = state.scalars;
  c.optimizer_vectors = state.vectors;
  c.config = to_json(cfg_);
  if (early_.enabled()) c.trainer["early_stopping"] = early_.state();
  if (text_fingerprint_) c.trainer["text"] = *text_fingerprint_;
  c.best_theta = best_theta_;
  save_checkpoint(ckpt_path_, c, run_.objective->params());
  if (best_unsaved_) save_best();
}

// The parameters of the best validation so far, as a checkpoint of their own (eval reads it).
void Trainer::save_best() {
  best_unsaved_ = false;
  if (!lead_ || !best_theta_) return;
  Checkpoint c;
  c.iteration = early_.best_iteration();
  c.seconds = trained_seconds_;
  c.cpu_seconds = trained_cpu_;
  c.theta = *best_theta_;
  c.rng_state = rng_to_string(rng_);
  c.optimizer_scalars = optimizer_->state().scalars;
  c.config = to_json(cfg_);
  c.trainer["early_stopping"] = early_.state();
  save_checkpoint(best_path_, c, run_.objective->params());
}

// Krueger's rule for a run that produced NaN: back to the last checkpoint's θ and optimizer state
// with half the learning rate. The step that failed was skipped (θ never holds a NaN); the data drawn
// since the checkpoint is not drawn again, so the run goes on with fresh batches.
bool Trainer::roll_back_after_nan(nlohmann::json& m) {
  if (!cfg_.nan_rule || !m.value("skipped", false) ||
      m.value("skip_reason", std::string()).rfind("nonfinite", 0) != 0)
    return false;
  theta_ = last_saved_.theta.clone();
  optim::Optimizer::State back = last_saved_.optimizer;
  const nlohmann::json now = optimizer_->state().scalars;
  if (now.contains("sequences")) back.scalars["sequences"] = now["sequences"];  // the work done still counts
  optimizer_->restore(back);
  optimizer_->scale_learning_rate(0.5);
  const double scale = optimizer_->state().scalars.value("lr_scale", 1.0);
  m["nan_rule"] = {{"rolled_back_to", last_saved_.iteration}, {"lr_scale", scale}};
  if (lead_ && !opt_.quiet)
    std::fprintf(stderr, "%snan_rule: %s at iteration %lld: rolled back to iteration %lld, learning rate x%.6g\n",
                 ::isatty(STDERR_FILENO) ? "\n" : "", m.value("skip_reason", std::string()).c_str(),
                 static_cast<long long>(m["iteration"].get<int64_t>()), static_cast<long long>(last_saved_.iteration),
                 scale);
  return true;
}

// One optimizer step and, when due, a validation; the clocks count both.
nlohmann::json Trainer::iterate(int64_t it) {
  const auto s0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  const double comm0 = comm_.seconds();
  optim::Objective& objective = distributed_ ? static_cast<optim::Objective&>(*distributed_)
                                : threaded_  ? static_cast<optim::Objective&>(*threaded_)
                                             : *run_.objective;
  objective.at_iteration(it);
  nlohmann::json m = optimizer_->step(objective, theta_, *run_.train, rng_, it);
  m["iteration"] = it + 1;
  const bool scheduled = cfg_.eval_every > 0 && (it + 1) % cfg_.eval_every == 0;
  if (trainer_validates() && (scheduled || it + 1 == cfg_.steps)) {
    const tasks::Dataset& valid_task = run_.valid ? *run_.valid : *run_.train;
    last_eval_ = evaluate(*run_.objective, theta_, valid_task, cfg_.eval_batch, valid_seed_, &comm_);
    have_eval_ = true;
    m["valid_loss"] = last_eval_.loss;
    m["valid_error"] = last_eval_.error_rate;
    // only the scheduled validations count (not the one at a --steps limit, which a longer run would not make)
    if (early_.enabled() && scheduled && early_.observe(last_eval_.error_rate, it + 1)) {
      m["best"] = true;
      best_theta_ = theta_.clone();
      best_unsaved_ = true;
    }
  }
  confirmed_ = cfg_.stop_on_success && m.contains("valid_loss") &&
               last_eval_.error_rate < run_.train->success_threshold() && confirm_success(m);
  trained_seconds_ += seconds_between(s0, std::chrono::steady_clock::now());
  m["seconds"] = trained_seconds_;
  trained_cpu_ += process_cpu_seconds() - cpu0;
  m["cpu_seconds"] = trained_cpu_;
  if (comm_.parallel()) m["comm_seconds"] = comm_.seconds() - comm0;  // rank 0's time in sums this iteration
  return m;
}

// A validation set of a thousand sequences can pass by luck (0.8% measured on 1,000 reaches 1.5% at
// 95%), so a success is declared only when confirm_sequences fresh sequences, never trained or
// validated on, are below the threshold too: drawn with their own seed from a generated task, or the
// held-out test part of a fixed one. Its figures go into the metrics line.
bool Trainer::confirm_success(nlohmann::json& m) {
  if (cfg_.confirm_sequences == 0) return true;
  const bool generated = run_.train->num_cases() == 0;
  const tasks::Dataset* task = generated ? run_.train.get() : run_.test.get();
  if (!task) {
    m["confirm_skipped"] = "the task has fixed data and no held-out test part";
    return true;
  }
  confirmation_ = evaluate(*run_.objective, theta_, *task, cfg_.confirm_sequences, cfg_.seed + 2000003, &comm_);
  m["confirm_error"] = confirmation_->error_rate;
  m["confirm_sequences"] = confirmation_->sequences;
  if (std::isfinite(confirmation_->interval.low)) m["confirm_interval"] = {confirmation_->interval.low, confirmation_->interval.high};
  const bool held = confirmation_->error_rate < run_.train->success_threshold();
  if (!held && lead_ && !opt_.quiet)
    std::fprintf(stderr, "%svalidation met the criterion (%s %.4g) but %lld fresh %s did not (%.4g, 95%% in "
                         "[%.4g, %.4g]): training goes on\n",
                 ::isatty(STDERR_FILENO) ? "\n" : "", tasks::measure(cfg_.task).short_name.c_str(),
                 last_eval_.error_rate, static_cast<long long>(confirmation_->sequences), task->case_noun().c_str(),
                 confirmation_->error_rate,
                 confirmation_->interval.low, confirmation_->interval.high);
  return held;
}

void Trainer::log(const nlohmann::json& m, int64_t it) {
  if (!lead_) return;
  errno = 0;
  metrics_ << m.dump() << "\n" << std::flush;
  // A lost metrics line (a full disk) stops the run: the files stay those of the last checkpoint, and
  // --resume drops the lines logged after it, a torn one included.
  if (!metrics_)
    throw Error(fmt::format("train: cannot write {} at iteration {}: {}; the run stopped; continue from its last "
                            "checkpoint with --resume once there is room",
                            metrics_path_, it + 1, errno ? std::strerror(errno) : "write failed"));
}

// The first reason, in order of precedence, to end the run after an iteration; none at the step limit
// (the loop ends there by itself).
std::optional<Stop> Trainer::stop_after(const nlohmann::json& m, int64_t done, bool solved) {
  const long long at = static_cast<long long>(done);
  skipped_in_a_row_ = m.value("skipped", false) ? skipped_in_a_row_ + 1 : 0;
  rejected_in_a_row_ = m.contains("accepted") && !m["accepted"].get<bool>() ? rejected_in_a_row_ + 1 : 0;
  const double next_lambda = m.contains("lambda") ? optimizer_->state().scalars.value("lambda", 0.0) : 0.0;
  // L-BFGS's line search failing again and again at a finite loss is a stall, not a divergence: no step
  // along its direction lowers the loss any more, as far as the dtype resolves it.
  const bool stalled = m.value("skip_reason", std::string()) == "line_search_failed" && m.contains("loss") &&
                       m["loss"].is_number() && std::isfinite(m["loss"].get<double>());
  if (skipped_in_a_row_ >= kMaxSkippedInARow && stalled)
    return Stop{fmt::format("train: stalled: the line search found no lower loss in the last {} steps (loss {:.7g}, "
                            "gradient norm {:.3g}) up to iteration {}; checkpoint saved. The run has gone as far as "
                            "{} resolves the loss{}",
                            skipped_in_a_row_, m["loss"].get<double>(), m.value("grad_norm", 0.0), at, cfg_.dtype,
                            cfg_.dtype == "float64" ? "" : " (dtype float64 resolves further)"),
                0, true};
  if (skipped_in_a_row_ >= kMaxSkippedInARow)
    return Stop{fmt::format("train: diverged: the last {} steps were all skipped ({}) up to iteration {}; checkpoint "
                            "saved. Lower the learning rate or set optimizer_options.clip_norm",
                            skipped_in_a_row_, m.value("skip_reason", std::string("?")), at),
                3, true};
  if (rejected_in_a_row_ >= kMaxSkippedInARow || !(next_lambda <= kMaxLambda))
    return Stop{fmt::format("train: Hessian-free gave up: {} step(s) in a row rejected (the last: {}), lambda now "
                            "{:.3g} (the bound is {:.0e}) up to iteration {}, loss {:.7g}; checkpoint saved. No step "
                            "lowers the loss from here: either the run has gone as far as {} resolves the loss{}, or, "
                            "if the loss is not finite or far from good, check the initialisation (an exploding "
                            "network gives non-finite gradients) and the data",
                            rejected_in_a_row_, m.value("cg_stop", std::string("?")), next_lambda, kMaxLambda, at,
                            m.value("loss", std::nan("")), cfg_.dtype,
                            cfg_.dtype == "float64" ? "" : " (dtype float64 resolves further)"),
                3, true};
  int sig = g_signal.load();
  bool out_of_time = cfg_.max_seconds > 0 && seconds_since_start_ >= cfg_.max_seconds;
  bool out_of_cpu = cfg_.cpu_budget > 0 && trained_cpu_ >= cfg_.cpu_budget;
  std::string finished = optimizer_->finished();
  if (comm_.parallel()) {  // every rank must stop at the same iteration: stop when any rank would
    double flags[4] = {sig == SIGINT ? 1.0 : 0.0, sig == SIGTERM ? 1.0 : 0.0, out_of_time ? 1.0 : 0.0,
                       out_of_cpu ? 1.0 : 0.0};
    comm_.sum(flags);
    sig = flags[0] > 0 ? SIGINT : flags[1] > 0 ? SIGTERM : 0;
    out_of_time = flags[2] > 0;
    out_of_cpu = flags[3] > 0;
  }
  if (sig)
    return Stop{fmt::format("interrupted ({}): checkpoint saved at iteration {}; continue with --resume",
                            sig == SIGINT ? "SIGINT" : "SIGTERM", at),
                128 + sig, true};
  const bool last = done == cfg_.steps;
  if (last) return std::nullopt;
  if (solved)
    return Stop{fmt::format("success criterion met at iteration {} ({}){}", at, run_.train->success_criterion(),
                            confirmation_ ? fmt::format("; confirmed on {} fresh {}: {:.4g}, 95% in [{:.4g}, {:.4g}]",
                                                        confirmation_->sequences, run_.train->case_noun(),
                                                        confirmation_->error_rate,
                                                        confirmation_->interval.low, confirmation_->interval.high)
                                          : "")};
  if (early_.exhausted() && early_.best_iteration() == 0)
    return Stop{fmt::format("early stopping at iteration {}: no validation in {} gave a finite {}; no best parameters "
                            "were kept",
                            at, early_.since_best(), tasks::measure(cfg_.task).short_name),
                0, true};
  if (early_.exhausted())
    return Stop{fmt::format("early stopping at iteration {}: {} validations without a lower {} than {:.4g} (iteration "
                            "{}); those parameters are in {}",
                            at, early_.since_best(), tasks::measure(cfg_.task).short_name, early_.best_error(),
                            early_.best_iteration(), best_path_)};
  if (!finished.empty()) return Stop{fmt::format("{} stopped at iteration {}: {}", cfg_.optimizer, at, finished)};
  if (out_of_cpu)
    return Stop{fmt::format("CPU budget of {:.0f} s reached: checkpoint saved at iteration {}", cfg_.cpu_budget, at), 0,
                true};
  if (out_of_time)
    return Stop{fmt::format("time budget of {:.0f} s reached: checkpoint saved at iteration {}; continue with --resume",
                            cfg_.max_seconds, at),
                0, true};
  return std::nullopt;
}

std::string Trainer::progress_tail(const nlohmann::json& m) const {
  std::string tail = fmt::format("loss {:.4g}", m.value("loss", 0.0));
  if (have_eval_)
    tail += fmt::format("  valid {:.4g}  {} {:.4g}", last_eval_.loss, tasks::measure(cfg_.task).short_name,
                        last_eval_.error_rate);
  if (m.contains("lambda")) tail += fmt::format("  λ {:.3g}  cg {}", m["lambda"].get<double>(), m["cg_iters"].get<int>());
  if (m.contains("regret")) tail += fmt::format("  regret {:.1f} bits (best {:.1f})", m["regret"].get<double>(),
                                                m["best_regret"].get<double>());
  return tail;
}

void Trainer::print_summary(int64_t iterations) {
  // Nothing left to do: report the saved state's validation, if the trainer validates at all.
  if (iterations == start_ && start_ > 0 && !have_eval_ && trainer_validates()) {
    last_eval_ = evaluate(*run_.objective, theta_, run_.valid ? *run_.valid : *run_.train, cfg_.eval_batch,
                          valid_seed_, &comm_);
    have_eval_ = true;
  }
  nlohmann::json summary = {
      {"run", dir_}, {"iterations", iterations}, {"seconds", trained_seconds_}, {"cpu_seconds", trained_cpu_},
      {"denormals_flushed", fenv::flushing_denormals()}};  // the mode in effect, not only the one recorded
  if (have_eval_) {
    summary["valid_loss"] = last_eval_.loss;
    summary["valid_error"] = last_eval_.error_rate;
    summary["success"] = last_eval_.error_rate < run_.train->success_threshold() &&
                         (!confirmation_ || confirmation_->error_rate < run_.train->success_threshold());
  }
  if (early_.enabled() && early_.best_iteration() > 0) {
    summary["best_valid_error"] = early_.best_error();
    summary["best_iteration"] = early_.best_iteration();
  }
  if (confirmation_) {
    summary["confirm_error"] = confirmation_->error_rate;
    summary["confirm_sequences"] = confirmation_->sequences;
    if (std::isfinite(confirmation_->interval.low))
      summary["confirm_interval"] = {confirmation_->interval.low, confirmation_->interval.high};
  }
  nlohmann::json facts = optimizer_->summary_facts();
  if (facts.contains("success")) {
    summary["success"] = facts["success"].get<bool>() && summary.value("success", true);
    facts.erase("success");
  }
  for (const auto& [key, value] : facts.items()) {
    if (summary.contains(key)) throw std::logic_error(fmt::format("{} reports '{}', a key of the trainer's", cfg_.optimizer, key));
    summary[key] = value;
  }
  if (lead_) std::printf("summary %s\n", summary.dump().c_str());
}

int Trainer::run() {
  open_run_directory();
  if (opt_.resume) {
    continue_from_checkpoint();
  } else if (lead_) {
    write_file_atomically(cfg_path_, to_json(cfg_).dump(2) + "\n");
    write_file_atomically(metrics_path_, "");
  }
  // A text run's vocabulary, which eval --data and sample read (runs of older builds get it on resume).
  if (const auto* text = dynamic_cast<const tasks::text::TextTask*>(run_.train.get());
      text && lead_ && (!opt_.resume || !fs::exists(vocab_path_)))  // a new run's, never a leftover
    text->corpus().vocab().save(vocab_path_);
  if (!opt_.resume) checkpoint(0);
  else if (cfg_.nan_rule) last_saved_ = {theta_.clone(), optimizer_->state(), start_};

  const SignalFlag signals;
  const bool quiet = opt_.quiet || !lead_;
  if (lead_) metrics_.open(metrics_path_, std::ios::app);
  if (lead_ && !metrics_) throw Error(fmt::format("train: cannot append to {}", metrics_path_));
  Progress progress(quiet, start_, cfg_);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu_at_start = trained_cpu_;
  int64_t it = start_;
  int exit_code = 0;
  // A resumed run whose CPU budget is spent, or whose optimizer had stopped by its own rule, trains
  // nothing (not even one more step).
  std::string nothing_to_do;
  if (cfg_.cpu_budget > 0 && trained_cpu_ >= cfg_.cpu_budget)
    nothing_to_do = fmt::format("CPU budget of {:.0f} s already spent ({:.1f} s): nothing to train", cfg_.cpu_budget,
                                trained_cpu_);
  else if (early_.exhausted())
    nothing_to_do = fmt::format("early stopping had ended the run ({} validations without improvement): nothing to "
                                "train",
                                early_.since_best());
  else if (const std::string f = optimizer_->finished(); !f.empty())
    nothing_to_do = fmt::format("{} had stopped: {}: nothing to train", cfg_.optimizer, f);
  if (!nothing_to_do.empty() && !quiet) std::fprintf(stderr, "%s\n", nothing_to_do.c_str());
  for (; it < cfg_.steps && nothing_to_do.empty(); ++it) {
    nlohmann::json m = iterate(it);
    const bool rolled_back = roll_back_after_nan(m);
    log(m, it);
    const auto now = std::chrono::steady_clock::now();
    seconds_since_start_ = seconds_between(t0, now);
    std::optional<Stop> stop = stop_after(m, it + 1, confirmed_);
    if ((cfg_.checkpoint_every > 0 && (it + 1) % cfg_.checkpoint_every == 0) || it + 1 == cfg_.steps || stop ||
        rolled_back)  // a second NaN before the next checkpoint halves the halved rate
      checkpoint(it + 1);  // θ itself is finite: skipped and rejected steps never write it
    progress.show(it + 1, m, now, trained_cpu_, trained_cpu_ - cpu_at_start, progress_tail(m));
    if (stop) {
      ++it;
      progress.end_line();
      if (lead_ && (stop->always_print || !quiet)) std::fprintf(stderr, "%s\n", stop->message.c_str());
      exit_code = stop->exit_code;
      break;
    }
  }
  if (exit_code == 0 && it > start_ && it == cfg_.steps) progress.end_line();
  print_summary(it);
  return exit_code;
}

}  // namespace

int train(RunConfig requested, const TrainOptions& opt) {
  if (opt.out_dir.empty()) throw Error("train: --out DIR is required");
  optim::Communicator& comm = optim::world();
  if (!comm.parallel()) return Trainer(std::move(requested), opt, comm).run();
  try {
    return Trainer(std::move(requested), opt, comm).run();
  } catch (const std::exception& e) {  // the other ranks may be waiting in a collective: end them all
    comm.abort(fmt::format("tapegrad: error: {}", e.what()), 2);
  }
  return 2;  // not reached: abort() ends the process
}

}  // namespace tg::cli
