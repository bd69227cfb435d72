// Google Benchmark binary for the engine's speed targets (the same workload and passes as
// `tapegrad bench`, which also prints the ratios). One OpenBLAS thread unless --blas_threads=N.
//   ./build/bench/tapegrad_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "bench/lstm_lm.h"
#include "ops/blas.h"

namespace {
using tg::bench::LstmLm;
using tg::bench::LstmLmConfig;

// One model per hidden size, built once (parameters and symbols are not part of any pass).
const LstmLm& model(int64_t hidden) {
  static std::map<int64_t, std::unique_ptr<LstmLm>> cache;
  auto& m = cache[hidden];
  if (!m) m = std::make_unique<LstmLm>(LstmLmConfig{.hidden = hidden});
  return *m;
}
const LstmLm& tiny_model() {
  static const LstmLm m(tg::bench::EngineBenchOptions{}.tiny);
  return m;
}

void BM_Forward(benchmark::State& state) {
  const LstmLm& m = model(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(tg::bench::forward_pass(m));
}
void BM_Grad(benchmark::State& state) {
  const LstmLm& m = model(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(tg::bench::grad_pass(m));
}
void BM_JvpCached(benchmark::State& state) {
  tg::bench::CachedProducts cp(model(state.range(0)));
  cp.warm_up();
  for (auto _ : state) benchmark::DoNotOptimize(cp.jvp());
}
void BM_GnvpCached(benchmark::State& state) {
  tg::bench::CachedProducts cp(model(state.range(0)));
  cp.warm_up();
  for (auto _ : state) benchmark::DoNotOptimize(cp.gnvp());
}
// Graph overhead: per-node time of a gradient pass on a graph whose kernels cost next to nothing.
void BM_TinyGradPass(benchmark::State& state) {
  const LstmLm& m = tiny_model();
  int64_t nodes = 0;
  {
    tg::Graph g;
    tg::ad::value_and_grad(m.build(g).loss);
    nodes = g.size();
  }
  double seconds = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(tg::bench::grad_pass(m));
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["us_per_node"] =
      seconds * 1e6 / (static_cast<double>(state.iterations()) * static_cast<double>(nodes));
  state.SetItemsProcessed(state.iterations() * nodes);
}

BENCHMARK(BM_Forward)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Grad)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_JvpCached)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GnvpCached)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TinyGradPass)->Unit(benchmark::kMicrosecond)->UseRealTime();
}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  int kept = 1;  // --blas_threads is ours: take it out before benchmark sees the arguments
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--blas_threads=", 15) == 0) threads = std::atoi(argv[i] + 15);
    else argv[kept++] = argv[i];
  }
  argc = kept;
  tg::blas::set_threads(threads);
  benchmark::AddCustomContext("blas_threads", std::to_string(tg::blas::threads()));
  benchmark::AddCustomContext("machine", tg::bench::machine_line());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
