// Recurrences as one node each (issue 25 item 5): a step-by-step RNN is ~10 nodes a step, and in a small
// model making those nodes costs as much as running their kernels (docs/results/engine_bench.md). The
// steps are stacked in rows: step t of a [n·B, H] tensor is rows [t·B, (t+1)·B).
//
//   linear_scan(U, W, A, C, z0):  q_t = u_t + z_prev W,  z_t = q_t ⊙ a_t + c_t   (z_prev = z_{t-1}, or z_{t+1}
//                                 reversed; z0 before the first step); the output stacks [Z; Q] [2·n·B, H]
//   tanh_scan(U, W, h0):          p_t = u_t + h_prev W,  h_t = tanh(p_t);  the output stacks [H; P] [2·n·B, H]
//                                 (the pre-activations are structural damping's block; a slice is a view)
//   logistic_scan, relu_scan:     the same with h_t = logistic(p_t) or relu(p_t) (the IRNN's units)
//
// Rules stay graphs, closed under differentiation, and each is one scan plus products of whole blocks: the
// scans keep the states before the elementwise step (Q, P) because every rule needs them, and a rule that
// recomputed them would pay a second product per step.
//   unit scan, tangent:    [dH; dP] = linear_scan(dU + H_prev dW, W, e'(P), 0, dh0), e'(p_t) written from h_t
//                          (1 - h_t², h_t (1 - h_t), 1[h_t > 0]);
//   unit scan, cotangent:  with s_t p_t's whole cotangent, [S; ·] = linear_scan(H̄, Wᵀ, e'(P), P̄, 0) run the
//                          other way (its Q half, H's whole cotangents, goes unused): Ū = S,
//                          W̄ = H_prevᵀ S, h̄0 = s_first Wᵀ;
//   linear_scan, tangent:  dq_t = du_t + z_prev dW + dz_prev W, dz_t = dq_t ⊙ a_t + q_t ⊙ da_t + dc_t, so
//                          [dZ; dQ] = linear_scan(dU + Z_prev dW, W, A, Q ⊙ dA + dC, dz0);
//   linear_scan, cotangent: with δ_t = z̄_t + s_next Wᵀ (z_t's whole cotangent) and s_t = δ_t ⊙ a_t + q̄_t
//                          (q_t's), [S; Δ] = linear_scan(Z̄, Wᵀ, A, Q̄, 0) run the other way: Ū = S, C̄ = Δ,
//                          Ā = Δ ⊙ Q, W̄ = Z_prevᵀ S, z̄0 = s_first Wᵀ.
#include <cstring>

#include <xsimd/xsimd.hpp>

#include "ops/blas.h"
#include "ops/families.h"
#include "ops/fused.h"
#include "ops/kernels.h"
#include "ops/logistic_kernel.h"

namespace tg::ops {
using namespace detail;

namespace {

struct ScanShape {
  int64_t steps = 0, batch = 0, hidden = 0;
};

// Steps, batch and units of stacked steps U [n·B,H] from an initial state z0 [B,H].
ScanShape scan_shape(const Shape& u, const Shape& z0) { return {u[0] / z0[0], z0[0], z0[1]}; }

// U [n·B,H], W [H,H], z0 [B,H], and `same` more inputs shaped like U.
ScanShape check_scan(const Shape& u, const Shape& w, const Shape& z0, std::span<const Shape> same) {
  if (z0.rank() != 2) fail("the initial state must be [B,H]");
  const int64_t B = z0[0], H = z0[1];
  if (w != Shape{H, H}) fail(fmt::format("W must be [{},{}] for a state of {} units", H, H, H));
  if (u.rank() != 2 || u[1] != H || B == 0 || u[0] % B != 0 || u[0] == 0)
    fail(fmt::format("the stacked steps must be [n·{},{}] with n >= 1", B, H));
  for (const Shape& s : same)
    if (s != u) fail("the stacked steps' inputs must share one shape");
  return scan_shape(u, z0);
}

// The step a scan visits k-th (k counts in scan order: from the last step when reversed).
int64_t step_of(int64_t k, int64_t n, bool reverse) { return reverse ? n - 1 - k : k; }

// rows = u_t + prev W for one step's [B,H] rows (copy, then a product accumulated onto them).
template <class T>
void add_step_product(T* rows, const T* u, const T* prev, const T* w, const ScanShape& s) {
  std::memcpy(rows, u, static_cast<size_t>(s.batch * s.hidden) * sizeof(T));
  const int B = static_cast<int>(s.batch), H = static_cast<int>(s.hidden);
  blas::gemm(false, false, B, H, H, T(1), prev, H, w, H, T(1), rows, H);
}

// Every scan's loop, in scan order: q_t = u_t + z_prev W into the lower half of y ([Z; Q]), then z_t into the
// upper half from `finish(ld, q_t, i)`, an xsimd batch of q_t's row elements starting at flat index i (ld loads
// another input's batch there); z_t is the state the next step reads. One product of [B,H] by [H,H] a step.
template <class T, class Finish>
void run_scan(const T* u, const T* w, const T* z0, T* y, const ScanShape& s, bool reverse, Finish finish) {
  const int64_t block = s.batch * s.hidden, H = s.hidden;
  T* q = y + s.steps * block;
  const T* prev = z0;
  for (int64_t k = 0; k < s.steps; ++k) {
    const int64_t o = step_of(k, s.steps, reverse) * block;
    add_step_product(q + o, u + o, prev, w, s);
    fused::rows_in_batches<T>(s.batch, H, [&](int64_t r, auto ld, auto st) {
      const int64_t i = o + r * H;
      st(y + i, finish(ld, ld(q + i), i));
    });
    prev = y + o;
  }
}

// q_t = u_t + z_prev W, z_t = q_t ⊙ a_t + c_t: [Z; Q] stacked.
Tensor linear_scan_forward(const EvalArgs& e) {
  const ScanShape s = scan_shape(e.in[0]->shape(), e.in[4]->shape());
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    const T *a = e.in[2]->data<T>(), *c = e.in[3]->data<T>();
    run_scan<T>(e.in[0]->data<T>(), e.in[1]->data<T>(), e.in[4]->data<T>(), y.data<T>(), s, e.attrs.ta,
                [&](auto ld, auto q, int64_t i) { return q * ld(a + i) + ld(c + i); });
  });
  return y;
}

// The units a scan applies (a template argument of its kernel and rules). The kernels match the elementwise
// ops' (tanh, logistic_batch, relu's x > 0 ? x : 0), so a fused recurrence and a stepped one agree to rounding
// of the products.
enum class Unit : int { tanh = 0, logistic = 1, relu = 2 };

template <Unit unit, class Batch>
Batch apply_unit(const Batch& p) {
  if constexpr (unit == Unit::tanh) return xsimd::tanh(p);
  else if constexpr (unit == Unit::logistic) return logistic_batch(p);
  else return xsimd::select(p > Batch(0), p, Batch(0));
}

// p_t = u_t + h_prev W, h_t = e(p_t): [H; P] stacked.
template <Unit unit>
Tensor unit_scan_forward(const EvalArgs& e) {
  const ScanShape s = scan_shape(e.in[0]->shape(), e.in[2]->shape());
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    run_scan<T>(e.in[0]->data<T>(), e.in[1]->data<T>(), e.in[2]->data<T>(), y.data<T>(), s, e.attrs.ta,
                [](auto, auto p, int64_t) { return apply_unit<unit>(p); });
  });
  return y;
}

// The states each step read: z0 then Z's steps but the last (reversed: Z's steps but the first, then z0).
Var shifted(Var z, Var z0, bool reverse, Site site) {
  const int64_t rows = z.shape()[0], B = z0.shape()[0];
  if (rows == B) return z0;
  const Var parts_fwd[] = {z0, slice(z, 0, 0, rows - B, site)};
  const Var parts_rev[] = {slice(z, 0, B, rows, site), z0};
  return concat(reverse ? parts_rev : parts_fwd, 0, site);
}
// The rows of the step next to z0 (the scan's first step).
Var first_step(Var z, int64_t B, bool reverse, Site site) {
  const int64_t rows = z.shape()[0];
  return reverse ? slice(z, 0, rows - B, rows, site) : slice(z, 0, 0, B, site);
}
Var or_zeros(Var v, Var like, Site site) { return v.empty() ? zeros_like(like, site) : v; }

// The halves of a stacked [Z; Q] (or [H; P], or their cotangents): views.
Var upper_half(Var y, Site site) { return slice(y, 0, 0, y.shape()[0] / 2, site); }
Var lower_half(Var y, Site site) { return slice(y, 0, y.shape()[0] / 2, y.shape()[0], site); }

// Pieces every scan's rules share, with Z the states (H for a unit scan) and z0 the initial state.
// dU + Z_prev dW: the tangent that drives the tangent scan (dW empty: W has none).
Var driven_tangent(Var du, Var dw, Var z, Var z0, bool reverse, Site site) {
  return dw.empty() ? du : add(du, matmul(shifted(z, z0, reverse, site), dw, false, false, site), site);
}
// W̄ = Z_prevᵀ S and z̄0 = s_first Wᵀ from S, the cotangents of the pre-step states.
Var weight_cotangent(Var z, Var z0, Var s, bool reverse, Site site) {
  return matmul(shifted(z, z0, reverse, site), s, true, false, site);
}
Var initial_cotangent(Var s, Var w, int64_t batch, bool reverse, Site site) {
  return matmul(first_step(s, batch, reverse, site), w, false, true, site);
}

// linear_scan: [U, W, A, C, z0] -> [Z; Q]
Var linear_scan_jvp(const RuleArgs& r, std::span<const Var> d) {
  const bool reverse = r.attrs.ta;
  const Var &u = r.x[0], &w = r.x[1], &z0 = r.x[4];
  const Var z = upper_half(r.y, r.site);
  const Var du = driven_tangent(d[0], d[1], z, z0, reverse, r.site);
  Var dc = d[3];
  if (!d[2].empty()) dc = add(dc, mul(lower_half(r.y, r.site), d[2], r.site), r.site);
  return linear_scan(or_zeros(du, u, r.site), w, r.x[2], or_zeros(dc, u, r.site), or_zeros(d[4], z0, r.site), reverse,
                     r.site);
}
void linear_scan_vjp(const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
  const bool reverse = r.attrs.ta;
  const Var &w = r.x[1], &a = r.x[2], &z0 = r.x[4];
  const int64_t B = z0.shape()[0];
  const Var sd = linear_scan(upper_half(yb, r.site), transpose(w, r.site), a, lower_half(yb, r.site),
                             zeros_like(z0, r.site), !reverse, r.site);  // [S; Δ]
  const Var s = upper_half(sd, r.site), delta = lower_half(sd, r.site);
  if (need[0]) xb[0] = s;
  if (need[1]) xb[1] = weight_cotangent(upper_half(r.y, r.site), z0, s, reverse, r.site);
  if (need[2]) xb[2] = mul(delta, lower_half(r.y, r.site), r.site);
  if (need[3]) xb[3] = delta;
  if (need[4]) xb[4] = initial_cotangent(s, w, B, reverse, r.site);
}

// unit scans: [U, W, h0] -> [H; P]
// e'(p_t) from h_t = e(p_t). relu: 1[h_t > 0] = 1[p_t > 0] for every p_t (0 at p_t = 0, as relu's own rule,
// ops/elementwise.cc), and step's derivative is zero.
template <Unit unit>
Var unit_slope(Var h, Site site) {
  if constexpr (unit == Unit::tanh) return fused::d_tanh(h, site);
  else if constexpr (unit == Unit::logistic) return fused::d_logistic(h, site);
  else return step(h, site);
}
template <Unit unit>
Var unit_scan_jvp(const RuleArgs& r, std::span<const Var> d) {
  const bool reverse = r.attrs.ta;
  const Var &u = r.x[0], &w = r.x[1], &h0 = r.x[2];
  const Var h = upper_half(r.y, r.site);
  const Var du = driven_tangent(d[0], d[1], h, h0, reverse, r.site);
  return linear_scan(or_zeros(du, u, r.site), w, unit_slope<unit>(h, r.site), zeros_like(u, r.site),
                     or_zeros(d[2], h0, r.site), reverse, r.site);  // [dH; dP]
}
// S, the whole cotangents of P, is the Z half of a reverse linear_scan; its Q half (H's whole cotangents) is
// not needed.
template <Unit unit>
void unit_scan_vjp(const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
  const bool reverse = r.attrs.ta;
  const Var &w = r.x[1], &h0 = r.x[2];
  const int64_t B = h0.shape()[0];
  const Var h = upper_half(r.y, r.site);
  const Var s = upper_half(linear_scan(upper_half(yb, r.site), transpose(w, r.site), unit_slope<unit>(h, r.site),
                                       lower_half(yb, r.site), zeros_like(h0, r.site), !reverse, r.site),
                           r.site);
  if (need[0]) xb[0] = s;
  if (need[1]) xb[1] = weight_cotangent(h, h0, s, reverse, r.site);
  if (need[2]) xb[2] = initial_cotangent(s, w, B, reverse, r.site);
}

}  // namespace

// [U, W, A, C, z0] -> [Z; Q] [2·n·B, H]; attrs.ta: the scan runs from the last step to the first
const Primitive linear_scan_p{"linear_scan", 5,
                              [](std::span<const Shape> s, const Attrs&) {
                                const Shape same[] = {s[2], s[3]};
                                check_scan(s[0], s[1], s[4], same);
                                return Shape{2 * s[0][0], s[0][1]};
                              },
                              linear_scan_forward, linear_scan_jvp, linear_scan_vjp};
// [U, W, h0] -> [H; P] [2·n·B, H]; attrs.ta as above (one primitive per unit, so each has its name in the
// tape and its own gradient-check rows)
Shape unit_scan_shape(std::span<const Shape> s, const Attrs&) {
  check_scan(s[0], s[1], s[2], {});
  return Shape{2 * s[0][0], s[0][1]};
}
const Primitive tanh_scan_p{"tanh_scan", 3, unit_scan_shape, unit_scan_forward<Unit::tanh>, unit_scan_jvp<Unit::tanh>,
                            unit_scan_vjp<Unit::tanh>};
const Primitive logistic_scan_p{"logistic_scan", 3, unit_scan_shape, unit_scan_forward<Unit::logistic>,
                                unit_scan_jvp<Unit::logistic>, unit_scan_vjp<Unit::logistic>};
const Primitive relu_scan_p{"relu_scan", 3, unit_scan_shape, unit_scan_forward<Unit::relu>, unit_scan_jvp<Unit::relu>,
                            unit_scan_vjp<Unit::relu>};

Var linear_scan(Var u, Var w, Var a, Var c, Var z0, bool reverse, Site site) {
  Attrs at;
  at.ta = reverse;
  return make(linear_scan_p, {u, w, a, c, z0}, at, site);
}
namespace {
Var unit_scan(const Primitive& p, Var u, Var w, Var h0, bool reverse, Site site) {
  Attrs at;
  at.ta = reverse;
  return make(p, {u, w, h0}, at, site);
}
}  // namespace
Var tanh_scan(Var u, Var w, Var h0, bool reverse, Site site) { return unit_scan(tanh_scan_p, u, w, h0, reverse, site); }
Var logistic_scan(Var u, Var w, Var h0, bool reverse, Site site) {
  return unit_scan(logistic_scan_p, u, w, h0, reverse, site);
}
Var relu_scan(Var u, Var w, Var h0, bool reverse, Site site) { return unit_scan(relu_scan_p, u, w, h0, reverse, site); }

void register_scan(std::vector<const Primitive*>& r) {
  r.push_back(&linear_scan_p);
  r.push_back(&tanh_scan_p);
  r.push_back(&logistic_scan_p);
  r.push_back(&relu_scan_p);
}

}  // namespace tg::ops
