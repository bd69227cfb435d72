// A pass's matrix-product work, read off its graph: every evaluated matmul by shape and count, its
// FLOPs, and a plain cblas gemm of exactly those shapes and counts. The zoo and network step
// benchmarks time that gemm run beside the pass, so tapegrad's achieved GFLOP/s is read against what
// the BLAS alone does on this machine at this moment.
#pragma once
#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace tg::bench {

// One distinct matrix-product shape of a pass and how often the pass runs it.
struct GemmShape {
  bool ta = false, tb = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t count = 0;
  bool accumulate = false;  // beta = 1: C += A B (an addmm node)
  double flops() const { return 2.0 * static_cast<double>(m * n * k) * static_cast<double>(count); }
};

// Every matmul and addmm the graph evaluated, by shape (counts are evaluations, so run the pass once on a
// fresh graph). Nodes a reverse sweep built but never evaluated do not count.
std::vector<GemmShape> gemm_shapes(const Graph& g);
double gflop(const std::vector<GemmShape>& shapes);

// Operands for a plain gemm of each shape, allocated once: the reference times only the products.
class GemmRun {
 public:
  explicit GemmRun(std::vector<GemmShape> shapes);
  void operator()();  // every shape, `count` times, float32 cblas_sgemm
  const std::vector<GemmShape>& shapes() const { return shapes_; }

 private:
  std::vector<GemmShape> shapes_;
  std::vector<std::vector<float>> a_, b_, c_;
};

}  // namespace tg::bench
