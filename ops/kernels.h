// Private helpers for op kernels and rules (not part of the public API).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "core/error.h"
#include "core/graph.h"
#include "core/primitive.h"
#include "ops/ops.h"

namespace tg::ops::detail {

// Shape-rule failure: the graph adds op name, shapes, site and scope.
[[noreturn]] inline void fail(const std::string& detail) { throw ShapeError(detail); }

// numpy broadcast of two shapes; throws "cannot broadcast".
Shape broadcast_shapes(const Shape& a, const Shape& b);

// Strides (in elements) of `s` seen through broadcasting to `out` (0 on broadcast axes), padded on
// the left to rank 4 together with out's extents.
struct Bcast {
  std::array<int64_t, 4> ext{1, 1, 1, 1};
  std::array<int64_t, 4> sa{0, 0, 0, 0}, sb{0, 0, 0, 0};
};
Bcast broadcast_strides(const Shape& a, const Shape& b, const Shape& out);

// Broadcast patterns with contiguous inner loops (the general path below walks strides, which the
// compiler cannot vectorise). `small` broadcast to `big`, both seen as [outer, inner]:
//   row:    small is [inner] repeated over outer (a bias [H] added to [B,H])
//   column: small is [outer] repeated over inner (a row max [B,1] subtracted from [B,V])
inline bool row_broadcast(const Shape& small, const Shape& big, int64_t& inner) {
  int lead = 0;
  while (lead < small.rank() && small[lead] == 1) ++lead;
  const int r = small.rank() - lead;
  if (r > big.rank()) return false;
  for (int i = 0; i < r; ++i)
    if (small[lead + i] != big[big.rank() - r + i]) return false;
  inner = small.size();
  return true;
}
inline bool column_broadcast(const Shape& small, const Shape& big, int64_t& outer) {
  if (small.rank() != big.rank()) return false;
  int p = 0;
  while (p < big.rank() && small[p] == big[p]) ++p;
  for (int i = p; i < big.rank(); ++i)
    if (small[i] != 1) return false;
  outer = small.size();
  return true;
}

// y[i] = f(a[ia], b[ib]) over the broadcast index space.
template <class T, class F>
void binary_broadcast(const T* __restrict a, const T* __restrict b, T* __restrict y, const Shape& as,
                      const Shape& bs, const Shape& ys, F f) {
  const int64_t n = ys.size();
  if (as == ys && bs == ys) {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
    return;
  }
  if (as == ys && bs.size() == 1) {
    const T bv = b[0];
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], bv);
    return;
  }
  if (bs == ys && as.size() == 1) {
    const T av = a[0];
    for (int64_t i = 0; i < n; ++i) y[i] = f(av, b[i]);
    return;
  }
  int64_t k = 0;
  if (as == ys && row_broadcast(bs, ys, k) && k > 0) {
    for (int64_t o = 0; o < n; o += k)
      for (int64_t i = 0; i < k; ++i) y[o + i] = f(a[o + i], b[i]);
    return;
  }
  if (bs == ys && row_broadcast(as, ys, k) && k > 0) {
    for (int64_t o = 0; o < n; o += k)
      for (int64_t i = 0; i < k; ++i) y[o + i] = f(a[i], b[o + i]);
    return;
  }
  if (as == ys && column_broadcast(bs, ys, k) && k > 0) {
    const int64_t inner = n / k;
    for (int64_t o = 0; o < k; ++o) {
      const T bv = b[o];
      for (int64_t i = 0; i < inner; ++i) y[o * inner + i] = f(a[o * inner + i], bv);
    }
    return;
  }
  if (bs == ys && column_broadcast(as, ys, k) && k > 0) {
    const int64_t inner = n / k;
    for (int64_t o = 0; o < k; ++o) {
      const T av = a[o];
      for (int64_t i = 0; i < inner; ++i) y[o * inner + i] = f(av, b[o * inner + i]);
    }
    return;
  }
  const Bcast s = broadcast_strides(as, bs, ys);
  k = 0;
  for (int64_t i0 = 0; i0 < s.ext[0]; ++i0)
    for (int64_t i1 = 0; i1 < s.ext[1]; ++i1)
      for (int64_t i2 = 0; i2 < s.ext[2]; ++i2) {
        const int64_t oa = i0 * s.sa[0] + i1 * s.sa[1] + i2 * s.sa[2];
        const int64_t ob = i0 * s.sb[0] + i1 * s.sb[1] + i2 * s.sb[2];
        const T* pa = a + oa;
        const T* pb = b + ob;
        const int64_t ea = s.sa[3], eb = s.sb[3];
        for (int64_t i3 = 0; i3 < s.ext[3]; ++i3) y[k++] = f(pa[i3 * ea], pb[i3 * eb]);
      }
}

// Applies f elementwise to every element of one input.
template <class F>
Tensor map_unary(const EvalArgs& a, F f) {
  Tensor y = Tensor::empty(a.shape, a.dtype);
  TG_DISPATCH(a.dtype, T, {
    const T* x = a.in[0]->data<T>();
    T* o = y.data<T>();
    for (int64_t i = 0, n = y.size(); i < n; ++i) o[i] = f(x[i]);
  });
  return y;
}

inline Shape same_shape(std::span<const Shape> s, const Attrs&) { return s[0]; }

// y's shape reduced to x's by summing broadcast axes, unless already equal.
inline Var unbroadcast(Var v, const Shape& to, Site site) {
  if (v.empty() || v.shape() == to) return v;
  return sum_to(v, to, site);
}
// v broadcast to `to` unless already equal (empty stays empty).
inline Var bcast(Var v, const Shape& to, Site site) {
  if (v.empty() || v.shape() == to) return v;
  return broadcast_to(v, to, site);
}

// Picks the graph from the first non-empty Var (nullptr if all are empty).
inline Graph* graph_of(std::span<const Var> vs) {
  for (const Var& v : vs)
    if (!v.empty()) return v.graph();
  return nullptr;
}

inline Var make(const Primitive& p, std::initializer_list<Var> in, Attrs attrs, Site site) {
  Graph* g = graph_of(std::span<const Var>(in.begin(), in.size()));
  TG_ASSERT(g != nullptr, "{}: no non-empty input", p.name);
  for (const Var& v : in)
    if (v.empty()) throw ShapeError(fmt::format("{}: an input is an empty Var at {}", p.name, site.str()));
  return g->add(p, std::span<const Var>(in.begin(), in.size()), std::move(attrs), site);
}

}  // namespace tg::ops::detail
