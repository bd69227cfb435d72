#include "tools/run_limits.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"
#include "core/graph.h"
#include "core/remat.h"

namespace tg::cli {

int default_threads(const MachineLimits& m) {
  // An MPI launcher that binds ranks has already given each its own cores (the affinity mask is the
  // rank's); only an unbound rank, seeing every core, shares them with the other ranks here.
  if (m.cores < ::sysconf(_SC_NPROCESSORS_ONLN)) return static_cast<int>(m.cores);
  int64_t ranks = 1;
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})  // Open MPI's, MPICH's
    if (const char* local = std::getenv(var)) ranks = std::max(1L, std::atol(local));
  return static_cast<int>(std::max<int64_t>(1, m.cores / ranks));
}

MachineLimits machine_limits() {
  MachineLimits m;
  cpu_set_t set;
  CPU_ZERO(&set);
  m.cores = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : ::sysconf(_SC_NPROCESSORS_ONLN);
  m.cores = std::max<int64_t>(1, m.cores);
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") {
      m.available_bytes = kb * 1024;
      return m;
    }
    in.ignore(1 << 10, '\n');
  }
  m.available_bytes = static_cast<int64_t>(::sysconf(_SC_AVPHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
  return m;
}

namespace {

std::string gb(double bytes) { return bytes >= 1e9 ? fmt::format("{:.3g} GB", bytes / 1e9) : fmt::format("{:.3g} MB", bytes / 1e6); }

// The forward values of a model unrolled over B sequences of T steps of zero inputs.
int64_t forward_bytes(const models::Model& model, const tasks::Signature& sig, int64_t B, int64_t T) {
  Graph g;
  models::Sequence s;
  s.T = T;
  s.B = B;
  const DType dt = model.params().dtype();
  for (int64_t t = 0; t < T; ++t) {
    if (sig.symbolic_input) s.symbols.push_back(ops::make_index(std::vector<int32_t>(B, 0)));
    else s.dense.push_back(Tensor::zeros(Shape{B, sig.input_dim}, dt));
  }
  model.unroll(g, s);
  return ad::value_bytes(g);
}

// The forward values of a network on B zero images.
int64_t network_forward_bytes(const models::Network& net, int64_t B) {
  Graph g;
  net.forward(g, g.input(Tensor::zeros(Shape{B, net.input_size()}, net.params().dtype())));
  return ad::value_bytes(g);
}

// A network's run: the training step's tape (batch images) and the evaluation's (500 at a time).
void check_network_memory(const RunSetup& run, const MachineLimits& m) {
  const models::Network& net = run.network->network();
  const int64_t per_image = std::max<int64_t>(1, (network_forward_bytes(net, 8) - network_forward_bytes(net, 4)) / 4);
  const double train_bytes = 2.0 * static_cast<double>(run.cfg.batch) * static_cast<double>(per_image);
  const double eval_bytes = 500.0 * static_cast<double>(per_image);
  const double avail = static_cast<double>(m.available_bytes);
  if (std::max(train_bytes, eval_bytes) > avail)
    throw Error(fmt::format("train: batch={} images need about {} for a training step's tape (an estimate: {} bytes per "
                            "image, times 2 for the derivative nodes), and evaluation {}, but {} are available "
                            "(MemAvailable): lower batch",
                            run.cfg.batch, gb(train_bytes), per_image, gb(eval_bytes), gb(avail)));
}

// Any other objective (the arm controller's): the tape of a batch, from the tapes of 2 and 4 drawn cases
// (of 1 and all of them when fixed data has fewer than 4).
void check_graph_memory(const RunSetup& run, const MachineLimits& m) {
  Rng rng(1);
  const ParamVec theta = run.objective->params().values();
  auto bytes = [&](int64_t n) {
    return ad::value_bytes(run.objective->evaluate(theta, *run.train->draw(n, rng))->graph());
  };
  const int64_t cases = run.train->num_cases();
  const int64_t most = cases > 0 ? std::min<int64_t>(4, cases) : 4, least = most == 4 ? 2 : 1;
  const int64_t per_case =
      std::max<int64_t>(1, most > least ? (bytes(most) - bytes(least)) / (most - least) : bytes(most));
  const double train_bytes = 2.0 * static_cast<double>(run.cfg.batch) * static_cast<double>(per_case);
  const double avail = static_cast<double>(m.available_bytes);
  if (train_bytes > avail)
    throw Error(fmt::format("train: batch={} {} need about {} for a training step's tape (an estimate: {} bytes each, "
                            "times 2 for the derivative nodes), but {} are available (MemAvailable): lower batch",
                            run.cfg.batch, run.train->case_noun(), gb(train_bytes), per_case, gb(avail)));
}

// The longest sequence the task draws: its option T (with the 10% of the tasks whose length varies in
// [T, 11T/10]), or one drawn sequence's length.
int64_t sequence_steps(const RunSetup& run) {
  const nlohmann::json& o = run.cfg.task_options;
  if (o.contains("T") && o["T"].is_number_integer()) return o["T"].get<int64_t>() * 11 / 10 + 1;
  Rng rng(1);
  return tasks::as_task(*run.train, "the run's memory check").sample(1, rng).steps();
}

}  // namespace

int64_t tape_bytes_per_sequence_step(const RunSetup& run) {
  const models::Model& model = run.sequence_objective("the tape's size per sequence step").model();
  const tasks::Signature sig = run.train->signature();
  constexpr int64_t B = 4;
  const int64_t d = forward_bytes(model, sig, B, 8) - forward_bytes(model, sig, B, 4);  // the parameters cancel
  return std::max<int64_t>(1, d / (4 * B));
}

void check_run_limits(const RunSetup& run, bool resume, const MachineLimits& m) {
  const RunConfig& cfg = run.cfg;
  if (cfg.threads > m.cores) {
    const std::string what = fmt::format("threads={} but this process may use {} core{}", cfg.threads, m.cores,
                                         m.cores == 1 ? "" : "s");
    // Thread counts above the cores only make the threads wait on each other.
    if (!resume)
      throw Error(fmt::format("train: {}; more threads than cores only slow a run down: set threads <= {}", what,
                              m.cores));
    std::fprintf(stderr, "train: warning: %s; the run keeps the thread count it was made with, so it will be slow\n",
                 what.c_str());
  }
  if (run.network) return check_network_memory(run, m);
  if (!run.sequence) return check_graph_memory(run, m);
  const tasks::Dataset& valid = run.valid ? *run.valid : *run.train;
  const int64_t T = sequence_steps(run);
  const int64_t per_step = tape_bytes_per_sequence_step(run);
  const double params = static_cast<double>(run.objective->params().numel());
  if (valid.num_cases() == 0 && cfg.eval_batch > kMaxFreshEvalSequences)
    throw Error(fmt::format(
        "train: eval_batch={} fresh validation sequences per evaluation is above the bound of {}: evaluate() scores "
        "them 500 at a time, so the cost is time, not memory: about {:.2g} multiply-adds ({} sequences x {} steps x {} "
        "parameters) every evaluation; the default is 1000",
        cfg.eval_batch, kMaxFreshEvalSequences, static_cast<double>(cfg.eval_batch) * static_cast<double>(T) * params,
        cfg.eval_batch, T, static_cast<int64_t>(params)));
  // With remat_segments S, a training step keeps one segment of T/S steps plus S boundary states.
  const int64_t S = cfg.objective_options.value("remat_segments", int64_t{0});
  const double kept_steps = S == 0 ? static_cast<double>(T)
                                   : S < 0 ? 2 * std::sqrt(static_cast<double>(T))
                                           : std::ceil(static_cast<double>(T) / static_cast<double>(S)) + static_cast<double>(S);
  const double train_bytes = 2.0 * static_cast<double>(cfg.batch) * kept_steps * static_cast<double>(per_step);
  const double eval_bytes = static_cast<double>(std::min<int64_t>(500, cfg.eval_batch)) * static_cast<double>(T) *
                            static_cast<double>(per_step);
  const double avail = static_cast<double>(m.available_bytes);
  if (train_bytes > avail)
    throw Error(fmt::format(
        "train: batch={} sequences of up to {} steps need about {} for a training step's tape (an estimate: {} bytes "
        "per sequence and step, times 2 for the derivative nodes), but {} are available (MemAvailable): "
        "lower batch or the task's T, or set objective_options.remat_segments",
        cfg.batch, T, gb(train_bytes), per_step, gb(avail)));
  if (eval_bytes > avail)
    throw Error(fmt::format("train: evaluating 500 sequences of up to {} steps needs about {} ({} bytes per sequence "
                            "and step), but {} are available (MemAvailable): lower the task's T",
                            T, gb(eval_bytes), per_step, gb(avail)));
}

}  // namespace tg::cli
