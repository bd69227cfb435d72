// The reverse-sweep derivatives of logistic and tanh as one pass each: ȳ y (1 − y) and ȳ (1 − y²).
// As ordinary ops each is three nodes and three passes over memory (1 − y, a product, the product with
// ȳ); in a deep autoencoder's step they were about a third of the elementwise time
// (docs/results/bench_autoencoder.md), and in a small RNN two of every step's nodes.
//
// Rules stay graphs: logistic's and tanh's VJP use these ops in a one-off reverse sweep, and the
// ordinary ops in a linearization's segment, where the primal-only factor (y (1 − y), 1 − y²) is
// evaluated once and each product then costs one multiply. These ops' own rules differentiate their
// reference graphs of ordinary ops (fused::reference_jvp / reference_vjp), so second order works.
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

// out = ȳ ⊙ d(y), d in the reference's order of operations (products are not fused with the sums).
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

Var logistic_vjp_reference(std::span<const Var> x, Site s) { return mul(fused::d_logistic(x[0], s), x[1], s); }
Var tanh_vjp_reference(std::span<const Var> x, Site s) { return mul(fused::d_tanh(x[0], s), x[1], s); }

}  // namespace

// [y, y_bar] -> y_bar y (1 - y)
const Primitive logistic_vjp_p{"logistic_vjp", 2, same_two,
                               [](const EvalArgs& a) {
                                 return map_derivative(a, [](auto y) { return y * (decltype(y)(1) - y); });
                               },
                               fused::reference_jvp<logistic_vjp_reference>,
                               fused::reference_vjp<logistic_vjp_reference>};
// [y, y_bar] -> y_bar (1 - y^2)
const Primitive tanh_vjp_p{"tanh_vjp", 2, same_two,
                           [](const EvalArgs& a) {
                             return map_derivative(a, [](auto y) {
                               const auto square = y * y;  // rounded before the difference, as square then 1 - x
                               return decltype(y)(1) - square;
                             });
                           },
                           fused::reference_jvp<tanh_vjp_reference>, fused::reference_vjp<tanh_vjp_reference>};

Var logistic_vjp(Var y, Var y_bar, Site s) { return make(logistic_vjp_p, {y, y_bar}, {}, s); }
Var tanh_vjp(Var y, Var y_bar, Site s) { return make(tanh_vjp_p, {y, y_bar}, {}, s); }

void register_activation_vjp(std::vector<const Primitive*>& r) {
  r.push_back(&logistic_vjp_p);
  r.push_back(&tanh_vjp_p);
}

}  // namespace tg::ops
