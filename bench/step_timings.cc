#include "bench/step_timings.h"

#include <algorithm>
#include <chrono>
#include <map>

#include <fmt/format.h>

#include "ops/blas.h"

namespace tg::bench {

namespace {
// Each node of `ran` re-run alone and timed, `rounds` times; per primitive the median of its rounds'
// totals. The clock's reads (~20-40 ns a node) are inside the figures: this says where time goes, not
// how long a step takes (that is r.replay).
std::vector<OpTime> profile_by_op(Graph& tape, const std::vector<int32_t>& ran, int rounds) {
  using clock = std::chrono::steady_clock;
  std::map<std::string, std::vector<double>> ms;  // per op, one total per round
  std::map<std::string, int64_t> nodes;
  for (int32_t id : ran) ++nodes[tape.node(id).prim->name];
  for (int round = 0; round < rounds; ++round) {
    std::map<std::string, double> total;
    for (int32_t id : ran) {
      const auto t0 = clock::now();
      tape.eval(id);
      total[tape.node(id).prim->name] += std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    }
    for (const auto& [op, t] : total) ms[op].push_back(t);
  }
  std::vector<OpTime> out;
  for (const auto& [op, samples] : ms) out.push_back(OpTime{op, nodes[op], median(samples)});
  std::sort(out.begin(), out.end(), [](const OpTime& a, const OpTime& b) { return a.ms > b.ms; });
  return out;
}

nlohmann::json profile_json(const std::vector<OpTime>& profile) {
  nlohmann::json j = nlohmann::json::array();
  for (const OpTime& o : profile) j.push_back({{"op", o.op}, {"nodes", o.nodes}, {"ms", o.ms}});
  return j;
}
}  // namespace

void time_step(optim::Objective& obj, const ParamVec& theta, const tasks::Data& batch, int reps, StepTimings& r,
               Timing* forward, optim::Objective* whole, optim::Objective* new_graphs) {
  {  // the step's matrix products, counted on one gradient pass
    auto ev = (whole ? *whole : obj).evaluate(theta, batch);
    ev->grad();
    r.shapes = gemm_shapes(ev->graph());
  }
  r.step_gflop = gflop(r.shapes);
  r.roof = measure_fma_roof();
  auto cached = obj.evaluate(theta, batch);
  Rng vrng(7);
  const ParamVec v = ParamVec::random_normal(theta.layout(), theta.dtype(), vrng);
  cached->gnvp(v);  // builds the segment
  GemmRun gemms(r.shapes);
  std::vector<std::function<void()>> passes = {[&] { obj.evaluate(theta, batch)->grad(); },
                                               [&] { cached->gnvp(v); },
                                               [&] { gemms(); }};
  // the kernels alone: every node the step evaluated (not the pending ones nothing read), re-run in order
  auto recorded = (whole ? *whole : obj).evaluate(theta, batch);
  recorded->grad();
  Graph& tape = recorded->graph();
  std::vector<int32_t> ran;
  for (int32_t id = 0; id < tape.size(); ++id)
    if (tape.eval_count(id) > 0) ran.push_back(id);
  r.tape_nodes = tape.size();
  r.replayed_nodes = static_cast<int64_t>(ran.size());
  passes.push_back([&] {
    for (int32_t id : ran) tape.eval(id);
  });
  const size_t replay_pass = passes.size() - 1;
  const size_t new_graph_pass = passes.size();
  if (new_graphs) passes.push_back([&] { new_graphs->evaluate(theta, batch)->grad(); });
  const size_t forward_pass = passes.size();
  if (forward) passes.push_back([&] { obj.evaluate(theta, batch)->value(); });
  const std::string backend = blas::gemm_backend();
  const bool compare = backend != "openblas";
  if (compare)
    passes.push_back([&] {
      blas::set_gemm_backend("openblas");
      gemms();
      blas::set_gemm_backend("onednn");  // compare is only true when oneDNN was the backend
    });
  const std::vector<Timing> t = time_rounds(passes, reps);
  r.step = t[0];
  r.gnvp = t[1];
  r.gemm = t[2];
  r.replay = t[replay_pass];
  // after the rounds, not among them: an extra pass in a round moved a tiny model's other passes' times
  std::vector<double> in_step_ms;
  struct ClockOn {  // off again however the step ends
    ClockOn() { blas::count_gemm_time(true); }
    ~ClockOn() { blas::count_gemm_time(false); }
  };
  for (int i = 0; i < std::max(reps, 1); ++i) {
    blas::reset_gemm_clock();
    {
      ClockOn on;
      obj.evaluate(theta, batch)->grad();
    }
    in_step_ms.push_back(blas::gemm_clock_ms());
  }
  r.gemm_in_step.samples_ms = in_step_ms;
  r.gemm_in_step.median_ms = median(in_step_ms);
  r.gemm_in_step.min_ms = *std::min_element(in_step_ms.begin(), in_step_ms.end());
  r.profile = profile_by_op(tape, ran, std::min(reps, 5));
  if (new_graphs) r.step_new_graph = t[new_graph_pass];
  if (forward) *forward = t[forward_pass];
  if (compare) r.gemm_openblas = t.back();
}

nlohmann::json to_json(const StepTimings& t, int reps) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const GemmShape& s : t.shapes)
    shapes.push_back({{"ta", s.ta}, {"tb", s.tb}, {"m", s.m}, {"n", s.n}, {"k", s.k}, {"count", s.count}, {"beta", s.accumulate ? 1 : 0}});
  return {{"machine", t.machine},
          {"threads", t.threads},
          {"reps", reps},
          {"params", t.params},
          {"step_ms", t.step.median_ms},
          {"step_cpu_ms", t.step.cpu_median_ms},
          {"gnvp_ms", t.gnvp.median_ms},
          {"gn_over_step", t.gnvp.median_ms / t.step.median_ms},
          {"gemm_ms", t.gemm.median_ms},
          {"gemm_backend", blas::gemm_backend()},
          {"gemm_openblas_ms", t.gemm_openblas.samples_ms.empty() ? nlohmann::json() : nlohmann::json(t.gemm_openblas.median_ms)},
          {"step_gflop", t.step_gflop},
          {"achieved_gflops", t.achieved_gflops()},
          {"gemm_gflops", t.gemm_gflops()},
          {"fraction_of_gemm", t.gemm.median_ms / t.step.median_ms},
          {"replay_ms", t.replay.median_ms},
          {"step_new_graph_ms", t.step_new_graph.samples_ms.empty() ? nlohmann::json() : nlohmann::json(t.step_new_graph.median_ms)},
          {"gemm_in_step_ms", t.gemm_in_step.median_ms},
          {"gemm_in_step_efficiency", t.gemm_in_step_efficiency()},
          {"gemm_in_step_gflops_per_thread", t.gemm_in_step_gflops()},
          {"fma_roof_gflops", t.roof.gflops > 0 ? nlohmann::json(t.roof.gflops) : nlohmann::json()},
          {"fma_roof_isa", t.roof.isa},
          {"products_at_roof_one_thread_ms", t.roof_ms()},
          {"gemm_in_step_samples_ms", t.gemm_in_step.samples_ms},
          {"profile", profile_json(t.profile)},
          {"replay_nodes", t.replayed_nodes},
          {"tape_nodes", t.tape_nodes},
          {"replay_samples_ms", t.replay.samples_ms},
          {"step_samples_ms", t.step.samples_ms},
          {"gnvp_samples_ms", t.gnvp.samples_ms},
          {"gemm_samples_ms", t.gemm.samples_ms},
          {"gemm_shapes", shapes}};
}

std::string timing_row(std::string_view label, const Timing& t) {
  const int digits = t.median_ms < 10 ? 3 : 2;
  return fmt::format("{:<44}{:>11.{}f}{:>9.{}f}\n", label, t.median_ms, digits, t.min_ms, digits);
}

std::string step_summary_rows(const StepTimings& t) {
  std::string s = timing_row("Gauss-Newton product, cached linearization", t.gnvp);
  s += timing_row("the step's gemms alone (the backend)", t.gemm);
  if (!t.gemm_openblas.samples_ms.empty()) s += timing_row("the step's gemms alone (openblas)", t.gemm_openblas);
  s += timing_row("replay: the step's nodes re-run, no build", t.replay);
  s += timing_row("the step's gemms inside the step", t.gemm_in_step);
  if (!t.step_new_graph.samples_ms.empty()) s += timing_row("step, a new graph each time (no tape reuse)", t.step_new_graph);
  s += fmt::format("\nGN product / step       {:.3f}\n", t.gnvp.median_ms / t.step.median_ms);
  s += fmt::format("replay / step           {:.3f}   ({} of the tape's {} nodes evaluated by the step, re-run in order "
                   "on one thread: the graph's building is the rest)\n",
                   t.replay.median_ms / t.step.median_ms, t.replayed_nodes, t.tape_nodes);
  if (!t.step_new_graph.samples_ms.empty())
    s += fmt::format("tape reuse              {:.2f}x   (a new graph each time / the step, which rebuilds the last "
                     "step's record: core/tape_cache.h)\n",
                     t.step_new_graph.median_ms / t.step.median_ms);
  s += fmt::format("gemm in step            {:.0f}% as fast as the same products alone (same-shape gemm efficiency; "
                   "target >= 90%){}\n",
                   100.0 * t.gemm_in_step_efficiency(),
                   t.threads > 1 && t.gemm_clock_sums_threads ? ", summed over the threads" : "");
  s += fmt::format("matrix-product work     {:.2f} GFLOP per step in {} shapes\n", t.step_gflop, t.shapes.size());
  s += fmt::format("achieved                {:.1f} GFLOP/s   (sgemm alone {:.1f} GFLOP/s: {:.0f}%)\n",
                   t.achieved_gflops(), t.gemm_gflops(), 100.0 * t.gemm.median_ms / t.step.median_ms);
  if (t.roof.gflops > 0)
    s += fmt::format("FMA roof                {:.1f} GFLOP/s per thread ({} float32 multiply-adds); the step's products "
                     "ran at {:.1f} per thread inside the step ({:.0f}% of it) and would take {:.2f} ms at the roof\n",
                     t.roof.gflops, t.roof.isa, t.gemm_in_step_gflops(), 100.0 * t.gemm_in_step_gflops() / t.roof.gflops,
                     t.roof_ms() / std::max(t.threads, 1));
  else
    s += fmt::format("FMA roof                not measured: {}\n", t.roof.isa);
  if (!t.gemm_openblas.samples_ms.empty())
    s += fmt::format("gemm backend            {}: {:.1f} GFLOP/s on the step's shapes, openblas {:.1f}\n",
                     blas::gemm_backend(), t.gemm_gflops(), t.step_gflop / (t.gemm_openblas.median_ms * 1e-3));
  double total = 0;
  for (const OpTime& o : t.profile) total += o.ms;
  s += fmt::format("kernel time by op       (the step's nodes re-run one by one and timed; {:.2f} ms in all)\n", total);
  for (size_t i = 0; i < t.profile.size() && i < 12; ++i)
    s += fmt::format("  {:<22}{:>9.3f} ms {:>5.1f}%  {:>6} nodes\n", t.profile[i].op, t.profile[i].ms,
                     total > 0 ? 100.0 * t.profile[i].ms / total : 0.0, t.profile[i].nodes);
  return s;
}

}  // namespace tg::bench
