// Fused GRU update: h' = z h + (1 - z) tanh(u), z = σ(a_z), as one pass forward and one backward.
// Unfused it is seven nodes per step (logistic, tanh, two products, 1 - z as a fill and a difference, a
// sum) and their
// reverse-mode nodes; the GRU's tape was 2.7 times the LSTM's at H = 8 (docs/results/engine_bench.md).
//
// Rules stay graphs: the JVP is ordinary products of primal-only factors (a cached linearization
// evaluates them once), dh' = k_z da_z + k_u du + k_h dh with k_z = (h - c) z (1 - z),
// k_u = (1 - z)(1 - c²), k_h = z, c = tanh(u); the VJP is the fused op gru_update_vjp in a one-off
// reverse sweep, or the same factors' products in a linearization's segment (which runs many times);
// gru_update_vjp's rules differentiate a reference graph of ordinary ops.
#include <xsimd/xsimd.hpp>

#include "ops/families.h"
#include "ops/fused.h"
#include "ops/kernels.h"
#include "ops/logistic_kernel.h"

namespace tg::ops {
using namespace detail;
using fused::d_logistic;
using fused::d_tanh;

namespace {

Shape same_rows(std::span<const Shape> s, const char* what) {
  for (const Shape& x : s)
    if (x.rank() != 2 || x != s[0]) fail(fmt::format("{} must all be [B,H] of one shape", what));
  return s[0];
}

// [a_z, u, h] -> h'
Tensor update_forward(const EvalArgs& e) {
  const int64_t B = e.shape[0], H = e.shape[1];
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    using Batch = xsimd::batch<T>;
    const T *az = e.in[0]->data<T>(), *u = e.in[1]->data<T>(), *h = e.in[2]->data<T>();
    T* out = y.data<T>();
    fused::rows_in_batches<T>(B, H, [&](int64_t r, auto ld, auto st) {
      const int64_t o = r * H;
      const Batch z = logistic_batch(ld(az + o)), c = xsimd::tanh(ld(u + o));
      st(out + o, z * ld(h + o) + (Batch(1) - z) * c);
    });
  });
  return y;
}

// [a_z, u, h, y_bar] -> [a_z_bar; u_bar; h_bar] [3B,H]; z and tanh(u) recomputed from the inputs.
Tensor update_backward(const EvalArgs& e) {
  const int64_t B = e.in[0]->shape()[0], H = e.in[0]->shape()[1];
  Tensor y = Tensor::empty(e.shape, e.dtype);
  TG_DISPATCH(e.dtype, T, {
    using Batch = xsimd::batch<T>;
    const T *az = e.in[0]->data<T>(), *u = e.in[1]->data<T>(), *h = e.in[2]->data<T>(), *yb = e.in[3]->data<T>();
    T* out = y.data<T>();
    fused::rows_in_batches<T>(B, H, [&](int64_t r, auto ld, auto st) {
      const int64_t o = r * H;
      const Batch one(1);
      const Batch z = logistic_batch(ld(az + o)), c = xsimd::tanh(ld(u + o)), g = ld(yb + o);
      st(out + o, g * (ld(h + o) - c) * (z * (one - z)));
      st(out + B * H + o, g * (one - z) * (one - c * c));
      st(out + 2 * B * H + o, g * z);
    });
  });
  return y;
}


// The factors k_z, k_u, k_h of the linear map (da_z, du, dh) -> dh' (primal values only).
std::vector<Var> update_factors(std::span<const Var> x, Site s) {
  const Var z = logistic(x[0], s), c = tanh(x[1], s);
  return {mul(sub(x[2], c, s), d_logistic(z, s), s), mul(1.0 - VarAt(z, s), d_tanh(c, s), s), z};
}

Var update_jvp(const RuleArgs& r, std::span<const Var> d) {
  const std::vector<Var> k = update_factors(r.x, r.site);
  Var dy;
  for (size_t i = 0; i < 3; ++i)
    if (!d[i].empty()) dy = dy.empty() ? mul(k[i], d[i], r.site) : add(dy, mul(k[i], d[i], r.site), r.site);
  return dy;
}

void update_vjp(const RuleArgs& r, Var y_bar, std::span<const bool> need, std::span<Var> x_bar) {
  if (y_bar.graph()->node(y_bar.id()).dynamic) {  // a segment's cotangent: reuse the primal-only factors
    const std::vector<Var> k = update_factors(r.x, r.site);
    for (size_t i = 0; i < 3; ++i)
      if (need[i]) x_bar[i] = mul(k[i], y_bar, r.site);
    return;
  }
  const int64_t B = r.x[0].shape()[0];
  const Var all = gru_update_vjp(r.x[0], r.x[1], r.x[2], y_bar, r.site);
  for (size_t i = 0; i < 3; ++i)
    if (need[i]) x_bar[i] = slice(all, 0, static_cast<int64_t>(i) * B, static_cast<int64_t>(i + 1) * B, r.site);
}

// gru_update_vjp as a graph of ordinary ops: what its own rules differentiate.
Var update_backward_reference(std::span<const Var> x, Site s) {
  const std::vector<Var> k = update_factors(x.first(3), s);
  const Var parts[] = {mul(x[3], k[0], s), mul(x[3], k[1], s), mul(x[3], k[2], s)};
  return concat(parts, 0, s);
}

}  // namespace

// [a_z, u, h] (each [B,H]) -> h' [B,H]
const Primitive gru_update_p{"gru_update", 3,
                             [](std::span<const Shape> s, const Attrs&) { return same_rows(s, "a_z, u and h"); },
                             update_forward, update_jvp, update_vjp};

// [a_z, u, h, y_bar] -> [a_z_bar; u_bar; h_bar] [3B,H]
const Primitive gru_update_vjp_p{"gru_update_vjp", 4,
                                 [](std::span<const Shape> s, const Attrs&) {
                                   const Shape one = same_rows(s, "a_z, u, h and y_bar");
                                   return Shape{3 * one[0], one[1]};
                                 },
                                 update_backward, fused::reference_jvp<update_backward_reference>,
                                 fused::reference_vjp<update_backward_reference>};

Var gru_update(Var a_z, Var u, Var h, Site s) { return make(gru_update_p, {a_z, u, h}, {}, s); }
Var gru_update_vjp(Var a_z, Var u, Var h, Var y_bar, Site s) {
  return make(gru_update_vjp_p, {a_z, u, h, y_bar}, {}, s);
}

void register_gru_update(std::vector<const Primitive*>& r) {
  r.push_back(&gru_update_p);
  r.push_back(&gru_update_vjp_p);
}

}  // namespace tg::ops
