#include "bench/lstm_lm.h"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "core/ad.h"
#include "core/error.h"
#include "ops/blas.h"
#include "ops/cpu_isa.h"
#include "ops/float_env.h"

namespace tg::bench {

LstmLm::LstmLm(const LstmLmConfig& cfg) : cfg_(cfg), ps_(DType::f32) {
  const int64_t V = cfg.vocab, H = cfg.hidden, B = cfg.batch, T = cfg.steps;
  if (V < 2 || H < 1 || B < 1 || T < 1)
    throw Error(fmt::format("bench: bad sizes V={} H={} B={} T={}", V, H, B, T));
  Rng rng(cfg.seed);
  const double s = 1.0 / std::sqrt(static_cast<double>(H));
  Wx_ = ps_.add("lstm/Wx", {V, 4 * H}, init::normal(0.1), &rng);
  Wh_ = ps_.add("lstm/Wh", {H, 4 * H}, init::normal(s), &rng);
  b_ = ps_.add("lstm/b", {4 * H}, init::normal(0.1), &rng);
  Wo_ = ps_.add("out/Wo", {H, V}, init::normal(s), &rng);
  bo_ = ps_.add("out/bo", {V}, init::zeros());

  // B random symbol streams of T+1 symbols: inputs are symbols 0..T-1, targets 1..T
  std::uniform_int_distribution<int32_t> sym(0, static_cast<int32_t>(V - 1));
  std::vector<std::vector<int32_t>> stream(static_cast<size_t>(T + 1), std::vector<int32_t>(B));
  for (auto& step : stream)
    for (auto& x : step) x = sym(rng);
  std::vector<int32_t> targets;
  for (int64_t t = 0; t < T; ++t) {
    inputs_.push_back(ops::make_index(stream[t]));
    targets.insert(targets.end(), stream[t + 1].begin(), stream[t + 1].end());
  }
  targets_ = ops::make_index(std::move(targets));
}

LstmLm::Outputs LstmLm::build(Graph& g) const {
  g.bind(ps_);
  Var Wx = g[Wx_], Wh = g[Wh_], b = g[b_], Wo = g[Wo_], bo = g[bo_];
  Var h, c;  // symbolic zeros at t = 0
  std::vector<Var> logits;
  logits.reserve(static_cast<size_t>(cfg_.steps));
  for (int64_t t = 0; t < cfg_.steps; ++t) {
    Var a = ops::gather_rows(Wx, inputs_[t]) + ops::matmul(h, Wh) + b;  // [B,4H]
    std::vector<Var> gates = ops::split(a, 1, 4);
    Var i = gates[0], f = gates[1], o = gates[2], gg = gates[3];
    Var c_in = ops::logistic(i) * ops::tanh(gg);
    c = c.empty() ? c_in : ops::logistic(f) * c + c_in;
    h = ops::logistic(o) * ops::tanh(c);
    logits.push_back(ops::matmul(h, Wo) + bo);
  }
  Outputs out;
  out.logits = ops::concat(logits, 0);
  out.loss = losses::softmax_xent(out.logits, targets_);
  return out;
}

double forward_pass(const LstmLm& m) {
  Graph g;
  return m.build(g).loss.value().item();
}

std::pair<double, ParamVec> grad_pass(const LstmLm& m) {
  Graph g;
  return ad::value_and_grad(m.build(g).loss);
}

CachedProducts::CachedProducts(const LstmLm& m, uint64_t direction_seed) : g_(std::make_unique<Graph>()) {
  out_ = m.build(*g_);
  lin_ = std::make_unique<ad::Linearization>(out_.loss);
  primal_nodes_ = g_->size();
  Rng rng(direction_seed);
  v_ = ParamVec::random_normal(m.params().layout(), DType::f32, rng);
  for (int32_t i = 0; i < m.params().count(); ++i) v_parts_.push_back(v_.part(i));
}

void CachedProducts::warm_up() {
  int32_t before = g_->size();
  jvp();
  jvp_nodes_ = g_->size() - before;
  before = g_->size();
  gnvp();
  gnvp_nodes_ = g_->size() - before;
}

std::vector<Tensor> CachedProducts::jvp() { return lin_->jvp(v_parts_, {out_.logits}); }
ParamVec CachedProducts::gnvp() { return lin_->gnvp(v_, ad::Block{{out_.logits}, out_.loss}); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}
}  // namespace

std::vector<Timing> time_rounds(const std::vector<std::function<void()>>& passes, int reps, int warmup) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i)
    for (const auto& pass : passes) pass();
  std::vector<Timing> t(passes.size());
  std::vector<std::vector<double>> cpu(passes.size());
  for (int i = 0; i < std::max(reps, 1); ++i)
    for (size_t p = 0; p < passes.size(); ++p) {
      const double c0 = thread_cpu_ms();
      auto t0 = clock::now();
      passes[p]();
      t[p].samples_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
      cpu[p].push_back(thread_cpu_ms() - c0);
    }
  for (size_t p = 0; p < passes.size(); ++p) {
    std::vector<double> s = t[p].samples_ms;
    t[p].median_ms = median(s);
    t[p].min_ms = *std::min_element(s.begin(), s.end());
    t[p].cpu_median_ms = median(cpu[p]);
  }
  return t;
}

std::string machine_line() {
  std::string model = "unknown CPU";
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  cpu_set_t set;
  CPU_ZERO(&set);
  int nproc = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
  const char* isa = __builtin_cpu_supports("avx512f") ? "AVX-512" : __builtin_cpu_supports("avx2") ? "AVX2" : "SSE";
  return fmt::format("{}, nproc {}, {}; float32 gemm: {}; fused cells: {}; denormals {}", model, nproc, isa,
                     blas::gemm_backend(), ops::kernel_isa_name(), fenv::flushing_denormals() ? "flushed" : "kept");
}

namespace {
// Nodes a pass evaluates: the engine evaluates each node at most once per pass, so per-node time is
// wall time over this count.
uint64_t evals_of(Graph& g, const std::function<void()>& fn) {
  uint64_t before = g.total_evals();
  fn();
  return g.total_evals() - before;
}
}  // namespace

double EngineBenchResult::overhead_us_per_node() const {
  return tiny_grad.median_ms * 1e3 / static_cast<double>(tiny_grad_nodes);
}

EngineBenchResult run_engine_bench(const EngineBenchOptions& opt) {
  EngineBenchResult r;
  r.opt = opt;
  blas::set_threads(opt.threads);
  r.threads = blas::threads();
  r.machine = machine_line();

  {
    const LstmLm m(opt.workload);
    {
      Graph g;
      m.build(g);
      r.forward_nodes = g.size();
    }
    {
      Graph g;
      ad::value_and_grad(m.build(g).loss);
      r.grad_nodes = g.size();
    }
    CachedProducts cp(m);
    cp.warm_up();
    r.jvp_nodes = cp.jvp_nodes();
    r.gnvp_nodes = cp.gnvp_nodes();
    std::vector<Timing> t = time_rounds(
        {[&] { forward_pass(m); }, [&] { grad_pass(m); }, [&] { cp.jvp(); }, [&] { cp.gnvp(); }}, opt.reps);
    r.forward = t[0];
    r.grad = t[1];
    r.jvp = t[2];
    r.gnvp = t[3];
  }

  // Graph overhead: a graph so small that kernels cost next to nothing. More repetitions, since
  // each pass takes well under a millisecond.
  {
    const LstmLm tiny(opt.tiny);
    const int reps = std::max(opt.reps, 1) * 20;
    {
      Graph g;
      tiny.build(g);
      r.tiny_forward_nodes = g.size();
    }
    {
      Graph g;
      ad::value_and_grad(tiny.build(g).loss);
      r.tiny_grad_nodes = g.size();
    }
    CachedProducts cp(tiny);
    cp.warm_up();
    r.tiny_gnvp_nodes = static_cast<int64_t>(evals_of(cp.graph(), [&] { cp.gnvp(); }));
    std::vector<Timing> t = time_rounds(
        {[&] { forward_pass(tiny); }, [&] { grad_pass(tiny); }, [&] { cp.gnvp(); }}, reps, 5);
    r.tiny_forward = t[0];
    r.tiny_grad = t[1];
    r.tiny_gnvp = t[2];
  }
  return r;
}

namespace {
nlohmann::json config_json(const LstmLmConfig& c) {
  return {{"V", c.vocab}, {"H", c.hidden}, {"B", c.batch}, {"T", c.steps}, {"dtype", "float32"}};
}
nlohmann::json timing_json(const Timing& t) {
  return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"cpu_median_ms", t.cpu_median_ms},
          {"samples_ms", t.samples_ms}};
}
double us_per_node(const Timing& t, int64_t nodes) { return t.median_ms * 1e3 / static_cast<double>(nodes); }
}  // namespace

nlohmann::json to_json(const EngineBenchResult& r) {
  nlohmann::json j;
  j["machine"] = r.machine;
  j["threads"] = r.threads;
  j["config"] = config_json(r.opt.workload);
  j["reps"] = r.opt.reps;
  j["forward_ms"] = r.forward.median_ms;
  j["grad_ms"] = r.grad.median_ms;
  j["jvp_ms"] = r.jvp.median_ms;
  j["gnvp_ms"] = r.gnvp.median_ms;
  j["gn_over_grad"] = r.gn_over_grad();
  j["jvp_over_grad"] = r.jvp_over_grad();
  j["cpu_gn_over_grad"] = r.gnvp.cpu_median_ms / r.grad.cpu_median_ms;
  j["overhead_us_per_node"] = r.overhead_us_per_node();
  j["nodes"] = r.tiny_grad_nodes;  // the overhead's denominator: g.size() after a gradient pass
  j["workload_nodes"] = {{"forward", r.forward_nodes},
                         {"after_grad", r.grad_nodes},
                         {"jvp_segment", r.jvp_nodes},
                         {"gnvp_segment", r.gnvp_nodes}};
  j["overhead"] = {{"config", config_json(r.opt.tiny)},
                   {"grad_pass_nodes", r.tiny_grad_nodes},
                   {"grad_pass_us_per_node", us_per_node(r.tiny_grad, r.tiny_grad_nodes)},
                   {"forward_pass_nodes", r.tiny_forward_nodes},
                   {"forward_pass_us_per_node", us_per_node(r.tiny_forward, r.tiny_forward_nodes)},
                   {"gnvp_evaluated_nodes", r.tiny_gnvp_nodes},
                   {"gnvp_us_per_node", us_per_node(r.tiny_gnvp, r.tiny_gnvp_nodes)}};
  j["timings"] = {{"forward", timing_json(r.forward)}, {"grad", timing_json(r.grad)},
                  {"jvp", timing_json(r.jvp)},         {"gnvp", timing_json(r.gnvp)},
                  {"tiny_forward", timing_json(r.tiny_forward)}, {"tiny_grad", timing_json(r.tiny_grad)},
                  {"tiny_gnvp", timing_json(r.tiny_gnvp)}};
  return j;
}

std::string to_table(const EngineBenchResult& r) {
  const LstmLmConfig& w = r.opt.workload;
  const LstmLmConfig& t = r.opt.tiny;
  std::string s;
  s += fmt::format("tapegrad engine benchmark: LSTM char LM, V={} H={} B={} T={} float32\n", w.vocab, w.hidden,
                   w.batch, w.steps);
  s += fmt::format("machine: {}   BLAS threads: {}   reps: {} rounds, passes side by side\n\n", r.machine,
                   r.threads, r.opt.reps);
  s += fmt::format("{:<30}{:>11}{:>9}{:>9}{:>8}\n", "pass (ms)", "median", "min", "cpu", "nodes");
  auto row = [&](const char* name, const Timing& tm, int64_t nodes) {
    s += fmt::format("{:<30}{:>11.2f}{:>9.2f}{:>9.2f}{:>8}\n", name, tm.median_ms, tm.min_ms, tm.cpu_median_ms,
                     nodes);
  };
  row("forward (build + evaluate)", r.forward, r.forward_nodes);
  row("gradient (forward + vjp)", r.grad, r.grad_nodes);
  row("jvp, cached linearization", r.jvp, r.jvp_nodes);
  row("gnvp, cached linearization", r.gnvp, r.gnvp_nodes);
  s += fmt::format("\ngn_over_grad   {:.3f}  (cpu {:.3f})   target <= 1.4, arithmetic floor ~4/3\n",
                   r.gn_over_grad(), r.gnvp.cpu_median_ms / r.grad.cpu_median_ms);
  s += fmt::format("jvp_over_grad  {:.3f}  (cpu {:.3f})\n", r.jvp_over_grad(),
                   r.jvp.cpu_median_ms / r.grad.cpu_median_ms);
  s += fmt::format("\ngraph overhead, V={} H={} B={} T={}:\n", t.vocab, t.hidden, t.batch, t.steps);
  s += fmt::format("  gradient pass  {:.3f} us/node over {} nodes   target < 2\n", r.overhead_us_per_node(),
                   r.tiny_grad_nodes);
  s += fmt::format("  forward pass   {:.3f} us/node over {} nodes\n", us_per_node(r.tiny_forward, r.tiny_forward_nodes),
                   r.tiny_forward_nodes);
  s += fmt::format("  gnvp segment   {:.3f} us/node over {} evaluated nodes\n",
                   us_per_node(r.tiny_gnvp, r.tiny_gnvp_nodes), r.tiny_gnvp_nodes);
  return s;
}

}  // namespace tg::bench
