// A shared weight's products from its packed copy (ops/packed_matmul.cc, ops/packed_gemm.h): with the
// oneDNN backend, addmm packs a float32 weight once from its second product on and computes the rest from
// that copy. Checked here: the gradient and a Gauss-Newton-style jvp + vjp of a recurrence equal those of
// the same recurrence with a copy of W per step (never packed), the packed products are made (W for the
// forward products, Wᵀ for the sweep's), products of another row count read W as before, a float64 graph
// never packs, a rebuilt graph makes the same nodes, and a packed operand in a layout the product does not
// compute from is never read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/ad.h"
#include "ops/blas.h"
#include "ops/families.h"
#include "ops/ops.h"
#include "ops/packed_gemm.h"
#include "tests/harness/fused_cases.h"

namespace tg {
namespace {

constexpr int kSteps = 6;
constexpr int64_t kHidden = 64, kBatch = 32;  // W 4,096 elements, 131,072 multiply-adds a product: packed

using check::max_abs_diff;

int count_evaluated(const Graph& g, const std::string& prim) {
  int n = 0;
  for (int32_t id = 0; id < g.size(); ++id) n += g.node(id).prim->name == prim && !g.pending(id);
  return n;
}

// The oneDNN backend for one test (packing needs it); OpenBLAS, the tests' default, after.
class OneDnnBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!blas::onednn_available(&why)) GTEST_SKIP() << "oneDNN is not usable here: " << why;
    blas::set_gemm_backend("onednn");
    ASSERT_TRUE(blas::packing_available()) << "oneDNN's sgemm loads but its matmul primitive does not";
  }
  void TearDown() override { blas::set_gemm_backend("openblas"); }
};

std::vector<Tensor> inputs(DType dt) {
  std::vector<Tensor> v = check::random_inputs(
      {Shape{kHidden, kHidden}, Shape{kBatch, kHidden}, Shape{kBatch * kSteps, kHidden}}, -0.3, 0.3, 7);
  for (Tensor& t : v) t = t.astype(dt);
  return v;
}

struct Recurrence {
  std::vector<Var> ws;  // W once (shared) or one leaf per step holding W's values
  Var h0, loss;
};

// h_t = tanh(x_t + h_{t-1} W), loss Σ_t Σ h_t² (rows: the batch; fewer than kBatch for the row-count test)
Recurrence recurrence(Graph& g, const std::vector<Tensor>& v, bool shared, int64_t rows = kBatch) {
  Recurrence r;
  for (int t = 0; t < (shared ? 1 : kSteps); ++t) r.ws.push_back(g.input(v[0]));
  r.h0 = ops::slice(g.input(v[1]), 0, 0, rows);
  Var x = g.input(v[2]), h = r.h0;
  for (int t = 0; t < kSteps; ++t) {
    h = ops::tanh(ops::addmm(ops::slice(x, 0, kBatch * t, kBatch * t + rows), h, r.ws[shared ? 0 : t]));
    r.loss = ops::add(r.loss, ops::sum(ops::square(h)));
  }
  return r;
}

// ∂loss/∂W (summed over the copies) and ∂loss/∂h_0
std::vector<Tensor> gradient(const Recurrence& r) {
  std::vector<Var> wrt = r.ws;
  wrt.push_back(r.h0);
  const std::vector<Var> gs = ad::grad(r.loss, wrt);
  Var w_bar = gs[0];
  for (size_t i = 1; i + 1 < gs.size(); ++i) w_bar = ops::add(w_bar, gs[i]);
  return {w_bar.value(), gs.back().value()};
}

TEST_F(OneDnnBackend, PackedProductsGiveTheGradientOfPerStepCopies) {
  const std::vector<Tensor> v = inputs(DType::f32);
  Graph packed_g, copies_g;
  const int64_t run_before = blas::packed_products_run();
  const std::vector<Tensor> packed = gradient(recurrence(packed_g, v, true));
  // the packed kernel ran (a product that falls back to B gives the same numbers and node counts)
  EXPECT_EQ(blas::packed_products_run() - run_before, 2 * kSteps - 4);
  const std::vector<Tensor> copies = gradient(recurrence(copies_g, v, false));
  // float32, different kernels (the primitive against dnnl_sgemm) summing in their own orders
  for (size_t i = 0; i < packed.size(); ++i) EXPECT_LE(max_abs_diff(packed[i], copies[i]), 2e-5) << "output " << i;
  EXPECT_EQ(count_evaluated(packed_g, "gemm_pack"), 2) << "W for the forward products, Wᵀ for the sweep's";
  // forward: steps 2..kSteps (kSteps - 1). The sweep's products by Wᵀ: the first reads W transposed, the
  // next is the first by the stored Wᵀ (plain), h_0's is not folded into a sum (a matmul): kSteps - 3.
  EXPECT_EQ(count_evaluated(packed_g, "addmm_packed"), 2 * kSteps - 4);
  EXPECT_EQ(count_evaluated(copies_g, "gemm_pack"), 0) << "a weight read by one product is never packed";
}

// jvp in W's direction, then the vjp of its result: the tangent rule's products (dh_{t-1} W) and the
// transposed sweep read the packed copies too.
TEST_F(OneDnnBackend, PackedProductsGiveTheCurvatureProductOfPerStepCopies) {
  const std::vector<Tensor> v = inputs(DType::f32);
  const Tensor dw = check::random_tensor(Shape{kHidden, kHidden}, -1, 1, 11, DType::f32);
  auto curvature = [&](Graph& g, bool shared) {
    const Recurrence r = recurrence(g, v, shared);
    std::vector<Var> tangents(r.ws.size(), g.input(dw));
    const Var jv = ad::jvp(std::vector<Var>{r.loss}, r.ws, tangents)[0];
    return gradient(Recurrence{r.ws, r.h0, ops::mul(jv, r.loss)});
  };
  Graph packed_g, copies_g;
  const std::vector<Tensor> packed = curvature(packed_g, true), copies = curvature(copies_g, false);
  for (size_t i = 0; i < packed.size(); ++i) {
    double scale = 0;
    for (int64_t k = 0; k < copies[i].size(); ++k) scale = std::max(scale, std::abs(copies[i].at(k)));
    EXPECT_LE(max_abs_diff(packed[i], copies[i]), 2e-5 * scale) << "output " << i;
  }
  EXPECT_GT(count_evaluated(packed_g, "addmm_packed"), 2 * (kSteps - 2)) << "the tangent's products are packed too";
}

TEST_F(OneDnnBackend, ProductsOfAnotherRowCountReadTheWeight) {
  const std::vector<Tensor> v = inputs(DType::f32);
  Graph g;
  const Recurrence full = recurrence(g, v, true);
  // the same W, now multiplied by 16 rows a step: the copy was packed for 32
  Var h = ops::slice(full.h0, 0, 0, kBatch / 2), x = g.input(v[2]);
  for (int t = 0; t < kSteps; ++t) h = ops::tanh(ops::addmm(ops::slice(x, 0, 0, kBatch / 2), h, full.ws[0]));
  const Tensor out = h.value();
  EXPECT_EQ(count_evaluated(g, "gemm_pack"), 1);
  EXPECT_EQ(count_evaluated(g, "addmm_packed"), kSteps - 1) << "the 32-row products only";
  EXPECT_EQ(count_evaluated(g, "addmm"), 1 + kSteps);
}

TEST_F(OneDnnBackend, AFloat64GraphNeverPacks) {
  Graph g;
  gradient(recurrence(g, inputs(DType::f64), true));
  EXPECT_EQ(count_evaluated(g, "gemm_pack"), 0);
  EXPECT_EQ(count_evaluated(g, "addmm_packed"), 0);
}

TEST_F(OneDnnBackend, ARebuiltGraphMakesTheSameNodes) {
  const std::vector<Tensor> v = inputs(DType::f32);
  Graph g;
  const std::vector<Tensor> first = gradient(recurrence(g, v, true));
  const int32_t nodes = g.size();
  g.rebuild();
  const std::vector<Tensor> again = gradient(recurrence(g, v, true));
  EXPECT_EQ(g.size(), nodes);
  EXPECT_EQ(g.reused_nodes(), nodes) << "the memo is forgotten by rebuild() and made again in the same order";
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(max_abs_diff(first[i], again[i]), 0.0);
}

// The kernel refuses a copy whose header names no layout, or one it did not make: C stays as it was.
TEST_F(OneDnnBackend, AnOperandInAnotherLayoutIsNotRead) {
  const int m = 32, k = 64, n = 64;
  const Tensor a = check::random_tensor(Shape{m, k}, -1, 1, 1, DType::f32);
  const Tensor b = check::random_tensor(Shape{k, n}, -1, 1, 2, DType::f32);
  std::vector<float> packed(static_cast<size_t>(blas::packed_floats(m, k, n)));
  ASSERT_GT(packed.size(), static_cast<size_t>(blas::kPackedHeader));
  blas::pack_b(m, k, n, b.data<float>(), packed.data(), static_cast<int64_t>(packed.size()));
  std::vector<float> c(static_cast<size_t>(m * n), 0.5f);
  const auto size = static_cast<int64_t>(packed.size());
  ASSERT_TRUE(blas::packed_gemm(m, n, k, a.data<float>(), packed.data(), size, 1.f, c.data()));
  // a buffer too short for the layout it names is not read
  std::vector<float> untouched(c.size(), 0.5f);
  EXPECT_FALSE(blas::packed_gemm(m, n, k, a.data<float>(), packed.data(), size - 1, 1.f, untouched.data()));
  // against the ordinary product
  std::vector<float> ref(static_cast<size_t>(m * n), 0.5f);
  blas::gemm(false, false, m, n, k, 1.f, a.data<float>(), k, b.data<float>(), n, 1.f, ref.data(), n);
  double worst = 0;
  for (size_t i = 0; i < c.size(); ++i) worst = std::max(worst, static_cast<double>(std::abs(c[i] - ref[i])));
  EXPECT_LE(worst, 1e-5);

  blas::write_unpacked_header(packed.data());
  EXPECT_FALSE(blas::packed_gemm(m, n, k, a.data<float>(), packed.data(), size, 1.f, untouched.data()));
  const int32_t unknown = 1 << 20;
  std::memcpy(packed.data(), &unknown, sizeof unknown);
  EXPECT_FALSE(blas::packed_gemm(m, n, k, a.data<float>(), packed.data(), size, 1.f, untouched.data()));
  for (float x : untouched) ASSERT_EQ(x, 0.5f);
}

}  // namespace
}  // namespace tg
