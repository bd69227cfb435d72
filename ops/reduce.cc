// Reductions and broadcasting: sum (all / one axis), max with a defined subgradient, broadcast_to and
// its adjoint sum_to. mean is a composite.
#include <xsimd/xsimd.hpp>

#include "ops/families.h"
#include "ops/kernels.h"

namespace tg::ops {
using namespace detail;

namespace {
// Splits shape s around axis into (outer, n, inner) for strided loops.
struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};
Around around(const Shape& s, int axis) {
  Around r;
  for (int i = 0; i < axis; ++i) r.outer *= s[i];
  r.n = s[axis];
  for (int i = axis + 1; i < s.rank(); ++i) r.inner *= s[i];
  return r;
}
Shape drop_axis(const Shape& s, int axis) {
  Shape out;
  for (int i = 0; i < s.rank(); ++i)
    if (i != axis) out.push_back(s[i]);
  return out;
}
Shape keep_axis(const Shape& s, int axis) {
  Shape out = s;
  out[axis] = 1;
  return out;
}
int checked_axis(const Shape& s, int axis) {
  int a = axis < 0 ? axis + s.rank() : axis;
  if (a < 0 || a >= s.rank()) fail(fmt::format("axis {} out of range", axis));
  return a;
}
// Sums and maxima of contiguous rows (a softmax's over its last axis), a SIMD batch at a time: a scalar loop
// is one dependent add per element (GCC vectorises no floating-point reduction without -ffast-math), and a
// char model's softmax rows made these two kernels a sixth of a small model's training step (perf). Two
// accumulators hide the add's latency on long rows. Rows shorter than two batches stay scalar: there the
// out-of-order core overlaps independent rows, and the horizontal step costs more than it saves (V = 10:
// 6 against 12 µs a step). The order is fixed within a build; the batch width is the build's (AVX2: 8
// floats; without TAPEGRAD_SIMD or AVX2: 4), so a sum's last bits may differ between such builds.
template <class T>
T row_sum(const T* x, int64_t n) {
  using Batch = xsimd::batch<T>;
  constexpr int64_t W = static_cast<int64_t>(Batch::size);
  int64_t i = 0;
  T acc = 0;
  if (n >= 2 * W) {
    Batch a = Batch::load_unaligned(x), b(T(0));
    for (i = W; i + 2 * W <= n; i += 2 * W) {
      a += Batch::load_unaligned(x + i);
      b += Batch::load_unaligned(x + i + W);
    }
    if (i + W <= n) {
      a += Batch::load_unaligned(x + i);
      i += W;
    }
    acc = xsimd::hadd(a + b);
  }
  for (; i < n; ++i) acc += x[i];
  return acc;
}
template <class T>
T row_max(const T* x, int64_t n) {  // n >= 1
  using Batch = xsimd::batch<T>;
  constexpr int64_t W = static_cast<int64_t>(Batch::size);
  int64_t i = 0;
  T m = x[0];
  if (n >= 2 * W) {
    Batch a = Batch::load_unaligned(x);
    // the new value first: x86's max returns its second operand when either is NaN, so a lane keeps a NaN it
    // starts with and ignores later ones, as the scalar loop below keeps a NaN only at x[0]
    for (i = W; i + W <= n; i += W) a = xsimd::max(Batch::load_unaligned(x + i), a);
    alignas(64) T lanes[W];  // xsimd 8.1 has no horizontal max; a maximum of numbers is exact in any order
    a.store_aligned(lanes);
    m = lanes[0];
    for (int64_t q = 1; q < W; ++q) m = lanes[q] > m ? lanes[q] : m;
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// The cotangent of a reduction over `axis` spread back over x's shape.
Var spread(Var yb, const Shape& xs, int axis, Site site) {
  return broadcast_to(reshape(yb, keep_axis(xs, axis), site), xs, site);
}
}  // namespace

// y = sum_i x_i  (scalar);  linear, adjoint broadcast_to
const Primitive sum_all_p{
    "sum", 1, [](std::span<const Shape>, const Attrs&) { return Shape{}; },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      TG_DISPATCH(a.dtype, T, {
        y.data<T>()[0] = row_sum(a.in[0]->data<T>(), a.in[0]->size());
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return sum(d[0], r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = broadcast_to(yb, r.x[0].shape(), r.site);
    }};

// y = sum over attrs.axis (axis dropped);  linear, adjoint: reshape + broadcast_to
const Primitive sum_axis_p{
    "sum_axis", 1,
    [](std::span<const Shape> s, const Attrs& a) { return drop_axis(s[0], checked_axis(s[0], a.axis)); },
    [](const EvalArgs& a) {
      const Around g = around(a.in[0]->shape(), a.attrs.axis);
      Tensor y = Tensor::zeros(a.shape, a.dtype);
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        if (g.inner == 1) {  // the last axis (a softmax's row sums)
          for (int64_t p = 0; p < g.outer; ++p) o[p] = row_sum(x + p * g.n, g.n);
          return y;
        }
        for (int64_t p = 0; p < g.outer; ++p)
          for (int64_t i = 0; i < g.n; ++i) {
            const T* xr = x + (p * g.n + i) * g.inner;
            T* orow = o + p * g.inner;
            for (int64_t q = 0; q < g.inner; ++q) orow[q] += xr[q];
          }
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return sum(d[0], r.attrs.axis, false, r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = spread(yb, r.x[0].shape(), r.attrs.axis, r.site);
    }};

// m = one-hot of the first argmax of x along attrs.axis (same shape as x); zero derivative
const Primitive argmax_mask_p{
    "argmax_mask", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      checked_axis(s[0], a.axis);
      return s[0];
    },
    [](const EvalArgs& a) {
      const Around g = around(a.in[0]->shape(), a.attrs.axis);
      Tensor y = Tensor::zeros(a.shape, a.dtype);
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        for (int64_t p = 0; p < g.outer; ++p)
          for (int64_t q = 0; q < g.inner; ++q) {
            int64_t best = 0;
            const int64_t base = p * g.n * g.inner + q;
            for (int64_t i = 1; i < g.n; ++i)
              if (x[base + i * g.inner] > x[base + best * g.inner]) best = i;
            if (g.n > 0) o[base + best * g.inner] = 1;
          }
      });
      return y;
    },
    nullptr, nullptr, false};

// y = max over attrs.axis;  dy = sum(dx * m),  x_bar = m * spread(y_bar),  m = argmax_mask(x)
const Primitive max_axis_p{
    "max", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      int ax = checked_axis(s[0], a.axis);
      if (s[0][ax] == 0) fail("max over an empty axis");
      return drop_axis(s[0], ax);
    },
    [](const EvalArgs& a) {
      const Around g = around(a.in[0]->shape(), a.attrs.axis);
      Tensor y = Tensor::empty(a.shape, a.dtype);
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        if (g.inner == 1) {  // the last axis (a softmax's row maxima)
          for (int64_t p = 0; p < g.outer; ++p) o[p] = row_max(x + p * g.n, g.n);
          return y;
        }
        for (int64_t p = 0; p < g.outer; ++p)
          for (int64_t q = 0; q < g.inner; ++q) {
            const int64_t base = p * g.n * g.inner + q;
            T m = x[base];
            for (int64_t i = 1; i < g.n; ++i) m = x[base + i * g.inner] > m ? x[base + i * g.inner] : m;
            o[p * g.inner + q] = m;
          }
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) {
      return sum(mul(d[0], argmax_mask(r.x[0], r.attrs.axis, r.site), r.site), r.attrs.axis, false, r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = mul(argmax_mask(r.x[0], r.attrs.axis, r.site), spread(yb, r.x[0].shape(), r.attrs.axis, r.site),
                  r.site);
    }};

namespace {
// Checks that `from` broadcasts to `to` (numpy rules, `to` fixed).
void check_broadcastable(const Shape& from, const Shape& to) {
  if (from.rank() > to.rank()) fail(fmt::format("cannot broadcast to {}", to.str()));
  int off = to.rank() - from.rank();
  for (int i = 0; i < from.rank(); ++i)
    if (from[i] != 1 && from[i] != to[off + i]) fail(fmt::format("cannot broadcast to {}", to.str()));
}
}  // namespace

// y = x broadcast to attrs.shape;  linear, adjoint sum_to
const Primitive broadcast_to_p{
    "broadcast_to", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      check_broadcastable(s[0], a.shape);
      return a.shape;
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      const Shape& xs = a.in[0]->shape();
      const int64_t n = a.shape.size();
      int64_t k = 0;
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        if (xs.size() == 1) {  // one value everywhere (a loss's seed spread over its terms)
          std::fill(o, o + n, x[0]);
        } else if (row_broadcast(xs, a.shape, k) && k > 0) {  // [k] repeated: block copies
          for (int64_t p = 0; p < n; p += k) std::copy(x, x + k, o + p);
        } else if (column_broadcast(xs, a.shape, k) && k > 0) {  // each of k values fills a block
          const int64_t inner = n / k;
          for (int64_t p = 0; p < k; ++p) std::fill(o + p * inner, o + (p + 1) * inner, x[p]);
        } else {
          const T zero = 0;
          binary_broadcast<T>(x, &zero, o, xs, Shape{}, a.shape, [](T v, T) { return v; });
        }
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return broadcast_to(d[0], r.attrs.shape, r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = sum_to(yb, r.x[0].shape(), r.site);
    }};

// y = x summed over the axes that broadcasting attrs.shape -> x.shape would expand;  adjoint broadcast_to
const Primitive sum_to_p{
    "sum_to", 1,
    [](std::span<const Shape> s, const Attrs& a) {
      check_broadcastable(a.shape, s[0]);
      return a.shape;
    },
    [](const EvalArgs& a) {
      const Shape& xs = a.in[0]->shape();
      Tensor y = Tensor::zeros(a.shape, a.dtype);
      const int64_t n = xs.size();
      int64_t k = 0;
      if (row_broadcast(a.shape, xs, k) && k > 0) {  // [outer, k] -> [k]: add rows (a bias gradient)
        TG_DISPATCH(a.dtype, T, {
          const T* __restrict x = a.in[0]->data<T>();
          T* __restrict o = y.data<T>();
          for (int64_t p = 0; p < n; p += k)
            for (int64_t i = 0; i < k; ++i) o[i] += x[p + i];
        });
        return y;
      }
      if (column_broadcast(a.shape, xs, k) && k > 0) {  // [k, inner] -> [k]: row sums
        const int64_t inner = n / k;
        TG_DISPATCH(a.dtype, T, {
          const T* x = a.in[0]->data<T>();
          T* o = y.data<T>();
          for (int64_t p = 0; p < k; ++p) {
            T acc = 0;
            for (int64_t i = 0; i < inner; ++i) acc += x[p * inner + i];
            o[p] = acc;
          }
        });
        return y;
      }
      // walk x in order; accumulate into y through broadcast strides (0 on summed axes)
      const Bcast s = broadcast_strides(a.shape, Shape{}, xs);
      TG_DISPATCH(a.dtype, T, {
        const T* x = a.in[0]->data<T>();
        T* o = y.data<T>();
        k = 0;
        for (int64_t i0 = 0; i0 < s.ext[0]; ++i0)
          for (int64_t i1 = 0; i1 < s.ext[1]; ++i1)
            for (int64_t i2 = 0; i2 < s.ext[2]; ++i2) {
              T* po = o + i0 * s.sa[0] + i1 * s.sa[1] + i2 * s.sa[2];
              const int64_t e = s.sa[3];
              for (int64_t i3 = 0; i3 < s.ext[3]; ++i3) po[i3 * e] += x[k++];
            }
      });
      return y;
    },
    [](const RuleArgs& r, std::span<const Var> d) { return sum_to(d[0], r.attrs.shape, r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = broadcast_to(yb, r.x[0].shape(), r.site);
    }};

Var sum(Var x, Site site) {
  if (x.empty()) return {};
  return make(sum_all_p, {x}, {}, site);
}
Var sum(Var x, int axis, bool keepdims, Site site) {
  if (x.empty()) return {};
  Attrs a;
  a.axis = x.shape().rank() > 0 && axis < 0 ? axis + x.shape().rank() : axis;
  Var y = make(sum_axis_p, {x}, a, site);
  return keepdims ? reshape(y, keep_axis(x.shape(), a.axis), site) : y;
}
Var mean(Var x, Site site) {
  if (x.empty()) return {};
  return scale(sum(x, site), x.shape().size() ? 1.0 / static_cast<double>(x.shape().size()) : 0.0, site);
}
Var mean(Var x, int axis, bool keepdims, Site site) {
  if (x.empty()) return {};
  Var s = sum(x, axis, keepdims, site);
  int a = axis < 0 ? axis + x.shape().rank() : axis;
  return scale(s, 1.0 / static_cast<double>(x.shape()[a]), site);
}
Var max(Var x, int axis, bool keepdims, Site site) {
  Attrs a;
  a.axis = x.shape().rank() > 0 && axis < 0 ? axis + x.shape().rank() : axis;
  Var y = make(max_axis_p, {x}, a, site);
  return keepdims ? reshape(y, keep_axis(x.shape(), a.axis), site) : y;
}
Var argmax_mask(Var x, int axis, Site site) {
  Attrs a;
  a.axis = x.shape().rank() > 0 && axis < 0 ? axis + x.shape().rank() : axis;
  return make(argmax_mask_p, {x}, a, site);
}
Var broadcast_to(Var x, const Shape& s, Site site) {
  if (x.empty()) return {};
  if (x.shape() == s) return x;
  Attrs a;
  a.shape = s;
  return make(broadcast_to_p, {x}, a, site);
}
Var sum_to(Var x, const Shape& s, Site site) {
  if (x.empty()) return {};
  if (x.shape() == s) return x;
  Attrs a;
  a.shape = s;
  return make(sum_to_p, {x}, a, site);
}

void register_reduce(std::vector<const Primitive*>& r) {
  for (const Primitive* p : {&sum_all_p, &sum_axis_p, &argmax_mask_p, &max_axis_p, &broadcast_to_p, &sum_to_p})
    r.push_back(p);
}

}  // namespace tg::ops
