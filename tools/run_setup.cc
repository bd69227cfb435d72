#include "tools/run_setup.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "models/loss.h"
#include "models/reaching.h"
#include "models/gating_pyramid_objective.h"
#include "models/temporal_rbm_objective.h"
#include "ops/blas.h"
#include "ops/float_env.h"
#include "optim/distributed.h"
#include "riemannian/optimizer.h"
#include "tools/optimizers.h"
#include "tools/run_limits.h"

namespace tg::cli {

namespace {
// Ollivier's methods train on one sequence drawn from the task; the models of his family start from
// its symbol statistics (003 §2), unless the config gives them.
void with_training_statistics(const RunConfig& cfg, const tasks::Task& task, const models::ModelInfo& minfo,
                              nlohmann::json& mopts) {
  if (cfg.dtype != "float64")
    throw Error(fmt::format("optimizer 'riemannian' needs dtype float64 (got {}): --set dtype=float64", cfg.dtype));
  if (!minfo.defaults.contains("symbol_freq"))
    throw Error(fmt::format("optimizer 'riemannian' trains Ollivier's models (glnn, gnn, ollivier_rnn), not '{}'",
                            cfg.model));
  const auto options = riemannian::riemannian_options_from_json(cfg.optimizer_options);
  const riemannian::Sequences seq = riemannian::draw_sequences(task, options.data_seed);
  const nlohmann::json statistics = riemannian::statistics_options(task, seq.train);
  for (const auto& [key, value] : statistics.items())
    if (!mopts.contains(key) || mopts[key].empty()) mopts[key] = value;
}
}  // namespace

models::ModelObjective& RunSetup::sequence_objective(const std::string& who) const {
  if (!sequence)
    throw Error(fmt::format("{} needs a sequence model, but '{}' is a feedforward network", who, cfg.model));
  return *sequence;
}

namespace {
// The training part and, for data sets that have them (text, images), the held-out parts: the same
// options with "part".
void make_data(RunSetup& run, const RunConfig& cfg) {
  run.train = tasks::make_dataset(cfg.task, cfg.task_options);
  if (tasks::find(cfg.task).defaults.contains("part")) {
    nlohmann::json v = cfg.task_options, t = cfg.task_options;
    v["part"] = "valid";
    t["part"] = "test";
    run.valid = tasks::make_dataset(cfg.task, v);
    run.test = tasks::make_dataset(cfg.task, t);
    // one model serves every part: the parts must agree on its inputs and outputs (a test file's labels
    // with a class the training file lacks would otherwise fail at the first validation)
    const tasks::Signature want = run.train->signature();
    for (const tasks::Dataset* part : {run.valid.get(), run.test.get()}) {
      const tasks::Signature got = part->signature();
      if (!tasks::same_inputs_and_outputs(want, got))
        throw Error(fmt::format("task '{}': its {} part has {} inputs and {} outputs, its training part {} and {}",
                                cfg.task, part == run.valid.get() ? "validation" : "test", got.input_dim,
                                got.output_dim, want.input_dim, want.output_dim));
    }
  }
}

// Sets a size option the data decides ("in", "out", "output"); one the user set otherwise is an error.
struct SizeFiller {
  const nlohmann::json& defaults;
  nlohmann::json& options;
  const RunConfig& cfg;
  void operator()(const char* key, const nlohmann::json& value) const {
    if (!defaults.contains(key)) return;
    if (options.contains(key) && options[key] != value)
      throw Error(fmt::format("model option {}={} does not fit task '{}' (which needs {})", key, options[key].dump(),
                              cfg.task, value.dump()));
    options[key] = value;
  }
};

// Structural damping weighs a recurrent model's hidden pre-activations; a model without such a block (a
// feedforward network, the gated models) would record HF's mu in config.json without acting on it: mu is
// 0 for them, and asking for more is an error.
void hf_without_structural_damping(RunConfig& cfg, const std::string& what) {
  if (cfg.optimizer != "hf") return;
  const nlohmann::json& o = cfg.optimizer_options;
  if (o.is_object() && o.contains("mu") && o["mu"].is_number() && o["mu"].get<double>() != 0)
    throw Error(fmt::format("optimizer 'hf': structural damping (mu={}) acts on a recurrent model's hidden "
                            "pre-activations, which {} does not have: drop mu or set it to 0",
                            o["mu"].dump(), what));
  cfg.optimizer_options["mu"] = 0.0;
}

void make_network(RunSetup& run, RunConfig& cfg, const models::NetworkInfo& info, const tasks::Signature& sig) {
  if (sig.symbolic_input)
    throw Error(fmt::format("network '{}' reads dense vectors, but task '{}' gives symbols", cfg.model, cfg.task));
  if (!dynamic_cast<const tasks::ImageSet*>(run.train.get()))
    throw Error(fmt::format("network '{}' reads images, but task '{}' holds {} (train a sequence model on it: "
                            "tapegrad models)",
                            cfg.model, cfg.task, run.train->case_noun()));
  nlohmann::json opts = cfg.model_options;
  const SizeFiller fill{info.defaults, opts, cfg};
  fill("in", sig.input_dim);
  fill("out", sig.output_dim);
  fill("output", models::output_kind_name(sig.output));
  cfg.model_options = models::resolve(info, opts);
  hf_without_structural_damping(cfg, fmt::format("network '{}'", cfg.model));
  Rng init_rng(cfg.seed);
  auto net = info.make(cfg.model_options, cfg.dtype == "float64" ? DType::f64 : DType::f32, init_rng);
  auto objective = std::make_unique<models::NetworkObjective>(
      std::move(net), models::network_objective_options_from_json(cfg.objective_options));
  cfg.objective_options = models::to_json(objective->options());
  run.network = objective.get();
  run.objective = std::move(objective);
}

// The arm controller on a reaching task: the task brings the plant and the cost (tasks/reaching.h).
void make_controller(RunSetup& run, RunConfig& cfg) {
  const auto* task = dynamic_cast<const tasks::ReachTask*>(run.train.get());
  if (!task)
    throw Error(fmt::format("model 'controller' drives the arm of a reaching task (center_out, postural, ddn), not "
                            "task '{}'",
                            cfg.task));
  if (!cfg.objective_options.is_null() && !cfg.objective_options.empty())
    throw Error(fmt::format("model 'controller': the reaching task defines the loss; objective_options {} do not apply",
                            cfg.objective_options.dump()));
  const int64_t reaches = task->num_cases();
  if (reaches > 0 && (cfg.batch > reaches || cfg.curvature_batch > reaches))
    throw Error(fmt::format("task '{}' has {} reaches: set batch (now {}) and curvature_batch (now {}) to at most {} "
                            "(--set batch={} trains on all of them, as the thesis did)",
                            cfg.task, reaches, cfg.batch, cfg.curvature_batch, reaches, reaches));
  cfg.model_options = models::resolve_controller_options(cfg.model_options);
  Rng init_rng(cfg.seed);
  models::ControllerBuild b =
      models::make_controller(cfg.model_options, cfg.dtype == "float64" ? DType::f64 : DType::f32, init_rng);
  run.objective = models::reaching_objective(std::move(b.params), b.controller, task->spec().plant, task->spec().cost);
}

// The temporal RBMs on next-frame video: CD's surrogate has a gradient but no meaningful value or
// curvature, so only the first-order methods that follow the gradient alone train them.
void make_temporal_rbm(RunSetup& run, RunConfig& cfg, const tasks::Signature& sig) {
  if (!dynamic_cast<const tasks::Task*>(run.train.get()) || sig.symbolic_input || sig.output != tasks::OutputKind::logistic ||
      sig.input_dim != sig.output_dim)
    throw Error(fmt::format("model '{}' learns video: train it on a next-frame task (bouncing_balls, "
                            "bouncing_balls_kl), not '{}'",
                            cfg.model, cfg.task));
  static const char* const kFollowers[] = {"sgd", "momentum", "nag", "rmsprop", "adam"};
  if (std::find(std::begin(kFollowers), std::end(kFollowers), cfg.optimizer) == std::end(kFollowers))
    throw Error(fmt::format("model '{}' is trained by contrastive divergence, whose surrogate loss has a gradient but "
                            "no meaningful value or curvature: use sgd, momentum, nag, rmsprop or adam, not '{}'",
                            cfg.model, cfg.optimizer));
  if (!cfg.objective_options.is_null() && !cfg.objective_options.empty())
    throw Error(fmt::format("model '{}': contrastive divergence defines the loss; objective_options {} do not apply",
                            cfg.model, cfg.objective_options.dump()));
  nlohmann::json mopts = cfg.model_options.is_null() ? nlohmann::json::object() : cfg.model_options;
  const SizeFiller fill{models::temporal_rbm_defaults(cfg.model), mopts, cfg};
  fill("visible", sig.input_dim);
  cfg.model_options = models::resolve_temporal_rbm_options(cfg.model, mopts);
  Rng init_rng(cfg.seed);
  models::TemporalRbm model(models::temporal_rbm_options(cfg.model, cfg.model_options),
                            cfg.dtype == "float64" ? DType::f64 : DType::f32, init_rng);
  run.objective = std::make_unique<models::TemporalRbmObjective>(std::move(model));
}

// The gated autoencoders and pyramids on frame sequences (tasks image_pairs, transformed_video,
// sine_walk): frames are the task's outputs; what the inputs hold beyond a frame conditions the CPGP.
void make_gated(RunSetup& run, RunConfig& cfg, const tasks::Signature& sig) {
  static const char* const kFrameTasks[] = {"image_pairs", "transformed_video", "sine_walk"};
  if (std::find(std::begin(kFrameTasks), std::end(kFrameTasks), cfg.task) == std::end(kFrameTasks) ||
      sig.output != tasks::OutputKind::linear || sig.input_dim < sig.output_dim)
    throw Error(fmt::format("model '{}' learns frame sequences: train it on image_pairs, transformed_video or "
                            "sine_walk, not '{}'",
                            cfg.model, cfg.task));
  if (!cfg.objective_options.is_null() && !cfg.objective_options.empty())
    throw Error(fmt::format("model '{}' defines its own loss; objective_options {} do not apply", cfg.model,
                            cfg.objective_options.dump()));
  const int64_t cond = sig.input_dim - sig.output_dim;
  if (cond > 0 && cfg.model != "cpgp")
    throw Error(fmt::format("task '{}' gives {} conditioning inputs beside each frame: only cpgp reads them, not '{}'",
                            cfg.task, cond, cfg.model));
  hf_without_structural_damping(cfg, fmt::format("model '{}'", cfg.model));
  nlohmann::json mopts = cfg.model_options.is_null() ? nlohmann::json::object() : cfg.model_options;
  const DType dt = cfg.dtype == "float64" ? DType::f64 : DType::f32;
  Rng init_rng(cfg.seed);
  if (cfg.model == "pair_ae") {
    const SizeFiller fill{models::pair_autoencoder_defaults(), mopts, cfg};
    fill("frame", sig.output_dim);
    cfg.model_options = models::resolve_pair_autoencoder_options(mopts);
    run.objective = std::make_unique<models::GatedObjective>(
        models::PairAutoencoder(models::pair_autoencoder_options(cfg.model_options), dt, init_rng));
    return;
  }
  const SizeFiller fill{models::gating_pyramid_defaults(cfg.model), mopts, cfg};
  fill("frame", sig.output_dim);
  fill("cond", cond);
  cfg.model_options = models::resolve_gating_pyramid_options(cfg.model, mopts);
  run.objective = std::make_unique<models::GatedObjective>(
      models::GatingPyramid(models::gating_pyramid_options(cfg.model, cfg.model_options), dt, init_rng));
}

void make_sequence_model(RunSetup& run, RunConfig& cfg, const tasks::Signature& sig) {
  const tasks::Task* task = dynamic_cast<const tasks::Task*>(run.train.get());
  if (!task)
    throw Error(fmt::format("model '{}' reads sequences, but task '{}' holds {} (train a feedforward network on it: "
                            "mlp or autoencoder)",
                            cfg.model, cfg.task, run.train->case_noun()));
  const models::ModelInfo& minfo = models::find(cfg.model);
  nlohmann::json mopts = cfg.model_options;
  const SizeFiller fill{minfo.defaults, mopts, cfg};
  if (sig.symbolic_input) {
    fill("vocab", sig.input_dim);
    if (minfo.defaults.contains("in") && !mopts.contains("in")) mopts["in"] = 0;
  } else {
    fill("in", sig.input_dim);
    if (minfo.defaults.contains("vocab") && !mopts.contains("vocab")) mopts["vocab"] = 0;
  }
  fill("out", sig.output_dim);
  fill("output", models::output_kind_name(sig.output));
  if (cfg.optimizer == "riemannian") with_training_statistics(cfg, *task, minfo, mopts);
  cfg.model_options = models::resolve(minfo, mopts);
  DType dt = cfg.dtype == "float64" ? DType::f64 : DType::f32;
  Rng init_rng(cfg.seed);
  std::unique_ptr<models::Model> model = minfo.make(cfg.model_options, dt, init_rng);
  if (model->output_kind() != sig.output)
    throw Error(fmt::format("model '{}' has {} outputs but task '{}' needs {}", cfg.model,
                            models::output_kind_name(model->output_kind()), cfg.task, models::output_kind_name(sig.output)));
  auto objective = std::make_unique<models::ModelObjective>(std::move(model),
                                                            models::objective_options_from_json(cfg.objective_options));
  cfg.objective_options = models::to_json(objective->options());
  run.sequence = objective.get();
  run.objective = std::move(objective);
}
}  // namespace

RunSetup make_run(RunConfig cfg) {
  // recorded resolved, so that a resumed run keeps them: riemannian does not split its batch
  if (cfg.threads == 0) cfg.threads = cfg.optimizer == "riemannian" ? 1 : default_threads();
  cfg.gemm = blas::resolve_gemm_backend(cfg.gemm);
  cfg.denormals = fenv::resolve_denormals(cfg.denormals);
  // The run's arithmetic from its making on (initialisation included), on this thread and the threads
  // it starts later (which inherit it); a process that makes several runs gets each one's mode.
  fenv::set_flush_denormals(cfg.denormals == "flush");
  RunSetup run;
  make_data(run, cfg);
  const tasks::Signature sig = run.train->signature();
  const bool reaching = dynamic_cast<const tasks::ReachTask*>(run.train.get()) != nullptr;
  if (cfg.model == "controller") make_controller(run, cfg);
  else if (models::is_temporal_rbm(cfg.model)) make_temporal_rbm(run, cfg, sig);
  else if (models::is_gating_pyramid(cfg.model) || cfg.model == "pair_ae") make_gated(run, cfg, sig);
  else if (reaching)
    throw Error(fmt::format("task '{}' is an arm to control: train model 'controller' on it, not '{}'", cfg.task,
                            cfg.model));
  else if (const models::NetworkInfo* net = models::find_network(cfg.model)) make_network(run, cfg, *net, sig);
  else make_sequence_model(run, cfg, sig);
  cfg.optimizer_options = resolved_optimizer_options(cfg.optimizer, cfg.optimizer_options);
  cfg.task_options = tasks::resolve(tasks::find(cfg.task), cfg.task_options);
  run.cfg = cfg;
  return run;
}

RunConfig as_recorded_before_options(RunConfig c) {
  if (c.threads == 0) c.threads = 1;
  if (c.gemm.empty()) c.gemm = "openblas";
  if (c.denormals.empty()) c.denormals = "keep";  // as every run did before the option
  return c;
}

RunConfig with_current_defaults(RunConfig c) {
  c = as_recorded_before_options(std::move(c));
  if (c.model == "controller") {
    c.model_options = models::resolve_controller_options(c.model_options);
  } else if (models::is_temporal_rbm(c.model)) {
    c.model_options = models::resolve_temporal_rbm_options(c.model, c.model_options);
  } else if (models::is_gating_pyramid(c.model)) {
    c.model_options = models::resolve_gating_pyramid_options(c.model, c.model_options);
  } else if (c.model == "pair_ae") {
    c.model_options = models::resolve_pair_autoencoder_options(c.model_options);
  } else if (const models::NetworkInfo* net = models::find_network(c.model)) {
    c.model_options = models::resolve(*net, c.model_options);
    c.objective_options = models::to_json(models::network_objective_options_from_json(c.objective_options));
  } else {
    c.model_options = models::resolve(models::find(c.model), c.model_options);
    c.objective_options = models::to_json(models::objective_options_from_json(c.objective_options));
  }
  c.optimizer_options = resolved_optimizer_options(c.optimizer, c.optimizer_options);
  c.task_options = tasks::resolve(tasks::find(c.task), c.task_options);
  return c;
}

EvalResult evaluate(optim::Objective& obj, const ParamVec& theta, const tasks::Dataset& task, int64_t max_sequences,
                    uint64_t seed, optim::Communicator* comm) {
  const bool parallel = comm && comm->parallel();
  EvalResult r;
  const int64_t fixed = task.num_cases();
  const int64_t total = fixed > 0 ? std::min(fixed, max_sequences) : max_sequences;
  const int64_t chunk = std::max<int64_t>(1, task.evaluation_chunk());  // bounds the tape's memory
  Rng rng(seed ^ kEvaluateSeedMix);
  double loss_sum = 0, weight_sum = 0;
  // per chunk: its score times its score weight, and that weight (sequences, or the measure's own)
  std::vector<double> chunk_errors, chunk_sizes;
  for (int64_t first = 0; first < total; first += chunk) {
    int64_t n = std::min(chunk, total - first);
    std::unique_ptr<tasks::Data> b = fixed > 0 ? task.cases(first, n) : task.draw(n, rng);
    r.sequences += n;
    chunk_sizes.push_back(0);
    chunk_errors.push_back(0);
    if (parallel) {  // every rank draws the chunk (the generator stays in step) and scores its shard
      auto [f, count] = optim::DistributedObjective::shard(n, comm->rank(), comm->size());
      if (count == 0) continue;
      b = b->slice(f, count);
      if (!(obj.weight(*b) > 0)) continue;
    }
    auto ev = obj.evaluate(theta, *b);
    const std::vector<Tensor> outputs = ev->output_values();
    const double w = obj.weight(*b);
    loss_sum += ev->task_value() * w;  // the task's loss: a regularizer's terms are not the model's fit
    weight_sum += w;
    chunk_sizes.back() = task.score_weight(*b);
    chunk_errors.back() = task.score(*b, outputs) * chunk_sizes.back();
  }
  if (parallel) {
    double sums[2] = {loss_sum, weight_sum};
    comm->sum(sums);
    loss_sum = sums[0], weight_sum = sums[1];
    comm->sum(chunk_errors);
    comm->sum(chunk_sizes);
  }
  double err_sum = 0, size_sum = 0;
  for (double e : chunk_errors) err_sum += e;
  for (double w : chunk_sizes) size_sum += w;
  r.loss = loss_sum / weight_sum;
  r.error_rate = err_sum / size_sum;
  if (tasks::measure(task.name()).name == "error rate") {
    r.interval = wilson_interval(r.error_rate, r.sequences);
  } else {
    std::vector<double> means;
    for (size_t k = 0; k < chunk_errors.size(); ++k) means.push_back(chunk_errors[k] / chunk_sizes[k]);
    r.interval = batch_means_interval(means, chunk_sizes);
  }
  return r;
}

}  // namespace tg::cli
