// Fused LSTM cell: the standard memory update (i, f, o logistic, g tanh, c = f c_prev + i g,
// h = o tanh(c)) as one pass over the gate pre-activations, forward and backward. Unfused it is four
// slices and a dozen elementwise nodes per step, each allocating and sweeping its own [B,H] buffer.
//
// Rules stay graphs: lstm_cell's JVP is the fused op lstm_cell_jvp applied to factors built from
// ordinary ops (a cached linearization evaluates them once), its VJP the fused op lstm_cell_vjp (or,
// in a linearization's segment, lstm_cell_transpose of the same factors). The rules of these fused
// ops differentiate reference graphs of ordinary ops computing the same thing, so second order
// works through them.
//
// Outputs stack their parts along axis 0 ([c; h], [a_bar; c_prev_bar]): slicing a leading block is a
// view of the buffer (no copy), where splitting along axis 1 would copy every part.
#include <algorithm>

#include <xsimd/xsimd.hpp>

#include "core/ad.h"
#include "ops/families.h"
#include "ops/fused.h"
#include "ops/kernels.h"
#include "ops/cpu_isa.h"
#include "ops/lstm_cell_kernels.h"

namespace tg::ops {
using namespace detail;
using fused::d_logistic;
using fused::d_tanh;
using fused::reference_jvp;
using fused::reference_vjp;
using fused::rows_in_batches;

#ifdef TAPEGRAD_HAVE_AVX512_KERNELS
// The AVX-512 builds of the forward and backward kernels (ops/lstm_cell_avx512.cc).
namespace detail {
void lstm_forward_avx512(const float* a, const float* cp, float* out, int64_t B, int64_t H);
void lstm_forward_avx512(const double* a, const double* cp, double* out, int64_t B, int64_t H);
void lstm_backward_avx512(const float* a, const float* cp, const float* yb, float* out, int64_t B, int64_t H);
void lstm_backward_avx512(const double* a, const double* cp, const double* yb, double* out, int64_t B, int64_t H);
}  // namespace detail
#endif

namespace {

struct Dims {
  int64_t B, H;
};
Dims check_cell(std::span<const Shape> s) {
  if (s[0].rank() != 2 || s[1].rank() != 2) fail("needs gate pre-activations a [B,4H] and c_prev [B,H]");
  const int64_t B = s[1][0], H = s[1][1];
  if (s[0][0] != B || s[0][1] != 4 * H) fail(fmt::format("a must be [{},{}] for c_prev [{},{}]", B, 4 * H, B, H));
  return {B, H};
}

// The AVX-512 build of a kernel where it is built and the CPU has it (ops/cpu_isa.h); below 16 columns its
// batch would be mostly padding, so small cells stay at AVX2. Without the build no call names it (an
// unoptimised build would keep a call behind a false condition).
#ifdef TAPEGRAD_HAVE_AVX512_KERNELS
bool use_avx512(int64_t H) { return H >= 16 && kernel_isa() == KernelIsa::avx512; }
#endif
template <class T>
void forward_kernel(const T* a, const T* cp, T* out, int64_t B, int64_t H) {
#ifdef TAPEGRAD_HAVE_AVX512_KERNELS
  if (use_avx512(H)) return lstm_forward_avx512(a, cp, out, B, H);
#endif
  lstm_kernels::forward<xsimd::default_arch, T>(a, cp, out, B, H);
}
template <class T>
void backward_kernel(const T* a, const T* cp, const T* yb, T* out, int64_t B, int64_t H) {
#ifdef TAPEGRAD_HAVE_AVX512_KERNELS
  if (use_avx512(H)) return lstm_backward_avx512(a, cp, yb, out, B, H);
#endif
  lstm_kernels::backward<xsimd::default_arch, T>(a, cp, yb, out, B, H);
}

// [a, c_prev] -> [c; h]
Tensor cell_forward(const EvalArgs& e) {
  const int64_t B = e.in[1]->shape()[0], H = e.in[1]->shape()[1];
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    const T* a = e.in[0]->data<T>();
    const T* cp = e.in[1]->data<T>();
    forward_kernel(a, cp, y.data<T>(), B, H);
  });
  return y;
}

// [a, c_prev, y_bar = [c_bar; h_bar]] -> [a_bar (as [B,4H]); c_prev_bar] (lstm_cell_kernels.h)
Tensor cell_backward(const EvalArgs& e) {
  const int64_t B = e.in[1]->shape()[0], H = e.in[1]->shape()[1];
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    const T* a = e.in[0]->data<T>();
    const T* cp = e.in[1]->data<T>();
    const T* yb = e.in[2]->data<T>();
    backward_kernel(a, cp, yb, y.data<T>(), B, H);
  });
  return y;
}

// [k = six [B,H] factor blocks, da [B,4H], dc_prev] -> [dc; dh] (see cell_jvp): multiply-adds only.
Tensor cell_tangent(const EvalArgs& e) {
  const int64_t B = e.in[2]->shape()[0], H = e.in[2]->shape()[1];
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    const T* k = e.in[0]->data<T>();
    const T* da = e.in[1]->data<T>();
    const T* dcp = e.in[2]->data<T>();
    T* out = y.data<T>();
    const int64_t blk = B * H;
    rows_in_batches<T>(B, H, [&](int64_t r, auto ld, auto st) {
      const T* kr = k + r * H;
      const T* dr = da + r * 4 * H;
      const auto dc = ld(kr) * ld(dr) + ld(kr + blk) * ld(dr + H) + ld(kr + 2 * blk) * ld(dr + 3 * H) +
                      ld(kr + 3 * blk) * ld(dcp + r * H);
      st(out + r * H, dc);
      st(out + (B + r) * H, ld(kr + 4 * blk) * dc + ld(kr + 5 * blk) * ld(dr + 2 * H));
    });
  });
  return y;
}

// [k, y_bar = [c_bar; h_bar]] -> [a_bar (as [B,4H]); c_prev_bar]: the transpose of cell_tangent.
Tensor cell_transpose(const EvalArgs& e) {
  const int64_t B = e.in[1]->shape()[0] / 2, H = e.in[1]->shape()[1];
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    const T* k = e.in[0]->data<T>();
    const T* yb = e.in[1]->data<T>();
    T* out = y.data<T>();
    const int64_t blk = B * H;
    rows_in_batches<T>(B, H, [&](int64_t r, auto ld, auto st) {
      const T* kr = k + r * H;
      const auto h_bar = ld(yb + (B + r) * H);
      const auto c_bar = ld(yb + r * H) + ld(kr + 4 * blk) * h_bar;
      T* o_r = out + r * 4 * H;
      st(o_r, ld(kr) * c_bar);
      st(o_r + H, ld(kr + blk) * c_bar);
      st(o_r + 2 * H, ld(kr + 5 * blk) * h_bar);
      st(o_r + 3 * H, ld(kr + 2 * blk) * c_bar);
      st(out + (4 * B + r) * H, ld(kr + 3 * blk) * c_bar);
    });
  });
  return y;
}

struct Gates {
  Var i, f, o, g;
};
Gates gates(Var a, Site s) {
  std::vector<Var> p = split(a, 1, 4, s);
  return {logistic(p[0], s), logistic(p[1], s), logistic(p[2], s), tanh(p[3], s)};
}

// lstm_cell's tangent: lstm_cell_jvp of the factors of the linear map (a, c_prev) -> (c, h), which
// depend on the primal only (ordinary ops: a cached linearization evaluates them once, and each call
// runs one multiply-add pass):  dc = k0 da_i + k1 da_f + k2 da_g + k3 dc_prev,  dh = k4 dc + k5 da_o.
Var cell_factors(Var a, Var c_prev, Var y, Site s) {
  const int64_t B = c_prev.shape()[0];
  const Gates q = gates(a, s);
  const Var tc = tanh(slice(y, 0, 0, B, s), s);
  const Var k[] = {mul(q.g, d_logistic(q.i, s), s), mul(c_prev, d_logistic(q.f, s), s), mul(q.i, d_tanh(q.g, s), s),
                   q.f, mul(q.o, d_tanh(tc, s), s), mul(tc, d_logistic(q.o, s), s)};
  return concat(k, 0, s);
}

Var cell_jvp(const RuleArgs& r, std::span<const Var> d) {
  const Var da = d[0].empty() ? zeros_like(r.x[0], r.site) : d[0];
  const Var dc_prev = d[1].empty() ? zeros_like(r.x[1], r.site) : d[1];
  return lstm_cell_jvp(cell_factors(r.x[0], r.x[1], r.y, r.site), da, dc_prev, r.site);
}

// A cotangent that depends on a placeholder belongs to a linearization's segment, which runs many
// times: there the primal-only factors (evaluated once) and a multiply pass beat recomputing the gates
// on every call. A one-off reverse sweep recomputes them in one pass instead.
void cell_vjp(const RuleArgs& r, Var y_bar, std::span<const bool> need, std::span<Var> x_bar) {
  const int64_t B = r.x[1].shape()[0], H = r.x[1].shape()[1];
  const bool reused = y_bar.graph()->node(y_bar.id()).dynamic;
  const Var both = reused ? lstm_cell_transpose(cell_factors(r.x[0], r.x[1], r.y, r.site), y_bar, r.site)
                          : lstm_cell_vjp(r.x[0], r.x[1], y_bar, r.site);
  if (need[0]) x_bar[0] = reshape(slice(both, 0, 0, 4 * B, r.site), {B, 4 * H}, r.site);
  if (need[1]) x_bar[1] = slice(both, 0, 4 * B, 5 * B, r.site);
}

// lstm_cell_vjp as a graph of ordinary ops: what its own rules differentiate.
Var cell_backward_reference(std::span<const Var> x, Site s) {
  const Var a = x[0], c_prev = x[1], y_bar = x[2];
  const int64_t B = c_prev.shape()[0], H = c_prev.shape()[1];
  const Gates q = gates(a, s);
  const Var tc = tanh(add(mul(q.f, c_prev, s), mul(q.i, q.g, s), s), s);
  const Var h_bar = slice(y_bar, 0, B, 2 * B, s);
  const Var c_bar = add(slice(y_bar, 0, 0, B, s), mul(mul(h_bar, q.o, s), d_tanh(tc, s), s), s);
  const Var a_bar[] = {mul(mul(c_bar, q.g, s), d_logistic(q.i, s), s), mul(mul(c_bar, c_prev, s), d_logistic(q.f, s), s),
                       mul(mul(h_bar, tc, s), d_logistic(q.o, s), s), mul(mul(c_bar, q.i, s), d_tanh(q.g, s), s)};
  const Var parts[] = {reshape(concat(a_bar, 1, s), {4 * B, H}, s), mul(c_bar, q.f, s)};
  return concat(parts, 0, s);
}

// lstm_cell_jvp as a graph of ordinary ops.
Var cell_tangent_reference(std::span<const Var> x, Site s) {
  const Var dc_prev = x[2];
  const std::vector<Var> f = split(x[0], 0, 6, s), d = split(x[1], 1, 4, s);
  const Var dc = add(add(mul(f[0], d[0], s), mul(f[1], d[1], s), s),
                     add(mul(f[2], d[3], s), mul(f[3], dc_prev, s), s), s);
  const Var parts[] = {dc, add(mul(f[4], dc, s), mul(f[5], d[2], s), s)};
  return concat(parts, 0, s);
}

// lstm_cell_transpose as a graph of ordinary ops.
Var cell_transpose_reference(std::span<const Var> x, Site s) {
  const int64_t B = x[1].shape()[0] / 2, H = x[1].shape()[1];
  const std::vector<Var> f = split(x[0], 0, 6, s);
  const Var h_bar = slice(x[1], 0, B, 2 * B, s);
  const Var c_bar = add(slice(x[1], 0, 0, B, s), mul(f[4], h_bar, s), s);
  const Var a_bar[] = {mul(f[0], c_bar, s), mul(f[1], c_bar, s), mul(f[5], h_bar, s), mul(f[2], c_bar, s)};
  const Var parts[] = {reshape(concat(a_bar, 1, s), {4 * B, H}, s), mul(f[3], c_bar, s)};
  return concat(parts, 0, s);
}

}  // namespace

// [a [B,4H], c_prev [B,H]] -> [c; h] [2B,H]   (gate order i, f, o, g)
const Primitive lstm_cell_p{"lstm_cell", 2,
                            [](std::span<const Shape> s, const Attrs&) {
                              const Dims d = check_cell(s);
                              return Shape{2 * d.B, d.H};
                            },
                            cell_forward, cell_jvp, cell_vjp};

// [a, c_prev, y_bar [2B,H]] -> [a_bar as [4B,H]; c_prev_bar] [5B,H]
const Primitive lstm_cell_vjp_p{"lstm_cell_vjp", 3,
                                [](std::span<const Shape> s, const Attrs&) {
                                  const Dims d = check_cell(s);
                                  if (s[2] != Shape{2 * d.B, d.H})
                                    fail(fmt::format("y_bar must be [{},{}]", 2 * d.B, d.H));
                                  return Shape{5 * d.B, d.H};
                                },
                                cell_backward, reference_jvp<cell_backward_reference>,
                                reference_vjp<cell_backward_reference>};

// [k [6B,H], da [B,4H], dc_prev [B,H]] -> [dc; dh] [2B,H]
const Primitive lstm_cell_jvp_p{"lstm_cell_jvp", 3,
                                [](std::span<const Shape> s, const Attrs&) {
                                  if (s[2].rank() != 2) fail("dc_prev must be [B,H]");
                                  const int64_t B = s[2][0], H = s[2][1];
                                  if (s[0] != Shape{6 * B, H}) fail(fmt::format("k must be [{},{}]", 6 * B, H));
                                  if (s[1] != Shape{B, 4 * H}) fail(fmt::format("da must be [{},{}]", B, 4 * H));
                                  return Shape{2 * B, H};
                                },
                                cell_tangent, reference_jvp<cell_tangent_reference>,
                                reference_vjp<cell_tangent_reference>};

// [k [6B,H], y_bar [2B,H]] -> [a_bar as [4B,H]; c_prev_bar] [5B,H]
const Primitive lstm_cell_transpose_p{"lstm_cell_transpose", 2,
                                      [](std::span<const Shape> s, const Attrs&) {
                                        if (s[1].rank() != 2 || s[1][0] % 2 != 0) fail("y_bar must be [2B,H]");
                                        const int64_t B = s[1][0] / 2, H = s[1][1];
                                        if (s[0] != Shape{6 * B, H}) fail(fmt::format("k must be [{},{}]", 6 * B, H));
                                        return Shape{5 * B, H};
                                      },
                                      cell_transpose, reference_jvp<cell_transpose_reference>,
                                      reference_vjp<cell_transpose_reference>};

Var lstm_cell(Var a, Var c_prev, Site s) { return make(lstm_cell_p, {a, c_prev}, {}, s); }
Var lstm_cell_vjp(Var a, Var c_prev, Var y_bar, Site s) { return make(lstm_cell_vjp_p, {a, c_prev, y_bar}, {}, s); }
Var lstm_cell_jvp(Var k, Var da, Var dc_prev, Site s) { return make(lstm_cell_jvp_p, {k, da, dc_prev}, {}, s); }
Var lstm_cell_transpose(Var k, Var y_bar, Site s) { return make(lstm_cell_transpose_p, {k, y_bar}, {}, s); }

void register_fused(std::vector<const Primitive*>& r) {
  r.push_back(&lstm_cell_p);
  r.push_back(&lstm_cell_vjp_p);
  r.push_back(&lstm_cell_jvp_p);
  r.push_back(&lstm_cell_transpose_p);
}

}  // namespace tg::ops
