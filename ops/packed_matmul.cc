// A weight's products from its packed form (ops/packed_gemm.h): a recurrence multiplies by the same W_h
// once a step, forward and (as W_hᵀ) in the reverse sweep, and dnnl_sgemm would pack it every time.
//
// gemm_pack(B) packs B once; addmm_packed(C, A, B, P) is addmm(C, A, B) computed from P when P's layout
// is the one its product wants now, and from B otherwise. P is a hint with no derivative of its own
// (gemm_pack is not differentiable): addmm_packed's rules are addmm's in (C, A, B), so every derivative
// flows through B as before, and those rules' own products are packed again by addmm's builder.
#include <algorithm>

#include "ops/blas.h"
#include "ops/families.h"
#include "ops/kernels.h"
#include "ops/packed_gemm.h"

namespace tg::ops {
using namespace detail;

namespace {
char pack_tag;  // the memo's key (Graph::memo): one packed copy per weight

// [k,n] -> the packed copy for products with attrs.begin rows (a flat float buffer: packed_gemm.h)
const Primitive gemm_pack_p{
    "gemm_pack", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      if (s[0].rank() != 2) fail("needs a rank-2 operand");
      return Shape{blas::packed_floats(static_cast<int>(a.begin), static_cast<int>(s[0][0]), static_cast<int>(s[0][1]))};
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      const Shape& bs = a.in[0]->shape();
      if (a.dtype == DType::f32)  // "not packed" when the layout's size changed since the graph was built
        blas::pack_b(static_cast<int>(a.attrs.begin), static_cast<int>(bs[0]), static_cast<int>(bs[1]),
                     a.in[0]->data<float>(), y.data<float>(), y.size());
      else  // a float64 graph: the products read B
        y.fill(0);  // the "not packed" header, and defined values after it
      return y;
    },
    nullptr, nullptr, false};

RuleArgs addmm_args(const RuleArgs& r) { return RuleArgs{r.x.subspan(0, 3), r.y, r.attrs, r.site}; }
}  // namespace

Var gemm_pack(Var b, int64_t rows, Site site) {
  Attrs at;
  at.begin = rows;
  return make(gemm_pack_p, {b}, at, site);
}

// [C [m,n], A [m,k], B [k,n], P = gemm_pack(B)] -> C + A B
const Primitive addmm_packed_p{
    "addmm_packed", 4,
    [](std::span<const Shape> s, const Attrs& a) {
      if (s[3].rank() != 1 || s[3][0] < blas::kPackedHeader) fail("P must be gemm_pack's flat buffer");
      return addmm_p.shape(s.subspan(0, 3), a);
    },
    [](const EvalArgs& a) {
      const int m = static_cast<int>(a.shape[0]), n = static_cast<int>(a.shape[1]);
      const int k = static_cast<int>(a.in[1]->shape()[1]);
      Tensor y = a.out ? *a.out : Tensor::empty(a.shape, a.dtype);
      if (a.dtype == DType::f32 && k > 0 && m > 0 && n > 0) {
        std::copy_n(a.in[0]->data<float>(), y.size(), y.data<float>());
        if (blas::packed_gemm(m, n, k, a.in[1]->data<float>(), a.in[3]->data<float>(), a.in[3]->size(), 1.f,
                              y.data<float>()))
          return y;
      }
      const Tensor* in[] = {a.in[0], a.in[1], a.in[2]};  // from B, into the same result
      return addmm_p.eval(EvalArgs{in, a.attrs, a.shape, a.dtype, &y});
    },
    [](const RuleArgs& r, std::span<const Var> d) { return addmm_p.jvp(addmm_args(r), d.subspan(0, 3)); },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      addmm_p.vjp(addmm_args(r), yb, need.subspan(0, 3), xb.subspan(0, 3));
    }};

Var addmm_packed(Var c, Var a, Var b, Var p, Site site) { return make(addmm_packed_p, {c, a, b, p}, {}, site); }

// B's packed copy for a product with A's rows, or an empty Var: a float32 weight of kSharedWeightMin
// elements or more (ops/families.h) in a product of kOneDnnMinWork multiply-adds or more (blas.h), from
// its second product in the graph on (a weight multiplied once is never copied: the same rule as
// transpose-once's, ops/linalg.cc), for products of A's row count (the first such product's; others read
// B), while packing is available.
Var packed_operand(Var a, Var b, Site site) {
  if (a.dtype() != DType::f32 || b.dtype() != DType::f32 || !blas::packing_available()) return {};
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  if (bs.size() < kSharedWeightMin || as[0] * as[1] * bs[1] < blas::kOneDnnMinWork) return {};
  Graph& g = *b.graph();
  Graph::Memo& m = g.memo(&pack_tag, b);
  if (m.node < 0 && ++m.calls < 2) return {};
  if (m.node < 0) m.node = gemm_pack(b, as[0], site).id();
  if (g.node(m.node).attrs.begin != as[0]) return {};
  return Var(&g, m.node);
}

void register_packed_matmul(std::vector<const Primitive*>& r) {
  r.push_back(&gemm_pack_p);
  r.push_back(&addmm_packed_p);
}

}  // namespace tg::ops
