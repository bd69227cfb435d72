// The reverse-sweep derivatives of logistic and tanh as one pass each: ȳ y (1 − y) and ȳ (1 − y²).
// As ordinary ops each is three nodes and three passes over memory (1 − y, a product, the product with
// ȳ); in a deep autoencoder's step they were about a third of the elementwise time
// (docs/results/bench_autoencoder.md), and in a small RNN two of every step's nodes.
//
// Rules stay graphs: logistic's and tanh's VJP use these ops in a one-off reverse sweep, and the
// ordinary ops in a linearization's segment, where the primal-only factor (y (1 − y), 1 − y²) is
// evaluated once and each product then costs one multiply. These ops' own rules are written out as
// graphs (not derived from a reference graph with ad::jvp, which scans the tape from y on: a Hessian
// product over a long unrolled tape would build in time quadratic in its length).
#include "ops/families.h"
#include "ops/fused.h"
#include "ops/kernels.h"

namespace tg::ops {
using namespace detail;

namespace {

Shape same_two(std::span<const Shape> s, const Attrs&) {
  if (s[0] != s[1]) fail(fmt::format("y {} and y_bar {} must have one shape", s[0].str(), s[1].str()));
  return s[0];
}

// out = ȳ ⊙ d(y), in the ordinary ops' order of operations (products are not fused with the sums).
template <class D>
Tensor map_derivative(const EvalArgs& a, D d) {
  Tensor out = Tensor::empty(a.shape, a.dtype);
  TG_DISPATCH(a.dtype, T, {
    const T* __restrict y = a.in[0]->data<T>();
    const T* __restrict yb = a.in[1]->data<T>();
    T* __restrict o = out.data<T>();
    const int64_t n = out.size();
    for (int64_t i = 0; i < n; ++i) o[i] = d(y[i]) * yb[i];
  });
  return out;
}

// o = ȳ y (1 − y):  do = dȳ y (1 − y) + ȳ (1 − 2y) dy
Var logistic_vjp_jvp(const RuleArgs& r, std::span<const Var> d) {
  const Var y = r.x[0], yb = r.x[1];
  Var t;
  if (!d[1].empty()) t = mul(fused::d_logistic(y, r.site), d[1], r.site);
  if (!d[0].empty()) {
    const Var u = mul(mul(yb, 1.0 - VarAt(scale(y, 2.0, r.site), r.site), r.site), d[0], r.site);
    t = t.empty() ? u : add(t, u, r.site);
  }
  return t;
}
void logistic_vjp_vjp(const RuleArgs& r, Var ob, std::span<const bool> need, std::span<Var> xb) {
  const Var y = r.x[0], yb = r.x[1];
  if (need[0]) xb[0] = mul(mul(ob, yb, r.site), 1.0 - VarAt(scale(y, 2.0, r.site), r.site), r.site);
  if (need[1]) xb[1] = mul(ob, fused::d_logistic(y, r.site), r.site);
}
// o = ȳ (1 − y²):  do = dȳ (1 − y²) − 2 ȳ y dy
Var tanh_vjp_jvp(const RuleArgs& r, std::span<const Var> d) {
  const Var y = r.x[0], yb = r.x[1];
  Var t;
  if (!d[1].empty()) t = mul(fused::d_tanh(y, r.site), d[1], r.site);
  if (!d[0].empty()) {
    const Var u = mul(scale(mul(yb, y, r.site), -2.0, r.site), d[0], r.site);
    t = t.empty() ? u : add(t, u, r.site);
  }
  return t;
}
void tanh_vjp_vjp(const RuleArgs& r, Var ob, std::span<const bool> need, std::span<Var> xb) {
  const Var y = r.x[0], yb = r.x[1];
  if (need[0]) xb[0] = scale(mul(mul(ob, yb, r.site), y, r.site), -2.0, r.site);
  if (need[1]) xb[1] = mul(ob, fused::d_tanh(y, r.site), r.site);
}

}  // namespace

// [y, y_bar] -> y_bar y (1 - y)
const Primitive logistic_vjp_p{"logistic_vjp", 2, same_two,
                               [](const EvalArgs& a) {
                                 return map_derivative(a, [](auto y) { return y * (decltype(y)(1) - y); });
                               },
                               logistic_vjp_jvp, logistic_vjp_vjp};
// [y, y_bar] -> y_bar (1 - y^2)
const Primitive tanh_vjp_p{"tanh_vjp", 2, same_two,
                           [](const EvalArgs& a) {
                             return map_derivative(a, [](auto y) {
                               const auto square = y * y;  // rounded before the difference, as square then 1 - x
                               return decltype(y)(1) - square;
                             });
                           },
                           tanh_vjp_jvp, tanh_vjp_vjp};

Var logistic_vjp(Var y, Var y_bar, Site s) { return make(logistic_vjp_p, {y, y_bar}, {}, s); }
Var tanh_vjp(Var y, Var y_bar, Site s) { return make(tanh_vjp_p, {y, y_bar}, {}, s); }

void register_activation_vjp(std::vector<const Primitive*>& r) {
  r.push_back(&logistic_vjp_p);
  r.push_back(&tanh_vjp_p);
}

}  // namespace tg::ops
