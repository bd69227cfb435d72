#include "tools/run_setup.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "models/loss.h"
#include "optim/distributed.h"
#include "riemannian/optimizer.h"
#include "tools/optimizers.h"

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
  if (cfg.optimizer == "riemannian") with_training_statistics(cfg, *run.train, minfo, mopts);
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

RunConfig with_current_defaults(RunConfig c) {
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
  Rng rng(seed ^ kEvaluateSeedMix);
  double loss_sum = 0, weight_sum = 0;
  std::vector<double> chunk_errors, chunk_sizes;  // error sums (rate x sequences) and sizes per chunk
  for (int64_t first = 0; first < total; first += chunk) {
    int64_t n = std::min(chunk, total - first);
    tasks::Batch b = fixed > 0 ? task.sequences(first, n) : task.sample(n, rng);
    r.sequences += n;
    chunk_sizes.push_back(static_cast<double>(n));
    chunk_errors.push_back(0);
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
    chunk_errors.back() = task.error_rate(b, outputs) * static_cast<double>(b.size());
  }
  if (parallel) {
    double sums[2] = {loss_sum, weight_sum};
    comm->sum(sums);
    loss_sum = sums[0], weight_sum = sums[1];
    comm->sum(chunk_errors);
  }
  double err_sum = 0;
  for (double e : chunk_errors) err_sum += e;
  r.loss = loss_sum / weight_sum;
  r.error_rate = err_sum / static_cast<double>(r.sequences);
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
