#include "bench/zoo_step.h"

#include <memory>
#include <random>

#include <fmt/format.h>

#include "core/error.h"
#include "models/objective.h"
#include "optim/threaded_objective.h"
#include "ops/blas.h"

namespace tg::bench {

namespace {

// Random next-symbol data: B streams of T+1 symbols, inputs 0..T-1, targets 1..T.
tasks::Batch random_text_batch(const ZooStepConfig& c) {
  Rng rng(c.seed + 1000);
  std::uniform_int_distribution<int32_t> sym(0, static_cast<int32_t>(c.vocab - 1));
  std::vector<std::vector<int32_t>> stream(static_cast<size_t>(c.steps + 1), std::vector<int32_t>(c.batch));
  for (auto& step : stream)
    for (auto& x : step) x = sym(rng);
  tasks::Batch b;
  b.inputs.T = c.steps;
  b.inputs.B = c.batch;
  for (int64_t t = 0; t < c.steps; ++t) {
    b.inputs.symbols.push_back(ops::make_index(stream[t]));
    b.targets.symbols.push_back(ops::make_index(stream[t + 1]));
  }
  return b;
}

// Random frames and label sequences: B sequences of T frames of `in` N(0, 1) features, each with T / 10
// labels in [0, V - 1) (the blank is class V - 1).
tasks::Batch random_speech_batch(const ZooStepConfig& c) {
  Rng rng(c.seed + 1000);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int32_t> label(0, static_cast<int32_t>(c.vocab - 2));
  tasks::Batch b;
  b.inputs.T = c.steps;
  b.inputs.B = c.batch;
  for (int64_t t = 0; t < c.steps; ++t) {
    std::vector<double> x(static_cast<size_t>(c.batch * c.in));
    for (double& v : x) v = normal(rng);
    b.inputs.dense.push_back(Tensor::from({c.batch, c.in}, x, DType::f32));
  }
  for (int64_t s = 0; s < c.batch; ++s) {
    std::vector<int32_t> l(static_cast<size_t>(std::max<int64_t>(1, c.steps / 10)));
    for (int32_t& y : l) y = label(rng);
    b.targets.labels.push_back(std::move(l));
  }
  return b;
}

}  // namespace

ZooStepResult run_zoo_step(const ZooStepConfig& cfg) {
  ZooStepResult r;
  r.cfg = cfg;
  // threads > 1: as the trainer runs, the batch split between the threads (optim/threaded_objective.h),
  // each with single-threaded products
  blas::set_threads(cfg.threads > 1 ? 1 : cfg.threads);
  r.threads = cfg.threads;
  r.machine = machine_line();

  const models::ModelInfo& info = models::find(cfg.model);
  nlohmann::json user = {{"vocab", cfg.vocab}, {"hidden", cfg.hidden}};
  if (cfg.ctc) user = {{"vocab", 0}, {"in", cfg.in}, {"out", cfg.vocab}, {"layers", std::vector<int64_t>(cfg.depth, cfg.hidden)}};
  const nlohmann::json opts = models::resolve(info, user);
  Rng rng(cfg.seed);
  models::ObjectiveOptions oo;
  oo.structural = "none";  // a plain training step: loss and gradient only
  models::ModelObjective obj(info.make(opts, DType::f32, rng), oo);
  std::vector<std::unique_ptr<models::ModelObjective>> replicas;
  std::vector<optim::Objective*> shards{&obj};
  for (int t = 1; t < cfg.threads; ++t) {
    Rng replica_rng(cfg.seed);
    shards.push_back(replicas.emplace_back(std::make_unique<models::ModelObjective>(info.make(opts, DType::f32, replica_rng), oo)).get());
  }
  optim::ThreadedObjective threaded(shards);
  if (obj.model().output_kind() != models::OutputKind::softmax || obj.model().io().symbolic() == cfg.ctc)
    throw Error(fmt::format("bench: model '{}' must {} (softmax output)", cfg.model,
                            cfg.ctc ? "read frames and classify them for CTC" : "take symbols and predict them"));
  const ParamVec theta = obj.params().values();
  r.params = theta.size();
  const tasks::Batch batch = cfg.ctc ? random_speech_batch(cfg) : random_text_batch(cfg);

  if (cfg.threads > 1) {
    time_step(threaded, theta, batch, cfg.reps, r, nullptr, &obj);
  } else {
    Rng same(cfg.seed);
    models::ModelObjective new_graphs(info.make(opts, DType::f32, same), oo);
    new_graphs.tape_cache().set_enabled(false);
    time_step(obj, theta, batch, cfg.reps, r, nullptr, nullptr, &new_graphs);
  }
  return r;
}

nlohmann::json to_json(const ZooStepResult& r) {
  nlohmann::json j = to_json(static_cast<const StepTimings&>(r), r.cfg.reps);
  j["model"] = r.cfg.model;
  j["config"] = {{"V", r.cfg.vocab}, {"H", r.cfg.hidden}, {"B", r.cfg.batch}, {"T", r.cfg.steps}, {"dtype", "float32"}};
  if (r.cfg.ctc) {
    j["config"]["ctc"] = true;
    j["config"]["in"] = r.cfg.in;
    j["config"]["layers"] = r.cfg.depth;
  }
  return j;
}

std::string to_table(const ZooStepResult& r) {
  const ZooStepConfig& c = r.cfg;
  std::string s =
      c.ctc ? fmt::format("tapegrad training step: {} with CTC, {} inputs, {} layers of H={} per direction, {} classes, "
                          "B={} T={} float32, {} parameters\n",
                          c.model, c.in, c.depth, c.hidden, c.vocab, c.batch, c.steps, r.params)
            : fmt::format("tapegrad training step: {} char model, V={} H={} B={} T={} float32, {} parameters\n",
                          c.model, c.vocab, c.hidden, c.batch, c.steps, r.params);
  s += fmt::format("machine: {}   threads: {}{}   reps: {} rounds, passes side by side\n\n", r.machine, r.threads,
                   r.threads > 1 ? " (the batch split between them; the gemms alone on one)" : "", c.reps);
  s += fmt::format("{:<44}{:>11}{:>9}\n", "pass (ms)", "median", "min");
  s += timing_row("step (forward + gradient)", r.step);
  s += step_summary_rows(r);
  return s;
}

}  // namespace tg::bench
