// The engine benchmark's workload and timing, shared by the Google Benchmark binary
// (bench/engine_bench.cc) and `tapegrad bench`: an unrolled LSTM character language model built only
// from the public ops, and the passes the engine's speed targets are stated in (forward, gradient,
// cached JVP, cached Gauss-Newton product, per-node graph overhead).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/linearize.h"
#include "core/params.h"
#include "ops/ops.h"

namespace tg::bench {

struct LstmLmConfig {
  int64_t vocab = 96, hidden = 256, batch = 32, steps = 100;
  uint64_t seed = 1;  // parameters and symbols
};

// Standard LSTM over symbols, time-major, float32:
//   a_t = Wx[x_t] + h_{t-1} Wh + b  [B,4H] -> i, f, o, g
//   c_t = σ(f) c_{t-1} + σ(i) tanh(g);  h_t = σ(o) tanh(c_t);  z_t = h_t Wo + bo
// loss = mean softmax cross-entropy of the next symbol over all T*B positions. h_0 = c_0 = 0 are
// symbolic zeros (empty Vars), so step 0 builds no product with Wh.
class LstmLm {
 public:
  explicit LstmLm(const LstmLmConfig& cfg);

  struct Outputs {
    Var logits;  // [T*B, V]: all steps' logits concatenated (one Gauss-Newton block, one loss node)
    Var loss;    // scalar
  };
  Outputs build(Graph& g) const;  // binds params() into g

  const LstmLmConfig& config() const { return cfg_; }
  const ParamSet& params() const { return ps_; }

 private:
  LstmLmConfig cfg_;
  ParamSet ps_;
  ParamId Wx_, Wh_, b_, Wo_, bo_;
  std::vector<ops::Index> inputs_;  // T entries of B symbols
  ops::Index targets_;              // T*B next symbols, time-major
};

// The measured passes. Each builds its own graph, so a call is one training-step-like unit of work.
double forward_pass(const LstmLm& m);                 // build + evaluate; returns the loss
std::pair<double, ParamVec> grad_pass(const LstmLm& m);  // forward + ad::value_and_grad

// One primal evaluation, then cached products at the logits (the inner loop of Hessian-free CG).
// The segments are built by the first call of each product (warm_up() makes both).
class CachedProducts {
 public:
  explicit CachedProducts(const LstmLm& m, uint64_t direction_seed = 7);
  void warm_up();
  std::vector<Tensor> jvp();  // J v at the logits
  ParamVec gnvp();           // Jᵀ H_loss J v
  Graph& graph() { return *g_; }
  int32_t primal_nodes() const { return primal_nodes_; }
  int32_t jvp_nodes() const { return jvp_nodes_; }   // nodes the JVP segment appended
  int32_t gnvp_nodes() const { return gnvp_nodes_; } // nodes the Gauss-Newton segment appended

 private:
  std::unique_ptr<Graph> g_;
  LstmLm::Outputs out_;
  std::unique_ptr<ad::Linearization> lin_;
  ParamVec v_;
  std::vector<Tensor> v_parts_;
  int32_t primal_nodes_ = 0, jvp_nodes_ = 0, gnvp_nodes_ = 0;
};

// Wall-clock milliseconds of each pass over `reps` rounds after `warmup` untimed ones. A round runs
// every pass once, side by side, so a neighbour's load on the shared machine hits all passes alike
// and their ratios stay meaningful.
struct Timing {
  std::vector<double> samples_ms;
  double median_ms = 0, min_ms = 0;
  double cpu_median_ms = 0;  // this thread's CPU time: less sensitive to being descheduled
};
double median(std::vector<double> v);  // of a non-empty list
std::vector<Timing> time_rounds(const std::vector<std::function<void()>>& passes, int reps, int warmup = 1);

struct EngineBenchOptions {
  LstmLmConfig workload;
  LstmLmConfig tiny{.vocab = 96, .hidden = 8, .batch = 2, .steps = 100};  // graph-overhead workload
  int reps = 15;
  int threads = 1;  // OpenBLAS threads
};

struct EngineBenchResult {
  EngineBenchOptions opt;
  int threads = 0;  // as reported by OpenBLAS after setting
  std::string machine;
  Timing forward, grad, jvp, gnvp;
  int64_t forward_nodes = 0, grad_nodes = 0, jvp_nodes = 0, gnvp_nodes = 0;
  // tiny graph: microseconds per node for a gradient pass (build + evaluate every node, forward and
  // backward), for a forward pass, and for re-running the Gauss-Newton segment's nodes
  Timing tiny_grad, tiny_forward, tiny_gnvp;
  int64_t tiny_forward_nodes = 0, tiny_grad_nodes = 0, tiny_gnvp_nodes = 0;
  double overhead_us_per_node() const;
  double gn_over_grad() const { return gnvp.median_ms / grad.median_ms; }
  double jvp_over_grad() const { return jvp.median_ms / grad.median_ms; }
};

EngineBenchResult run_engine_bench(const EngineBenchOptions& opt);
nlohmann::json to_json(const EngineBenchResult& r);
std::string to_table(const EngineBenchResult& r);

// "AMD EPYC, nproc 2": /proc/cpuinfo's model name and the CPUs this process may run on.
std::string machine_line();

}  // namespace tg::bench
