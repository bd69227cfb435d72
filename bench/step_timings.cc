#include "bench/step_timings.h"

#include <algorithm>

#include <fmt/format.h>

#include "ops/blas.h"

namespace tg::bench {

void time_step(optim::Objective& obj, const ParamVec& theta, const tasks::Data& batch, int reps, StepTimings& r,
               Timing* forward, optim::Objective* whole) {
  {  // the step's matrix products, counted on one gradient pass
    auto ev = (whole ? *whole : obj).evaluate(theta, batch);
    ev->grad();
    r.shapes = gemm_shapes(ev->graph());
  }
  r.step_gflop = gflop(r.shapes);
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
  std::vector<double> in_step_ms;  // one per call, the warm-up's first
  passes.push_back([&] {
    blas::reset_gemm_clock();
    blas::count_gemm_time(true);
    obj.evaluate(theta, batch)->grad();
    blas::count_gemm_time(false);
    in_step_ms.push_back(blas::gemm_clock_ms());
  });
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
  in_step_ms.erase(in_step_ms.begin());  // the warm-up round's
  r.gemm_in_step.samples_ms = in_step_ms;
  std::sort(in_step_ms.begin(), in_step_ms.end());
  const size_t n = in_step_ms.size();
  r.gemm_in_step.median_ms = n % 2 ? in_step_ms[n / 2] : 0.5 * (in_step_ms[n / 2 - 1] + in_step_ms[n / 2]);
  r.gemm_in_step.min_ms = in_step_ms.front();
  if (forward) *forward = t[replay_pass + 2];
  if (compare) r.gemm_openblas = t.back();
}

nlohmann::json to_json(const StepTimings& t, int reps) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const GemmShape& s : t.shapes)
    shapes.push_back({{"ta", s.ta}, {"tb", s.tb}, {"m", s.m}, {"n", s.n}, {"k", s.k}, {"count", s.count}});
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
          {"gemm_in_step_ms", t.gemm_in_step.median_ms},
          {"gemm_in_step_efficiency", t.gemm_in_step_efficiency()},
          {"gemm_in_step_samples_ms", t.gemm_in_step.samples_ms},
          {"replay_nodes", t.replayed_nodes},
          {"tape_nodes", t.tape_nodes},
          {"replay_samples_ms", t.replay.samples_ms},
          {"step_samples_ms", t.step.samples_ms},
          {"gnvp_samples_ms", t.gnvp.samples_ms},
          {"gemm_samples_ms", t.gemm.samples_ms},
          {"gemm_shapes", shapes}};
}

std::string step_summary_rows(const StepTimings& t) {
  std::string s = fmt::format("{:<44}{:>11.2f}{:>9.2f}\n", "Gauss-Newton product, cached linearization",
                              t.gnvp.median_ms, t.gnvp.min_ms);
  s += fmt::format("{:<44}{:>11.2f}{:>9.2f}\n", "the step's gemms alone (the backend)", t.gemm.median_ms, t.gemm.min_ms);
  if (!t.gemm_openblas.samples_ms.empty())
    s += fmt::format("{:<44}{:>11.2f}{:>9.2f}\n", "the step's gemms alone (openblas)", t.gemm_openblas.median_ms,
                     t.gemm_openblas.min_ms);
  s += fmt::format("{:<44}{:>11.2f}{:>9.2f}\n", "replay: the step's nodes re-run, no build", t.replay.median_ms,
                   t.replay.min_ms);
  s += fmt::format("{:<44}{:>11.2f}{:>9.2f}\n", "the step's gemms inside the step", t.gemm_in_step.median_ms,
                   t.gemm_in_step.min_ms);
  s += fmt::format("\nGN product / step       {:.3f}\n", t.gnvp.median_ms / t.step.median_ms);
  s += fmt::format("replay / step           {:.3f}   ({} of the tape's {} nodes evaluated by the step, re-run in order "
                   "on one thread: the graph's building is the rest)\n",
                   t.replay.median_ms / t.step.median_ms, t.replayed_nodes, t.tape_nodes);
  s += fmt::format("gemm in step            {:.0f}% as fast as the same products alone (same-shape gemm efficiency; "
                   "target >= 90%){}\n",
                   100.0 * t.gemm_in_step_efficiency(), t.threads > 1 ? ", summed over the threads" : "");
  s += fmt::format("matrix-product work     {:.2f} GFLOP per step in {} shapes\n", t.step_gflop, t.shapes.size());
  s += fmt::format("achieved                {:.1f} GFLOP/s   (sgemm alone {:.1f} GFLOP/s: {:.0f}%)\n",
                   t.achieved_gflops(), t.gemm_gflops(), 100.0 * t.gemm.median_ms / t.step.median_ms);
  if (!t.gemm_openblas.samples_ms.empty())
    s += fmt::format("gemm backend            {}: {:.1f} GFLOP/s on the step's shapes, openblas {:.1f}\n",
                     blas::gemm_backend(), t.gemm_gflops(), t.step_gflop / (t.gemm_openblas.median_ms * 1e-3));
  return s;
}

}  // namespace tg::bench
