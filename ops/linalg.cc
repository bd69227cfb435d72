// Linear algebra: matmul (BLAS, with transpose flags so rules never copy a transpose) and transpose.
#include <algorithm>

#include "ops/blas.h"
#include "ops/families.h"
#include "ops/kernels.h"

namespace tg::ops {
using namespace detail;

extern const Primitive transpose_p;  // defined below: times_transpose_of recognises it

namespace {
Shape matmul_shape(std::span<const Shape> s, const Attrs& a) {
  if (s[0].rank() != 2 || s[1].rank() != 2) fail("needs rank-2 operands");
  int64_t m = a.ta ? s[0][1] : s[0][0], ka = a.ta ? s[0][0] : s[0][1];
  int64_t kb = a.tb ? s[1][1] : s[1][0], n = a.tb ? s[1][0] : s[1][1];
  if (ka != kb) fail(fmt::format("inner dims differ ({} vs {}{})", ka, kb, a.ta || a.tb ? fmt::format(", ta={} tb={}", a.ta, a.tb) : ""));
  return Shape{m, n};
}

Tensor matmul_eval(const EvalArgs& a) {
  const Shape& as = a.in[0]->shape();
  const Shape& bs = a.in[1]->shape();
  const int m = static_cast<int>(a.shape[0]), n = static_cast<int>(a.shape[1]);
  const int k = static_cast<int>(a.attrs.ta ? as[0] : as[1]);
  Tensor y = a.out ? *a.out : Tensor::empty(a.shape, a.dtype);
  if (k == 0) {
    y.fill(0);
    return y;
  }
  if (y.size() == 0) return y;  // m or n is 0: ldc would be 0, which BLAS rejects
  TG_DISPATCH(a.dtype, T, blas::gemm(a.attrs.ta, a.attrs.tb, m, n, k, T(1), a.in[0]->data<T>(),
                                     static_cast<int>(as[1]), a.in[1]->data<T>(), static_cast<int>(bs[1]), T(0),
                                     y.data<T>(), n));
  return y;
}

// yb op(b)^T: the cotangent of A in A op(b). For op(b) = b this is a product with b read transposed,
// which both BLAS backends run at about half speed on a recurrence's shapes (dnnl_sgemm and OpenBLAS on
// [32,1024] x [1024,256]^T: ~315 us against ~155 us with b^T stored, docs/results/engine_bench.md). A
// weight that the graph multiplies by again and again (W_h, once per step) is transposed once, from its
// second such product in the graph on, and shared by the rest; a weight of one product (a feedforward
// layer differentiated once) never is. Small b (under kSharedWeightMin elements, ops/families.h) are left
// alone. A b that is itself a transpose (the products above, differentiated again: Ω's per-step VJPs,
// second order) gives yb times its input, with no copy.
char transpose_once_tag;  // the memo's key (Graph::memo)

Var times_transpose_of(Var yb, Var b, bool tb, Site site) {
  if (tb) return matmul(yb, b, false, false, site);
  Graph& g = *b.graph();
  const Node& bn = g.node(b.id());
  if (bn.prim == &transpose_p) return matmul(yb, Var(&g, bn.in[0]), false, false, site);
  if (bn.shape.size() < kSharedWeightMin) return matmul(yb, b, false, true, site);
  Graph::Memo& m = g.memo(&transpose_once_tag, b);
  if (m.node < 0 && ++m.calls < 2) return matmul(yb, b, false, true, site);
  if (m.node < 0) m.node = transpose(b, site).id();
  return matmul(yb, Var(&g, m.node), false, false, site);
}
}  // namespace

// C = op(A) op(B);  dC = op(dA) op(B) + op(A) op(dB)
// With A' = op(A), B' = op(B):  A'_bar = C_bar B'^T,  B'_bar = A'^T C_bar, transposed back when ta / tb.
const Primitive matmul_p{
    "matmul", 2, matmul_shape, matmul_eval,
    [](const RuleArgs& r, std::span<const Var> d) {
      bool ta = r.attrs.ta, tb = r.attrs.tb;
      return add(matmul(d[0], r.x[1], ta, tb, r.site), matmul(r.x[0], d[1], ta, tb, r.site), r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      bool ta = r.attrs.ta, tb = r.attrs.tb;
      Var a = r.x[0], b = r.x[1];
      if (need[0]) xb[0] = ta ? matmul(b, yb, tb, true, r.site) : times_transpose_of(yb, b, tb, r.site);
      if (need[1]) xb[1] = tb ? matmul(yb, a, true, ta, r.site) : matmul(a, yb, !ta, false, r.site);
    }};

// y = C + op(A) op(B): matmul with the sum folded into the product (BLAS beta = 1). A recurrence's
// x_t W_x + h_{t-1} W_h and the reverse sweep's h_bar + delta W_h^T are one node and one pass over the
// result instead of a product and an add (each a kernel call, an allocation and a sweep of [B, n]).
// Rules: dy = dC + op(dA) op(B) + op(A) op(dB) (addmm again), and C_bar = y_bar with A and B's as matmul's.
const Primitive addmm_p{
    "addmm", 3,
    [](std::span<const Shape> s, const Attrs& a) {
      const Shape y = matmul_shape(s.subspan(1), a);
      if (s[0] != y) fail(fmt::format("C is {} but op(A) op(B) is {}", s[0].str(), y.str()));
      return y;
    },
    [](const EvalArgs& a) {
      const Shape& as = a.in[1]->shape();
      const Shape& bs = a.in[2]->shape();
      const int m = static_cast<int>(a.shape[0]), n = static_cast<int>(a.shape[1]);
      const int k = static_cast<int>(a.attrs.ta ? as[0] : as[1]);
      Tensor y = a.out ? *a.out : Tensor::empty(a.shape, a.dtype);
      TG_DISPATCH(a.dtype, T, {
        std::copy_n(a.in[0]->data<T>(), y.size(), y.data<T>());
        if (k > 0 && y.size() > 0)  // an empty result has ldc 0, which BLAS rejects
          blas::gemm(a.attrs.ta, a.attrs.tb, m, n, k, T(1), a.in[1]->data<T>(), static_cast<int>(as[1]),
                     a.in[2]->data<T>(), static_cast<int>(bs[1]), T(1), y.data<T>(), n);
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) {
      const bool ta = r.attrs.ta, tb = r.attrs.tb;
      return addmm(addmm(d[0], d[1], r.x[2], ta, tb, r.site), r.x[1], d[2], ta, tb, r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      const bool ta = r.attrs.ta, tb = r.attrs.tb;
      Var a = r.x[1], b = r.x[2];
      if (need[0]) xb[0] = yb;
      if (need[1]) xb[1] = ta ? matmul(b, yb, tb, true, r.site) : times_transpose_of(yb, b, tb, r.site);
      if (need[2]) xb[2] = tb ? matmul(yb, a, true, ta, r.site) : matmul(a, yb, !ta, false, r.site);
    }};

// y = x^T (rank 2, linear)
const Primitive transpose_p{
    "transpose", 1,
    [](std::span<const Shape> s, const Attrs&) {
      if (s[0].rank() != 2) fail("needs a rank-2 operand");
      return Shape{s[0][1], s[0][0]};
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      const int64_t r = a.in[0]->shape()[0], c = a.in[0]->shape()[1];
      // In tiles, so that the strided writes of a large matrix (a recurrence's weight, transposed once
      // for its VJP's products) stay in cache: a row-by-row loop writes a new cache line per element.
      constexpr int64_t tile = 32;
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        for (int64_t i0 = 0; i0 < r; i0 += tile)
          for (int64_t j0 = 0; j0 < c; j0 += tile)
            for (int64_t i = i0; i < std::min(i0 + tile, r); ++i)
              for (int64_t j = j0; j < std::min(j0 + tile, c); ++j) o[j * r + i] = x[i * c + j];
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return transpose(d[0], r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) { xb[0] = transpose(yb, r.site); }};

Var matmul(Var a, Var b, bool ta, bool tb, Site site) {
  if (a.empty() || b.empty()) return {};
  Attrs at;
  at.ta = ta;
  at.tb = tb;
  return make(matmul_p, {a, b}, at, site);
}

Var addmm(Var c, Var a, Var b, bool ta, bool tb, Site site) {
  if (a.empty() || b.empty()) return c;
  if (c.empty()) return matmul(a, b, ta, tb, site);
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  const bool fits = as.rank() == 2 && bs.rank() == 2 && c.shape() == Shape{ta ? as[1] : as[0], tb ? bs[0] : bs[1]};
  // a C that broadcasts (a bias row) or of another dtype: the ordinary ops say what is wrong, or promote
  if (!fits || c.dtype() != a.dtype() || c.dtype() != b.dtype()) return add(c, matmul(a, b, ta, tb, site), site);
  if (!ta && !tb)
    if (const Var p = packed_operand(a, b, site); !p.empty()) return addmm_packed(c, a, b, p, site);
  Attrs at;
  at.ta = ta;
  at.tb = tb;
  return make(addmm_p, {c, a, b}, at, site);
}

Var transpose(Var x, Site site) {
  if (x.empty()) return {};
  return make(transpose_p, {x}, {}, site);
}

void register_linalg(std::vector<const Primitive*>& r) {
  r.push_back(&matmul_p);
  r.push_back(&addmm_p);
  r.push_back(&transpose_p);
}

}  // namespace tg::ops
