// What the zoo and network step benchmarks measure alike: the training step, a Gauss-Newton product
// and the step's gemms alone, with the machine and the step's matrix-product work; and how both
// report it (the JSON keys and the table's shared rows), so the two outputs stay comparable.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/fma_roof.h"
#include "bench/gemm_work.h"
#include "bench/lstm_lm.h"
#include "optim/objective.h"

namespace tg::bench {

// Where a step's kernel time goes: the nodes of one primitive (matmul, lstm_cell, add, ...) that a step
// evaluates, and their kernels' time per step (each node of the recorded tape re-run and timed alone).
struct OpTime {
  std::string op;
  int64_t nodes = 0;
  double ms = 0;
};

struct StepTimings {
  std::string machine;
  int threads = 0;
  int64_t params = 0;
  Timing step;  // forward + gradient (build, evaluate, reverse sweep), a training step minus the update
  Timing gnvp;  // one Gauss-Newton product on a cached linearization
  Timing gemm;  // the step's matrix products, run alone through the gemm backend (same shapes, same counts)
  Timing gemm_openblas;  // the same through OpenBLAS alone, when the backend is another (else empty)
  // The nodes one step evaluated, re-run in tape order on its recorded tape (same batch, same θ, one
  // thread): the kernels without building the graph, what a replayed tape would cost (issue 25 item 5)
  Timing replay;
  // The step with a new graph every time (an objective whose TapeCache is off): what rebuilding the last
  // step's record saves (core/tape_cache.h). Empty when not measured.
  Timing step_new_graph;
  // The step's own matrix products, timed inside the step (the gemm clock, ops/blas.h; summed over the
  // threads when the batch is split) on `reps` more steps after the rounds
  Timing gemm_in_step;
  std::vector<OpTime> profile;  // by primitive, the most time first (median over up to 5 re-runs of the tape)
  int64_t tape_nodes = 0, replayed_nodes = 0;
  std::vector<GemmShape> shapes;
  double step_gflop = 0;  // matrix-product work of one step
  FmaRoof roof;           // one thread's float32 FMA throughput: no product runs faster
  // Whether the gemm clock sums the threads' times (the batch split between threads, each gemm on one) or
  // times each multi-threaded gemm once, by the wall clock (threads handed to the BLAS: network_step)
  bool gemm_clock_sums_threads = true;
  double achieved_gflops() const { return step_gflop / (step.median_ms * 1e-3); }
  double gemm_gflops() const { return step_gflop / (gemm.median_ms * 1e-3); }
  // Same-shape gemm efficiency: the products run alone over the same products inside a step (1: as fast)
  double gemm_in_step_efficiency() const { return gemm.median_ms / gemm_in_step.median_ms; }
  // The step's products inside the step, per thread
  double gemm_in_step_gflops() const {
    const double rate = step_gflop / (gemm_in_step.median_ms * 1e-3);
    return gemm_clock_sums_threads ? rate : rate / std::max(threads, 1);
  }
  // The step's products on one thread at the roof: what no gemm can go below
  double roof_ms() const { return roof.gflops > 0 ? step_gflop / roof.gflops * 1e3 : 0; }
};

// Counts the step's matrix products on one gradient pass (r.shapes, r.step_gflop), then times side by
// side over `reps` rounds: the forward pass (when `forward` is given), the step, a Gauss-Newton product
// on a cached linearization and the step's gemms alone (r.step, r.gnvp, r.gemm; and through OpenBLAS,
// r.gemm_openblas, when the backend is another), and the step's evaluated nodes re-run on its recorded tape
// (r.replay); then, after the rounds, the step's products timed inside `reps` more steps (r.gemm_in_step)
// and the replay's time by primitive (r.profile). An objective that splits the batch between threads
// has no single tape: `whole` (the same objective, unsplit) is the one whose products are counted, and
// the gemms alone run them on one thread.
// `new_graphs`, when given: the same objective with its tape cache off, timed as r.step_new_graph.
void time_step(optim::Objective& obj, const ParamVec& theta, const tasks::Data& batch, int reps, StepTimings& r,
               Timing* forward = nullptr, optim::Objective* whole = nullptr, optim::Objective* new_graphs = nullptr);

// The keys both benchmarks print: times, samples, GFLOP/s, the gemm shapes, machine and threads.
nlohmann::json to_json(const StepTimings& t, int reps);
// One row of the pass table: label, median and min in ms; to the microsecond under 10 ms, where a small
// model's whole step is a fraction of a millisecond (issue 25 item 5's figure is in µs).
std::string timing_row(std::string_view label, const Timing& t);
// The table's rows from the Gauss-Newton product on: its time, the gemms alone, and the summary lines.
std::string step_summary_rows(const StepTimings& t);

}  // namespace tg::bench
