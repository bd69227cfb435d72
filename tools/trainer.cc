#include "tools/trainer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json.h"
#include "core/npz.h"
#include "models/loss.h"
#include "ops/blas.h"
#include "optim/distributed.h"
#include "optim/first_order.h"
#include "optim/hf.h"
#include "tasks/text.h"
#include "tools/run_lock.h"

namespace tg::cli {

namespace fs = std::filesystem;

// ---- data helpers ---------------------------------------------------------------------------

namespace {
// CPU seconds this process has used (all its threads): the clock of the cpu_budget option.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ---- optimizers ------------------------------------------------------------------------------

class HfStep : public TrainStep {
 public:
  HfStep(const RunConfig& cfg) : hf_(optim::hf_config_from_json(cfg.optimizer_options)) {
    batch_ = cfg.batch;
    curv_ = cfg.curvature_batch > 0 ? cfg.curvature_batch : std::max<int64_t>(1, cfg.batch / 10);
  }
  nlohmann::json step(optim::Objective& obj, ParamVec& theta, const tasks::Task& task, Rng& rng, int64_t) override {
    tasks::Batch g = task.sample(batch_, rng);  // fresh data every iteration
    obj.draw_noise(g, rng);  // dropout masks / weight noise: one sample for the whole HF iteration
    tasks::Batch c = tasks::slice(g, 0, std::min(curv_, g.size()));  // a subset of the gradient batch
    optim::HfStats s = hf_.step(obj, theta, g, c);
    sequences_ += s.sequences;
    // A model value that never gets below q(0) leaves ρ undefined, and λ then only grows (the mRNN
    // char run reached λ = 1e84): say so once, with the option that fixed it there.
    undefined_rho_run_ = s.q < 0 ? 0 : undefined_rho_run_ + 1;
    if (undefined_rho_run_ == kWarnAfter && !warned_) {
      std::fprintf(stderr,
                   "\nhf: warning: CG's model value stayed above q(0) = 0 for %d iterations in a row (rho undefined, "
                   "lambda now %.3g); if the warm start is to blame, set optimizer_options.cg_restart_if_stuck=true\n",
                   kWarnAfter, hf_.lambda());
      warned_ = true;
    }
    return {{"loss", s.loss},
            {"new_loss", s.new_loss},
            {"grad_norm", s.grad_norm},
            {"lambda", s.lambda},
            {"rho", std::isfinite(s.rho) ? nlohmann::json(s.rho) : nlohmann::json(nullptr)},
            {"q", std::isfinite(s.q) ? nlohmann::json(s.q) : nlohmann::json(nullptr)},
            {"curv_loss", std::isfinite(s.curv_loss) ? nlohmann::json(s.curv_loss) : nlohmann::json(nullptr)},
            {"curv_new_loss", std::isfinite(s.curv_new_loss) ? nlohmann::json(s.curv_new_loss) : nlohmann::json(nullptr)},
            {"cg_iters", s.cg_iters},
            {"cg_stop", s.cg_stop},
            {"cg_zero_start", s.cg_zero_start},
            {"cg_restart", s.cg_restart},
            {"chosen_iter", s.chosen_iter},
            {"step_size", s.step},
            {"accepted", s.accepted},
            {"minibatches", static_cast<double>(sequences_) / 1000.0}};
  }
  nlohmann::json scalars() const override { return {{"lambda", hf_.lambda()}, {"sequences", sequences_}}; }
  std::vector<std::pair<std::string, ParamVec>> vectors() const override {
    if (hf_.warm_start().size() == 0) return {};
    return {{"warm_start", hf_.warm_start()}};
  }
  void restore(const nlohmann::json& s, const std::vector<std::pair<std::string, ParamVec>>& v) override {
    ParamVec warm;
    for (const auto& [name, vec] : v)
      if (name == "warm_start") warm = vec;
    hf_.restore(s.at("lambda").get<double>(), warm);
    sequences_ = s.at("sequences").get<int64_t>();
  }

 private:
  optim::HessianFree hf_;
  int64_t batch_, curv_;
  int64_t sequences_ = 0;
  static constexpr int kWarnAfter = 20;
  int undefined_rho_run_ = 0;
  bool warned_ = false;
};

// SGD, momentum, NAG, RMSprop, Adam and L-BFGS: one batch per iteration.
class FirstOrderStep : public TrainStep {
 public:
  FirstOrderStep(const RunConfig& cfg) : opt_(optim::make_first_order(cfg.optimizer, cfg.optimizer_options)), batch_(cfg.batch) {}
  nlohmann::json step(optim::Objective& obj, ParamVec& theta, const tasks::Task& task, Rng& rng, int64_t) override {
    tasks::Batch b = task.sample(batch_, rng);
    obj.draw_noise(b, rng);  // fresh dropout masks / weight noise per minibatch
    optim::StepStats s = opt_->step(obj, theta, b);
    sequences_ += s.sequences;
    nlohmann::json m = optim::to_json(s);
    m["minibatches"] = static_cast<double>(sequences_) / 1000.0;
    return m;
  }
  nlohmann::json scalars() const override {
    optim::OptimizerState st = opt_->state();
    return {{"step", st.step}, {"updates", st.updates}, {"sequences", sequences_}};
  }
  std::vector<std::pair<std::string, ParamVec>> vectors() const override { return opt_->state().vectors; }
  void restore(const nlohmann::json& s, const std::vector<std::pair<std::string, ParamVec>>& v) override {
    optim::OptimizerState st;
    st.step = s.at("step").get<int64_t>();
    st.updates = s.at("updates").get<int64_t>();
    st.vectors = v;
    opt_->restore(st);
    sequences_ = s.at("sequences").get<int64_t>();
  }
  nlohmann::json config() const { return opt_->config(); }

 private:
  std::unique_ptr<optim::FirstOrder> opt_;
  int64_t batch_;
  int64_t sequences_ = 0;
};
}  // namespace

std::unique_ptr<TrainStep> make_train_step(const RunConfig& cfg, const ParamSet&) {
  if (cfg.optimizer == "hf") return std::make_unique<HfStep>(cfg);
  std::string known = "hf";
  for (const std::string& n : optim::first_order_names()) {
    if (n == cfg.optimizer) return std::make_unique<FirstOrderStep>(cfg);
    known += ", " + n;
  }
  throw Error(fmt::format("unknown optimizer '{}' (known: {})", cfg.optimizer, known));
}

// ---- runs ------------------------------------------------------------------------------------

// Every option of the optimizer, defaults filled in (what config.json records).
static nlohmann::json resolved_optimizer_options(const std::string& optimizer, const nlohmann::json& options) {
  if (optimizer == "hf") return optim::to_json(optim::hf_config_from_json(options));
  return optim::make_first_order(optimizer, options)->config();
}

RunSetup make_run(RunConfig cfg) {
  RunSetup run;
  nlohmann::json task_opts = cfg.task_options;
  run.train = tasks::make(cfg.task, task_opts);
  // held-out parts for tasks that have them (text): the same options with "part"
  const tasks::TaskInfo& tinfo = tasks::find(cfg.task);
  if (tinfo.defaults.contains("part")) {
    nlohmann::json v = task_opts, t = task_opts;
    v["part"] = "valid";
    t["part"] = "test";
    run.valid = tasks::make(cfg.task, v);
    run.test = tasks::make(cfg.task, t);
  }
  // the model's input and output sizes come from the task
  const tasks::Signature sig = run.train->signature();
  const models::ModelInfo& minfo = models::find(cfg.model);
  nlohmann::json mopts = cfg.model_options;
  auto fill = [&](const char* key, const nlohmann::json& value) {
    if (!minfo.defaults.contains(key)) return;
    if (mopts.contains(key) && mopts[key] != value)
      throw Error(fmt::format("model option {}={} does not fit task '{}' (which needs {})", key, mopts[key].dump(),
                              cfg.task, value.dump()));
    mopts[key] = value;
  };
  if (sig.symbolic_input) {
    fill("vocab", sig.input_dim);
    if (minfo.defaults.contains("in") && !mopts.contains("in")) mopts["in"] = 0;
  } else {
    fill("in", sig.input_dim);
    if (minfo.defaults.contains("vocab") && !mopts.contains("vocab")) mopts["vocab"] = 0;
  }
  fill("out", sig.output_dim);
  fill("output", models::output_kind_name(sig.output));
  cfg.model_options = models::resolve(minfo, mopts);
  DType dt = cfg.dtype == "float64" ? DType::f64 : DType::f32;
  Rng init_rng(cfg.seed);
  std::unique_ptr<models::Model> model = minfo.make(cfg.model_options, dt, init_rng);
  if (model->output_kind() != sig.output)
    throw Error(fmt::format("model '{}' has {} outputs but task '{}' needs {}", cfg.model,
                            models::output_kind_name(model->output_kind()), cfg.task, models::output_kind_name(sig.output)));
  run.objective = std::make_unique<models::ModelObjective>(std::move(model),
                                                           models::objective_options_from_json(cfg.objective_options));
  cfg.objective_options = models::to_json(run.objective->options());
  cfg.optimizer_options = resolved_optimizer_options(cfg.optimizer, cfg.optimizer_options);
  cfg.task_options = tasks::resolve(tinfo, task_opts);
  run.cfg = cfg;
  return run;
}

// A run saved by an older build lacks the options added since; they take their defaults, which leave
// the run's meaning unchanged, so they are filled in before comparing (else every new option would
// make old runs impossible to resume).
static RunConfig with_current_defaults(RunConfig c) {
  c.model_options = models::resolve(models::find(c.model), c.model_options);
  c.objective_options = models::to_json(models::objective_options_from_json(c.objective_options));
  c.optimizer_options = resolved_optimizer_options(c.optimizer, c.optimizer_options);
  c.task_options = tasks::resolve(tasks::find(c.task), c.task_options);
  return c;
}

EvalResult evaluate(models::ModelObjective& obj, const ParamVec& theta, const tasks::Task& task,
                    int64_t max_sequences, uint64_t seed, optim::Communicator* comm) {
  const bool parallel = comm && comm->parallel();
  EvalResult r;
  const int64_t fixed = task.num_sequences();
  const int64_t total = fixed > 0 ? std::min(fixed, max_sequences) : max_sequences;
  const int64_t chunk = 500;  // bounds the tape's memory
  Rng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  double loss_sum = 0, err_sum = 0, weight_sum = 0;
  for (int64_t first = 0; first < total; first += chunk) {
    int64_t n = std::min(chunk, total - first);
    tasks::Batch b = fixed > 0 ? task.sequences(first, n) : task.sample(n, rng);
    r.sequences += n;
    if (parallel) {  // every rank draws the chunk (the generator stays in step) and scores its shard
      auto [f, count] = optim::DistributedObjective::shard(n, comm->rank(), comm->size());
      b = tasks::slice(b, f, count);
      if (count == 0 || !(obj.weight(b) > 0)) continue;
    }
    auto ev = obj.evaluate(theta, b);
    const std::vector<Tensor> outputs = ev->output_values();
    double w = models::loss_weight(b, obj.model().output_kind(), outputs.at(0).shape()[1]);
    loss_sum += ev->value() * w;
    weight_sum += w;
    err_sum += task.error_rate(b, outputs) * static_cast<double>(b.size());
  }
  if (parallel) {
    double sums[3] = {loss_sum, weight_sum, err_sum};
    comm->sum(sums);
    loss_sum = sums[0], weight_sum = sums[1], err_sum = sums[2];
  }
  r.loss = loss_sum / weight_sum;
  r.error_rate = err_sum / static_cast<double>(r.sequences);
  return r;
}

// ---- checkpoints -----------------------------------------------------------------------------

namespace {
std::string rng_to_string(const Rng& r) {
  std::ostringstream os;
  os << r;
  return os.str();
}
Rng rng_from_string(const std::string& s, const std::string& where) {
  Rng r;
  std::istringstream is(s);
  is >> r;
  if (is.fail()) throw Error(fmt::format("{}: corrupt RNG state", where));
  return r;
}
}  // namespace

void save_checkpoint(const std::string& path, const Checkpoint& c, const ParamSet& layout) {
  std::vector<NpzEntry> e;
  for (int32_t i = 0; i < layout.count(); ++i) e.emplace_back("param/" + layout.name(ParamId{i}), c.theta.part(i));
  e.emplace_back("theta", c.theta.flat());
  e.emplace_back("iteration", std::vector<int64_t>{c.iteration});
  e.emplace_back("seconds", std::vector<double>{c.seconds});
  e.emplace_back("cpu_seconds", std::vector<double>{c.cpu_seconds});
  e.emplace_back("rng_state", std::string_view(c.rng_state));
  e.emplace_back("optimizer_scalars", std::string_view(c.optimizer_scalars.dump()));
  for (const auto& [name, v] : c.optimizer_vectors) e.emplace_back("optimizer/" + name, v.flat());
  std::string cfg = c.config.dump();
  e.emplace_back("config", std::string_view(cfg));
  write_npz(path, e);
}

Checkpoint load_checkpoint(const std::string& path, const ParamSet& layout) {
  NpzArchive a(path);
  Checkpoint c;
  auto flat = [&](const std::string& name) {
    Tensor t = a.tensor(name);
    if (t.shape().rank() != 1 || t.size() != layout.numel())
      throw Error(fmt::format("{}: '{}' has {} values, the model has {} parameters", path, name, t.size(), layout.numel()));
    ParamVec v = layout.zeros_like();
    Tensor src = t.astype(layout.dtype());
    std::memcpy(v.flat().raw(), src.raw(), static_cast<size_t>(src.size()) * dtype_size(src.dtype()));
    return v;
  };
  c.theta = flat("theta");
  if (!c.theta.all_finite()) throw Error(fmt::format("{}: the parameters contain NaN or Inf", path));
  auto it = a.int64s("iteration");
  if (it.size() != 1 || it[0] < 0) throw Error(fmt::format("{}: bad 'iteration'", path));
  c.iteration = it[0];
  // One finite, non-negative number (checkpoints written before the CPU budget existed have no
  // cpu_seconds: 0).
  auto seconds = [&](const char* name, bool optional) {
    if (optional && !a.contains(name)) return 0.0;
    const std::vector<double> v = a.doubles(name);
    if (v.size() != 1 || !std::isfinite(v[0]) || v[0] < 0)
      throw Error(fmt::format("{}: '{}' must be one finite number >= 0 (got {} value{}{})", path, name, v.size(),
                              v.size() == 1 ? "" : "s", v.size() == 1 ? fmt::format(": {}", v[0]) : ""));
    return v[0];
  };
  c.seconds = seconds("seconds", false);
  c.cpu_seconds = seconds("cpu_seconds", true);
  c.rng_state = a.bytes("rng_state");
  // The state must read back exactly as written: an empty, truncated or altered one is refused here,
  // not discovered as a different run.
  if (rng_to_string(rng_from_string(c.rng_state, path + ": 'rng_state'")) != c.rng_state)
    throw Error(fmt::format("{}: 'rng_state' is not a random-number generator state written by tapegrad", path));
  try {
    c.optimizer_scalars = parse_json(a.bytes("optimizer_scalars"), path + ": optimizer_scalars");
    c.config = parse_json(a.bytes("config"), path + ": config");
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: corrupt JSON state: {}", path, e.what()));
  }
  if (!c.optimizer_scalars.is_object()) throw Error(fmt::format("{}: 'optimizer_scalars' must be a JSON object", path));
  for (const auto& [key, v] : c.optimizer_scalars.items()) {
    const bool counter = key == "step" || key == "updates" || key == "sequences";
    // the optimizer's own restore checks each value's range (HF: lambda >= 0)
    const bool ok = counter ? v.is_number_integer() && v.get<int64_t>() >= 0 : v.is_number() && std::isfinite(v.get<double>());
    if (!ok)
      throw Error(fmt::format("{}: optimizer state '{}' must be {} (got {})", path, key,
                              counter ? "an integer >= 0" : "a finite number", v.dump()));
  }
  for (const auto& [name, entry] : a.entries()) {
    if (name.rfind("optimizer/", 0) == 0) {
      ParamVec v = flat(name);
      if (!v.all_finite()) throw Error(fmt::format("{}: '{}' contains NaN or Inf", path, name));
      c.optimizer_vectors.emplace_back(name.substr(10), std::move(v));
    }
  }
  // param/<name> repeats theta for readers such as numpy: the two must agree, bit for bit.
  for (int32_t i = 0; i < layout.count(); ++i) {
    const std::string key = "param/" + layout.name(ParamId{i});
    if (!a.contains(key)) throw Error(fmt::format("{}: no array '{}'", path, key));
    const Tensor t = a.tensor(key).astype(layout.dtype());
    const Tensor part = c.theta.part(i);
    if (t.shape() != part.shape() ||
        std::memcmp(t.raw(), part.raw(), static_cast<size_t>(t.size()) * dtype_size(t.dtype())) != 0)
      throw Error(fmt::format("{}: '{}' {} disagrees with its part of 'theta' {}", path, key, t.shape().str(),
                              part.shape().str()));
  }
  return c;
}

// ---- the training loop -------------------------------------------------------------------------

namespace {
std::atomic<int> g_signal{0};
extern "C" void on_signal(int s) { g_signal.store(s); }

// Keeps the lines of metrics.jsonl logged before `iteration` (a resumed run rewrites the rest).
void truncate_metrics(const std::string& path, int64_t iteration) {
  std::ifstream in(path);
  if (!in) return;
  std::string line, kept;
  while (std::getline(in, line)) {
    auto j = parse_json(line, path, false);
    if (j.is_discarded() || !j.contains("iteration")) continue;  // a torn last line from a kill
    if (j["iteration"].get<int64_t>() <= iteration) kept += line + "\n";
  }
  write_file_atomically(path, kept);
}

std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  int64_t t = static_cast<int64_t>(s);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60) : fmt::format("{}:{:02}", t / 60, t % 60);
}
}  // namespace

namespace {
// One rank's part of a run (the whole run without MPI). Every rank draws the same data and holds the
// same θ; the optimizer's objective spreads each batch over the ranks (optim/distributed.h); only
// rank 0 writes files and prints.
int train_rank(RunConfig requested, const TrainOptions& opt, optim::Communicator& comm) {
  if (opt.out_dir.empty()) throw Error("train: --out DIR is required");
  // a new run's data files as absolute paths, so that eval and sample find them from any directory
  if (!opt.resume && requested.task == "text")
    requested.task_options = tasks::text::with_absolute_paths(tasks::resolve(tasks::find("text"), requested.task_options));
  const std::string dir = opt.out_dir;
  const std::string cfg_path = dir + "/config.json", ckpt_path = dir + "/checkpoint.npz",
                    metrics_path = dir + "/metrics.jsonl";
  RunSetup run = make_run(requested);
  RunConfig& cfg = run.cfg;
  blas::set_threads(cfg.threads);
  const bool lead = comm.rank() == 0;
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"); lead && local) {
    const long ranks = std::atol(local), cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (ranks * cfg.threads > cores)
      std::fprintf(stderr, "warning: %ld ranks x %d BLAS threads on %ld cores oversubscribe the machine%s\n", ranks,
                   cfg.threads, cores, cfg.threads > 1 ? " (set threads=1)" : " (use fewer ranks)");
  }
  optim::DistributedObjective distributed(*run.objective, comm);
  optim::Objective& objective = comm.parallel() ? static_cast<optim::Objective&>(distributed) : *run.objective;
  ParamVec theta = run.objective->params().values().clone();
  std::unique_ptr<TrainStep> stepper = make_train_step(cfg, run.objective->params());
  // every input is valid by now: only then touch the output directory
  std::error_code ec;
  std::optional<tools::RunLock> lock;  // rank 0 writes the directory, so rank 0 holds it
  if (opt.resume) {
    if (!fs::exists(ckpt_path)) throw Error(fmt::format("train --resume: no checkpoint at {}", ckpt_path));
    if (lead) lock.emplace(dir);
  } else if (lead) {  // the other ranks would see rank 0's first checkpoint
    fs::create_directories(dir, ec);
    if (ec) throw Error(fmt::format("train: cannot create {}: {}", dir, ec.message()));
    if (::access(dir.c_str(), W_OK) != 0) throw Error(fmt::format("train: {} is not writable", dir));
    lock.emplace(dir);
    if (fs::exists(ckpt_path))
      throw Error(fmt::format("train: {} already holds a run (use --resume to continue it, or another --out)", dir));
  }

  Rng rng(cfg.seed * 0x2545F4914F6CDD1DULL + 1);
  int64_t start = 0;
  double trained_seconds = 0, trained_cpu = 0;
  if (opt.resume) {
    Checkpoint c = load_checkpoint(ckpt_path, run.objective->params());
    RunConfig saved = with_current_defaults(run_config_from_json(c.config, ckpt_path));
    // the run's identity must not change on resume; its length may
    saved.steps = cfg.steps;
    saved.max_seconds = cfg.max_seconds;
    saved.cpu_budget = cfg.cpu_budget;
    if (to_json(saved) != to_json(cfg))
      throw Error(fmt::format(
          "train --resume: the options differ from the run in {} (only --steps, --max-seconds and --cpu-budget may change)",
          dir));
    theta = c.theta;
    rng = rng_from_string(c.rng_state, ckpt_path);
    stepper->restore(c.optimizer_scalars, c.optimizer_vectors);
    start = c.iteration;
    trained_seconds = c.seconds;
    trained_cpu = c.cpu_seconds;
    if (lead) truncate_metrics(metrics_path, start);
  } else if (lead) {
    write_file_atomically(cfg_path, to_json(cfg).dump(2) + "\n");
    write_file_atomically(metrics_path, "");
  }
  // A text run's vocabulary, which eval --data and sample read (runs of older builds get it on resume).
  if (const auto* text = dynamic_cast<const tasks::text::TextTask*>(run.train.get());
      text && lead && !fs::exists(dir + "/vocab.json"))
    text->corpus().vocab().save(dir + "/vocab.json");

  auto checkpoint = [&](int64_t iteration) {
    if (!lead) return;
    Checkpoint c;
    c.iteration = iteration;
    c.seconds = trained_seconds;
    c.cpu_seconds = trained_cpu;
    c.theta = theta;
    c.rng_state = rng_to_string(rng);
    c.optimizer_scalars = stepper->scalars();
    c.optimizer_vectors = stepper->vectors();
    c.config = to_json(cfg);
    save_checkpoint(ckpt_path, c, run.objective->params());
  };
  if (!opt.resume) checkpoint(0);

  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  const bool quiet = opt.quiet || !lead;
  const bool tty = !quiet && ::isatty(STDERR_FILENO);
  std::ofstream metrics;
  if (lead) metrics.open(metrics_path, std::ios::app);
  if (lead && !metrics) throw Error(fmt::format("train: cannot append to {}", metrics_path));
  const tasks::Task& valid_task = run.valid ? *run.valid : *run.train;
  auto t0 = std::chrono::steady_clock::now();
  const double cpu_at_start = trained_cpu;
  auto last_print = t0;
  const uint64_t valid_seed = cfg.seed + 1000003;
  nlohmann::json last;
  EvalResult last_eval{};
  bool have_eval = false;
  int64_t it = start;
  int exit_code = 0;
  // A first-order optimizer skips a step whose loss, gradient or update is not finite; a run that does
  // nothing else for this long has diverged and only burns time.
  constexpr int64_t kMaxSkippedInARow = 200;
  constexpr double kMaxLambda = 1e25;  // far above any λ of a run that still learns; well below overflow
  int64_t skipped_in_a_row = 0, rejected_in_a_row = 0;
  // A resumed run whose CPU budget is already spent trains nothing (not even one more step).
  const bool budget_spent = cfg.cpu_budget > 0 && trained_cpu >= cfg.cpu_budget;
  if (budget_spent && lead && !quiet)
    std::fprintf(stderr, "CPU budget of %.0f s already spent (%.1f s): nothing to train\n", cfg.cpu_budget, trained_cpu);
  for (; it < cfg.steps && !budget_spent; ++it) {
    auto s0 = std::chrono::steady_clock::now();
    const double cpu0 = process_cpu_seconds();
    const double comm0 = comm.seconds();
    nlohmann::json m = stepper->step(objective, theta, *run.train, rng, it);
    m["iteration"] = it + 1;
    const bool last_iter = it + 1 == cfg.steps;
    if ((cfg.eval_every > 0 && (it + 1) % cfg.eval_every == 0) || last_iter) {
      last_eval = evaluate(*run.objective, theta, valid_task, cfg.eval_batch, valid_seed, &comm);
      have_eval = true;
      m["valid_loss"] = last_eval.loss;
      m["valid_error"] = last_eval.error_rate;
    }
    auto s1 = std::chrono::steady_clock::now();
    trained_seconds += std::chrono::duration<double>(s1 - s0).count();
    m["seconds"] = trained_seconds;
    trained_cpu += process_cpu_seconds() - cpu0;
    m["cpu_seconds"] = trained_cpu;
    if (comm.parallel()) m["comm_seconds"] = comm.seconds() - comm0;  // rank 0's time in sums this iteration
    if (lead) {
      errno = 0;
      metrics << m.dump() << "\n" << std::flush;
      // A lost metrics line (a full disk) stops the run: the files stay those of the last checkpoint,
      // and --resume drops the lines logged after it, a torn one included.
      if (!metrics)
        throw Error(fmt::format("train: cannot write {} at iteration {}: {}; the run stopped; continue from its last "
                                "checkpoint with --resume once there is room",
                                metrics_path, it + 1, errno ? std::strerror(errno) : "write failed"));
    }
    last = m;
    bool stop_time = cfg.max_seconds > 0 && std::chrono::duration<double>(s1 - t0).count() >= cfg.max_seconds;
    bool stop_budget = cfg.cpu_budget > 0 && trained_cpu >= cfg.cpu_budget;
    int sig = g_signal.load();
    if (comm.parallel()) {  // every rank must stop at the same iteration: stop when any rank would
      double flags[4] = {sig == SIGINT ? 1.0 : 0.0, sig == SIGTERM ? 1.0 : 0.0, stop_time ? 1.0 : 0.0,
                         stop_budget ? 1.0 : 0.0};
      comm.sum(flags);
      sig = flags[0] > 0 ? SIGINT : flags[1] > 0 ? SIGTERM : 0;
      stop_time = flags[2] > 0;
      stop_budget = flags[3] > 0;
    }
    const bool solved = cfg.stop_on_success && m.contains("valid_loss") &&
                        last_eval.error_rate < run.train->success_threshold();
    if ((cfg.checkpoint_every > 0 && (it + 1) % cfg.checkpoint_every == 0) || last_iter || stop_time || stop_budget || sig ||
        solved)
      checkpoint(it + 1);
    // progress: a bar on a terminal, plain lines otherwise
    const double done = static_cast<double>(it + 1 - start);
    const double rate = done / std::max(1e-9, std::chrono::duration<double>(s1 - t0).count());
    double eta = static_cast<double>(cfg.steps - it - 1) / rate;
    if (cfg.cpu_budget > 0) {  // the budget usually ends the run first: wall time per CPU second so far
      const double wall = std::chrono::duration<double>(s1 - t0).count(), cpu = trained_cpu - cpu_at_start;
      if (cpu > 0) eta = std::min(eta, std::max(0.0, cfg.cpu_budget - trained_cpu) * wall / cpu);
    }
    std::string tail = fmt::format("loss {:.4g}", m.value("loss", 0.0));
    if (have_eval) tail += fmt::format("  valid {:.4g}  error {:.4g}", last_eval.loss, last_eval.error_rate);
    if (m.contains("lambda")) tail += fmt::format("  λ {:.3g}  cg {}", m["lambda"].get<double>(), m["cg_iters"].get<int>());
    if (tty) {
      const int width = 24;
      int filled = static_cast<int>(width * (it + 1) / std::max<int64_t>(1, cfg.steps));
      std::fprintf(stderr, "\r[%s%s] %lld/%lld %.2f it/s ETA %s  %s\x1b[K", std::string(filled, '=').c_str(),
                   std::string(width - filled, ' ').c_str(), static_cast<long long>(it + 1),
                   static_cast<long long>(cfg.steps), rate, clock_text(eta).c_str(), tail.c_str());
      std::fflush(stderr);
    } else if (!quiet && (std::chrono::duration<double>(s1 - last_print).count() >= 10 || last_iter ||
                              m.contains("valid_loss"))) {
      std::fprintf(stderr, "iteration %lld/%lld  %.2f it/s  ETA %s  %s\n", static_cast<long long>(it + 1),
                   static_cast<long long>(cfg.steps), rate, clock_text(eta).c_str(), tail.c_str());
      last_print = s1;
    }
    // A run that can no longer move stops with a checkpoint and exit code 3: a first-order run whose
    // steps are all skipped (non-finite), or Hessian-free rejecting step after step while λ grows.
    skipped_in_a_row = m.value("skipped", false) ? skipped_in_a_row + 1 : 0;
    rejected_in_a_row = m.contains("accepted") && !m["accepted"].get<bool>() ? rejected_in_a_row + 1 : 0;
    const double next_lambda = m.contains("lambda") ? stepper->scalars().value("lambda", 0.0) : 0.0;
    std::string stuck, advice;
    if (skipped_in_a_row >= kMaxSkippedInARow) {
      stuck = fmt::format("diverged: the last {} steps were all skipped ({})", skipped_in_a_row,
                          m.value("skip_reason", std::string("?")));
      advice = "Lower the learning rate or set optimizer_options.clip_norm";
    } else if (rejected_in_a_row >= kMaxSkippedInARow || !(next_lambda <= kMaxLambda)) {
      stuck = fmt::format("Hessian-free gave up: {} step(s) in a row rejected (the last: {}), lambda now {:.3g} (the "
                          "bound is {:.0e})",
                          rejected_in_a_row, m.value("cg_stop", std::string("?")), next_lambda, kMaxLambda);
      advice = "No step lowers the loss from here: check the initialisation (an exploding network gives non-finite "
               "gradients) and the data";
    }
    if (!stuck.empty()) {
      ++it;
      if (tty) std::fprintf(stderr, "\n");
      checkpoint(it);  // θ itself is finite: skipped and rejected steps never write it
      if (lead)
        std::fprintf(stderr, "train: %s up to iteration %lld; checkpoint saved. %s\n", stuck.c_str(),
                     static_cast<long long>(it), advice.c_str());
      exit_code = 3;
      break;
    }
    if (sig) {
      exit_code = 128 + sig;
      ++it;
      if (tty) std::fprintf(stderr, "\n");
      if (lead) std::fprintf(stderr, "interrupted (%s): checkpoint saved at iteration %lld; continue with --resume\n",
                   sig == SIGINT ? "SIGINT" : "SIGTERM", static_cast<long long>(it));
      break;
    }
    if (solved && !last_iter) {
      ++it;
      if (tty) std::fprintf(stderr, "\n");
      if (!quiet)
        std::fprintf(stderr, "success criterion met at iteration %lld (%s)\n", static_cast<long long>(it),
                     run.train->success_criterion().c_str());
      break;
    }
    if (stop_budget && !last_iter) {
      ++it;
      if (tty) std::fprintf(stderr, "\n");
      if (lead) std::fprintf(stderr, "CPU budget of %.0f s reached: checkpoint saved at iteration %lld\n", cfg.cpu_budget,
                   static_cast<long long>(it));
      break;
    }
    if (stop_time) {
      ++it;
      if (tty) std::fprintf(stderr, "\n");
      if (lead) std::fprintf(stderr, "time budget of %.0f s reached: checkpoint saved at iteration %lld; continue with --resume\n",
                   cfg.max_seconds, static_cast<long long>(it));
      break;
    }
  }
  if (tty && exit_code == 0) std::fprintf(stderr, "\n");
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (it == start && start > 0 && !have_eval) {  // nothing left to do: report the saved state
    last_eval = evaluate(*run.objective, theta, valid_task, cfg.eval_batch, valid_seed, &comm);
    have_eval = true;
  }
  nlohmann::json summary = {{"run", dir}, {"iterations", it}, {"seconds", trained_seconds}, {"cpu_seconds", trained_cpu}};
  if (have_eval) {
    summary["valid_loss"] = last_eval.loss;
    summary["valid_error"] = last_eval.error_rate;
    summary["success"] = last_eval.error_rate < run.train->success_threshold();
  }
  if (lead) std::printf("summary %s\n", summary.dump().c_str());
  return exit_code;
}
}  // namespace

int train(RunConfig requested, const TrainOptions& opt) {
  optim::Communicator& comm = optim::world();
  if (!comm.parallel()) return train_rank(std::move(requested), opt, comm);
  try {
    return train_rank(std::move(requested), opt, comm);
  } catch (const std::exception& e) {  // the other ranks may be waiting in a collective: end them all
    comm.abort(fmt::format("tapegrad: error: {}", e.what()), 2);
  }
  return 2;  // not reached: abort() ends the process
}

}  // namespace tg::cli
