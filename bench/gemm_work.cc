#include "bench/gemm_work.h"

#include <map>
#include <random>
#include <string_view>
#include <tuple>

#include "ops/blas.h"

namespace tg::bench {

std::vector<GemmShape> gemm_shapes(const Graph& g) {
  std::map<std::tuple<bool, bool, int64_t, int64_t, int64_t, bool>, int64_t> count;
  for (int32_t id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    const std::string_view name = n.prim->name;
    // addmm is a product with beta = 1 (C + A B): its A is the node's second input
    const bool accumulate = name == "addmm" || name == "addmm_packed";
    if ((name != "matmul" && !accumulate) || g.eval_count(id) == 0) continue;
    const Shape& a = g.node(n.in[accumulate ? 1 : 0]).shape;
    const int64_t k = n.attrs.ta ? a[0] : a[1];
    count[{n.attrs.ta, n.attrs.tb, n.shape[0], n.shape[1], k, accumulate}] += static_cast<int64_t>(g.eval_count(id));
  }
  std::vector<GemmShape> out;
  for (const auto& [key, c] : count) {
    const auto& [ta, tb, m, n, k, accumulate] = key;
    out.push_back({ta, tb, m, n, k, c, accumulate});
  }
  return out;
}

double gflop(const std::vector<GemmShape>& shapes) {
  double total = 0;
  for (const GemmShape& s : shapes) total += s.flops() * 1e-9;
  return total;
}

GemmRun::GemmRun(std::vector<GemmShape> shapes) : shapes_(std::move(shapes)) {
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.f, 0.1f);
  for (const GemmShape& s : shapes_) {
    a_.emplace_back(static_cast<size_t>(s.m * s.k));
    b_.emplace_back(static_cast<size_t>(s.k * s.n));
    c_.emplace_back(static_cast<size_t>(s.m * s.n));
    for (float& x : a_.back()) x = nd(rng);
    for (float& x : b_.back()) x = nd(rng);
  }
}

void GemmRun::operator()() {
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const GemmShape& s = shapes_[i];
    const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
    const int lda = s.ta ? m : k, ldb = s.tb ? k : n;
    for (int64_t r = 0; r < s.count; ++r)
      blas::gemm(s.ta, s.tb, m, n, k, 1.f, a_[i].data(), lda, b_[i].data(), ldb, s.accumulate ? 1.f : 0.f, c_[i].data(), n);
  }
}

}  // namespace tg::bench
