// Elementwise nonlinearities. Each is one formula for the derivative, d(x, y), as a graph;
// the helper derives jvp = d * x_dot and vjp = d * y_bar (PyTorch's auto_element_wise).
#include <cmath>

#include <algorithm>

#include <xsimd/xsimd.hpp>

#include "ops/families.h"
#include "ops/kernels.h"
#include "ops/logistic_kernel.h"

namespace tg::ops {
using namespace detail;

namespace {
using Deriv = Var (*)(Var x, Var y, Site site);

template <Deriv D>
Var ew_jvp(const RuleArgs& r, std::span<const Var> d) {
  return mul(D(r.x[0], r.y, r.site), d[0], r.site);
}
template <Deriv D>
void ew_vjp(const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
  xb[0] = mul(D(r.x[0], r.y, r.site), yb, r.site);
}

// Vectorised (xsimd) kernel for transcendental functions over contiguous buffers. Every element goes
// through the same SIMD code, the tail through a zero-padded batch: xtensor's assignment loop sends
// head and tail elements through a scalar path chosen at run time, and the SIMD and scalar tanh differ
// in the last bit, which made results depend on where the allocator put a buffer.
template <class F>
Tensor map_xt(const EvalArgs& a, F f) {
  Tensor y = Tensor::empty(a.shape, a.dtype);
  const int64_t n = y.size();
  TG_DISPATCH(a.dtype, T, {
    using Batch = xsimd::batch<T>;
    constexpr int64_t width = static_cast<int64_t>(Batch::size);
    const T* x = a.in[0]->data<T>();
    T* o = y.data<T>();
    int64_t i = 0;
    for (; i + width <= n; i += width) f(Batch::load_unaligned(x + i)).store_unaligned(o + i);
    if (i < n) {
      alignas(64) T buf[width] = {};
      std::copy(x + i, x + n, buf);
      f(Batch::load_aligned(buf)).store_aligned(buf);
      std::copy(buf, buf + (n - i), o + i);
    }
  });
  return y;
}

Var d_exp(Var, Var y, Site) { return y; }
Var d_log(Var x, Var, Site s) { return pow(x, -1.0, s); }
Var d_tanh(Var, Var y, Site s) { return 1.0 - VarAt(square(y, s), s); }  // 1 - y^2
Var d_logistic(Var, Var y, Site s) { return mul(y, 1.0 - VarAt(y, s), s); }  // y (1 - y)
Var d_relu(Var x, Var, Site s) { return step(x, s); }
Var d_square(Var x, Var, Site s) { return scale(x, 2.0, s); }
Var d_sqrt(Var, Var y, Site s) { return scale(pow(y, -1.0, s), 0.5, s); }  // 1 / (2 y)
Var d_abs(Var x, Var, Site s) { return sign(x, s); }
Var d_sin(Var x, Var, Site s) { return cos(x, s); }
Var d_cos(Var x, Var, Site s) { return neg(sin(x, s), s); }  // -sin x

// logistic's and tanh's VJP: one fused pass (ops/activation_vjp.cc) in a one-off reverse sweep; in a
// linearization's segment (a cotangent that depends on a placeholder runs many times) the primal-only
// factor d(y), evaluated once, times y_bar.
template <Deriv D, Var (*Fused)(Var, Var, Site)>
void fused_vjp(const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
  const Graph& g = *yb.graph();
  if (g.node(yb.id()).dynamic && !g.node(r.y.id()).dynamic) return ew_vjp<D>(r, yb, need, xb);
  xb[0] = Fused(r.y, yb, r.site);
}
}  // namespace

// y = e^x;  dy = y dx
const Primitive exp_p{"exp", 1, same_shape,
                      [](const EvalArgs& a) { return map_xt(a, [](auto x) { return xsimd::exp(x); }); },
                      ew_jvp<d_exp>, ew_vjp<d_exp>};
// y = log x;  dy = dx / x
const Primitive log_p{"log", 1, same_shape,
                      [](const EvalArgs& a) { return map_xt(a, [](auto x) { return xsimd::log(x); }); },
                      ew_jvp<d_log>, ew_vjp<d_log>};
// y = tanh x;  dy = (1 - y^2) dx
const Primitive tanh_p{"tanh", 1, same_shape,
                       [](const EvalArgs& a) { return map_xt(a, [](auto x) { return xsimd::tanh(x); }); },
                       ew_jvp<d_tanh>, fused_vjp<d_tanh, tanh_vjp>};
// y = 1 / (1 + e^-x), accurate on both sides (ops/logistic_kernel.h);  dy = y (1 - y) dx
const Primitive logistic_p{"logistic", 1, same_shape,
                           [](const EvalArgs& a) { return map_xt(a, [](auto x) { return logistic_batch(x); }); },
                           ew_jvp<d_logistic>, fused_vjp<d_logistic, logistic_vjp>};
// y = max(x, 0);  dy = 1[x > 0] dx
const Primitive relu_p{"relu", 1, same_shape,
                       [](const EvalArgs& a) {
                         return map_unary(a, [](auto x) { return x > 0 ? x : decltype(x)(0); });
                       },
                       ew_jvp<d_relu>, ew_vjp<d_relu>};
// y = x^2;  dy = 2 x dx
const Primitive square_p{"square", 1, same_shape,
                         [](const EvalArgs& a) { return map_unary(a, [](auto x) { return x * x; }); },
                         ew_jvp<d_square>, ew_vjp<d_square>};
// y = sqrt x;  dy = dx / (2 y)
const Primitive sqrt_p{"sqrt", 1, same_shape,
                       [](const EvalArgs& a) { return map_xt(a, [](auto x) { return xsimd::sqrt(x); }); },
                       ew_jvp<d_sqrt>, ew_vjp<d_sqrt>};
// y = sin x;  dy = cos(x) dx   (the arm plant's kinematics and inertia matrix, models/arm_plant.h)
const Primitive sin_p{"sin", 1, same_shape,
                      [](const EvalArgs& a) { return map_xt(a, [](auto x) { return xsimd::sin(x); }); },
                      ew_jvp<d_sin>, ew_vjp<d_sin>};
// y = cos x;  dy = -sin(x) dx
const Primitive cos_p{"cos", 1, same_shape,
                      [](const EvalArgs& a) { return map_xt(a, [](auto x) { return xsimd::cos(x); }); },
                      ew_jvp<d_cos>, ew_vjp<d_cos>};
// y = |x|;  dy = sign(x) dx (subgradient 0 at 0)
const Primitive abs_p{"abs", 1, same_shape,
                      [](const EvalArgs& a) { return map_unary(a, [](auto x) { return std::abs(x); }); },
                      ew_jvp<d_abs>, ew_vjp<d_abs>};

// y = x^p;  dy = p x^(p-1) dx   (p in attrs.scalar)
namespace {
Var pow_deriv(const RuleArgs& r) {
  double p = r.attrs.scalar;
  if (p == 2.0) return scale(r.x[0], 2.0, r.site);
  if (p == 1.0) return ones_like(r.x[0], r.site);
  return scale(pow(r.x[0], p - 1.0, r.site), p, r.site);
}
}  // namespace
const Primitive pow_p{"pow", 1, same_shape,
                      [](const EvalArgs& a) {
                        const double p = a.attrs.scalar;
                        if (p == -1.0) return map_unary(a, [](auto x) { return decltype(x)(1) / x; });
                        if (p == 2.0) return map_unary(a, [](auto x) { return x * x; });
                        return map_unary(a, [p](auto x) { return static_cast<decltype(x)>(std::pow(x, p)); });
                      },
                      [](const RuleArgs& r, std::span<const Var> d) { return mul(pow_deriv(r), d[0], r.site); },
                      [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
                        xb[0] = mul(pow_deriv(r), yb, r.site);
                      }};

// y = log(1 + e^x), computed as max(x,0) + log1p(e^-|x|) (no overflow);  dy = logistic(x) dx.
// A primitive rather than a composite of relu/abs, whose subgradients at 0 would give 0 instead of 1/2.
namespace {
Var d_softplus(Var x, Var, Site s) { return logistic(x, s); }
}  // namespace
const Primitive softplus_p{"softplus", 1, same_shape,
                           [](const EvalArgs& a) {
                             // SIMD: the scalar log1p dominated HF runs with structural damping (its tanh head)
                             return map_xt(a, [](auto x) {
                               using B = decltype(x);
                               return xsimd::max(x, B(0)) + xsimd::log1p(xsimd::exp(-xsimd::abs(x)));
                             });
                           },
                           ew_jvp<d_softplus>, ew_vjp<d_softplus>};

// y = sign(x) in {-1, 0, 1}; zero derivative
const Primitive sign_p{"sign", 1, same_shape,
                       [](const EvalArgs& a) {
                         return map_unary(a, [](auto x) { return decltype(x)((x > 0) - (x < 0)); });
                       },
                       nullptr, nullptr, false};
// y = 1[x > 0]; zero derivative
const Primitive step_p{"step", 1, same_shape,
                       [](const EvalArgs& a) { return map_unary(a, [](auto x) { return decltype(x)(x > 0); }); },
                       nullptr, nullptr, false};

Var exp(Var x, Site s) { return make(exp_p, {x}, {}, s); }
Var log(Var x, Site s) { return make(log_p, {x}, {}, s); }
Var tanh(Var x, Site s) { return make(tanh_p, {x}, {}, s); }
Var logistic(Var x, Site s) { return make(logistic_p, {x}, {}, s); }
Var relu(Var x, Site s) { return make(relu_p, {x}, {}, s); }
Var square(Var x, Site s) { return make(square_p, {x}, {}, s); }
Var sqrt(Var x, Site s) { return make(sqrt_p, {x}, {}, s); }
Var abs(Var x, Site s) { return make(abs_p, {x}, {}, s); }
Var sin(Var x, Site s) { return make(sin_p, {x}, {}, s); }
Var cos(Var x, Site s) { return make(cos_p, {x}, {}, s); }
Var sign(Var x, Site s) { return make(sign_p, {x}, {}, s); }
Var step(Var x, Site s) { return make(step_p, {x}, {}, s); }
Var pow(Var x, double p, Site s) {
  if (p == 1.0) return x;
  Attrs a;
  a.scalar = p;
  return make(pow_p, {x}, a, s);
}

Var softplus(Var x, Site s) { return make(softplus_p, {x}, {}, s); }

void register_elementwise(std::vector<const Primitive*>& r) {
  for (const Primitive* p : {&exp_p, &log_p, &tanh_p, &logistic_p, &relu_p, &square_p, &sqrt_p, &abs_p, &pow_p,
                             &sign_p, &step_p, &softplus_p, &sin_p, &cos_p})
    r.push_back(p);
}

}  // namespace tg::ops
