// Arithmetic with numpy broadcasting: add sub mul div neg scale add_scalar rsub_scalar greater.
#include "ops/families.h"

#include "ops/kernels.h"
#include "ops/sample.h"

#include <random>

namespace tg::ops {
using namespace detail;

Shape detail::broadcast_shapes(const Shape& a, const Shape& b) {
  if (a == b) return a;
  int r = std::max(a.rank(), b.rank());
  Shape out;
  for (int i = 0; i < r; ++i) {
    int ia = i - (r - a.rank()), ib = i - (r - b.rank());
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) fail("cannot broadcast");
    out.push_back(da == 1 ? db : da);
  }
  return out;
}

detail::Bcast detail::broadcast_strides(const Shape& a, const Shape& b, const Shape& out) {
  Bcast s;
  int off = 4 - out.rank();
  for (int i = 0; i < out.rank(); ++i) s.ext[off + i] = out[i];
  auto fill = [&](const Shape& x, std::array<int64_t, 4>& st) {
    int64_t stride = 1;
    for (int i = x.rank() - 1; i >= 0; --i) {
      int o = 4 - x.rank() + i;
      st[o] = x[i] == 1 ? 0 : stride;
      stride *= x[i];
    }
  };
  fill(a, s.sa);
  fill(b, s.sb);
  return s;
}

namespace {
Shape bshape(std::span<const Shape> s, const Attrs&) { return broadcast_shapes(s[0], s[1]); }

template <class F>
Tensor binary(const EvalArgs& a, F f) {
  Tensor y = Tensor::empty(a.shape, a.dtype);
  TG_DISPATCH(a.dtype, T, binary_broadcast<T>(a.in[0]->data<T>(), a.in[1]->data<T>(), y.data<T>(),
                                              a.in[0]->shape(), a.in[1]->shape(), a.shape, f));
  return y;
}
}  // namespace

// y = a + b;  dy = da + db;  a_bar = sum_to(y_bar), b_bar = sum_to(y_bar)
const Primitive add_p{
    "add", 2, bshape, [](const EvalArgs& a) { return binary(a, [](auto x, auto y) { return x + y; }); },
    [](const RuleArgs& r, std::span<const Var> d) {
      return bcast(add(d[0], d[1], r.site), r.y.shape(), r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      if (need[0]) xb[0] = unbroadcast(yb, r.x[0].shape(), r.site);
      if (need[1]) xb[1] = unbroadcast(yb, r.x[1].shape(), r.site);
    }};

// y = a - b;  dy = da - db
const Primitive sub_p{
    "sub", 2, bshape, [](const EvalArgs& a) { return binary(a, [](auto x, auto y) { return x - y; }); },
    [](const RuleArgs& r, std::span<const Var> d) {
      return bcast(sub(d[0], d[1], r.site), r.y.shape(), r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      if (need[0]) xb[0] = unbroadcast(yb, r.x[0].shape(), r.site);
      if (need[1]) xb[1] = unbroadcast(neg(yb, r.site), r.x[1].shape(), r.site);
    }};

// y = a * b;  dy = da b + a db;  a_bar = sum_to(y_bar b), b_bar = sum_to(y_bar a)
const Primitive mul_p{
    "mul", 2, bshape, [](const EvalArgs& a) { return binary(a, [](auto x, auto y) { return x * y; }); },
    [](const RuleArgs& r, std::span<const Var> d) {
      return bcast(add(mul(d[0], r.x[1], r.site), mul(r.x[0], d[1], r.site), r.site), r.y.shape(), r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      if (need[0]) xb[0] = unbroadcast(mul(yb, r.x[1], r.site), r.x[0].shape(), r.site);
      if (need[1]) xb[1] = unbroadcast(mul(yb, r.x[0], r.site), r.x[1].shape(), r.site);
    }};

// y = a / b;  dy = da / b - y db / b;  a_bar = y_bar / b, b_bar = -y_bar y / b
const Primitive div_p{
    "div", 2, bshape, [](const EvalArgs& a) { return binary(a, [](auto x, auto y) { return x / y; }); },
    [](const RuleArgs& r, std::span<const Var> d) {
      Var t0 = d[0].empty() ? Var() : div(d[0], r.x[1], r.site);
      Var t1 = d[1].empty() ? Var() : div(mul(r.y, d[1], r.site), r.x[1], r.site);
      return bcast(sub(t0, t1, r.site), r.y.shape(), r.site);
    },
    [](const RuleArgs& r, Var yb, std::span<const bool> need, std::span<Var> xb) {
      Var q = div(yb, r.x[1], r.site);
      if (need[0]) xb[0] = unbroadcast(q, r.x[0].shape(), r.site);
      if (need[1]) xb[1] = unbroadcast(neg(mul(q, r.y, r.site), r.site), r.x[1].shape(), r.site);
    }};

// y[i] = f(c, x[i]) with the attribute scalar c in x's type (as the kernels always took it: c rounded to
// float32 once, then float32 arithmetic).
template <class F>
Tensor map_with_scalar(const EvalArgs& a, F f) {
  return map_unary(a, [&](auto x) {
    using T = decltype(x);
    return static_cast<T>(f(static_cast<T>(a.attrs.scalar), x));
  });
}

// y = -x (linear)
const Primitive neg_p{
    "neg", 1, same_shape,
    [](const EvalArgs& a) { return map_unary(a, [](auto x) { return -x; }); },
    [](const RuleArgs& r, std::span<const Var> d) { return neg(d[0], r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) { xb[0] = neg(yb, r.site); }};

// y = c x (linear)
const Primitive scale_p{
    "scale", 1, same_shape,
    [](const EvalArgs& a) { return map_with_scalar(a, [](auto c, auto x) { return c * x; }); },
    [](const RuleArgs& r, std::span<const Var> d) { return scale(d[0], r.attrs.scalar, r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) {
      xb[0] = scale(yb, r.attrs.scalar, r.site);
    }};

// y = x + c;  dy = dx
const Primitive add_scalar_p{
    "add_scalar", 1, same_shape,
    [](const EvalArgs& a) { return map_with_scalar(a, [](auto c, auto x) { return x + c; }); },
    [](const RuleArgs&, std::span<const Var> d) { return d[0]; },
    [](const RuleArgs&, Var yb, std::span<const bool>, std::span<Var> xb) { xb[0] = yb; }};

// y = 1[a > b]: a 0/1 mask; zero derivative
const Primitive greater_p{
    "greater", 2, bshape,
    [](const EvalArgs& a) { return binary(a, [](auto x, auto y) { return decltype(x)(x > y ? 1 : 0); }); },
    nullptr, nullptr, false};

// Sampling ops. Their randomness is an explicit tensor input (uniform or standard-normal draws the
// caller takes from a tg::Rng) rather than a seed attribute: the tape may evaluate a node more than
// once (rematerialisation, linearisation, curvature passes re-running the primal) and must get the
// same value each time, and a draw held as data makes every evaluation, and every test, deterministic
// by the caller's seed. Samples have NO derivative (stop-gradient semantics): the engine's convention
// for non-differentiable ops is jvp = vjp = nullptr with differentiable = false (as for greater, step,
// stop_gradient), so JVPs and VJPs through them are symbolic zeros.

// y = 1[u < p]: Bernoulli(p) given u ~ U[0,1); p and u of one shape; zero derivative
const Primitive bernoulli_p{
    "bernoulli", 2,
    [](std::span<const Shape> s, const Attrs&) {
      if (s[0] != s[1]) fail("probabilities and uniform draws differ in shape");
      return s[0];
    },
    [](const EvalArgs& a) { return binary(a, [](auto p, auto u) { return decltype(p)(u < p ? 1 : 0); }); },
    nullptr, nullptr, false};

// y = mu + sigma * eps given eps ~ N(0,1) (sigma = attrs.scalar); mu and eps of one shape; zero derivative
const Primitive gaussian_p{
    "gaussian", 2,
    [](std::span<const Shape> s, const Attrs&) {
      if (s[0] != s[1]) fail("means and normal draws differ in shape");
      return s[0];
    },
    [](const EvalArgs& a) {
      Tensor y = Tensor::empty(a.shape, a.dtype);
      TG_DISPATCH(a.dtype, T, {
        const T sg = static_cast<T>(a.attrs.scalar);
        const T* m = a.in[0]->data<T>();
        const T* e = a.in[1]->data<T>();
        T* o = y.data<T>();
        for (int64_t i = 0, n = y.size(); i < n; ++i) o[i] = m[i] + sg * e[i];
      });
      return y;
    },
    nullptr, nullptr, false};

Var add(Var a, Var b, Site site) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return make(add_p, {a, b}, {}, site);
}
Var sub(Var a, Var b, Site site) {
  if (b.empty()) return a;
  if (a.empty()) return neg(b, site);
  return make(sub_p, {a, b}, {}, site);
}
Var mul(Var a, Var b, Site site) {
  if (a.empty() || b.empty()) return {};
  return make(mul_p, {a, b}, {}, site);
}
Var div(Var a, Var b, Site site) {
  if (b.empty()) throw ShapeError(fmt::format("div: division by a symbolic zero at {}", site.str()));
  if (a.empty()) return {};
  return make(div_p, {a, b}, {}, site);
}
// y = c - x;  dy = -dx. One node for the `1 - x` of derivative rules (tanh's 1 - y², logistic's
// y (1 - y)), which were a scalar fill and a broadcasting sub: the same arithmetic, one node fewer.
const Primitive rsub_scalar_p{
    "rsub_scalar", 1, same_shape,
    [](const EvalArgs& a) { return map_with_scalar(a, [](auto c, auto x) { return c - x; }); },
    [](const RuleArgs& r, std::span<const Var> d) { return neg(d[0], r.site); },
    [](const RuleArgs& r, Var yb, std::span<const bool>, std::span<Var> xb) { xb[0] = neg(yb, r.site); }};

Var neg(Var x, Site site) {
  if (x.empty()) return {};
  return make(neg_p, {x}, {}, site);
}
Var scale(Var x, double c, Site site) {
  if (x.empty()) return {};
  Attrs at;
  at.scalar = c;
  return make(scale_p, {x}, at, site);
}
Var add_scalar(Var x, double c, Site site) {
  Attrs at;
  at.scalar = c;
  return make(add_scalar_p, {x}, at, site);
}
Var rsub_scalar(Var x, double c, Site site) {
  Attrs at;
  at.scalar = c;
  return make(rsub_scalar_p, {x}, at, site);
}
Var greater(Var a, Var b, Site site) { return make(greater_p, {a, b}, {}, site); }
Var bernoulli(Var p, Var u, Site site) { return make(bernoulli_p, {p, u}, {}, site); }
Var gaussian(Var mu, Var eps, double sigma, Site site) {
  Attrs at;
  at.scalar = sigma;
  return make(gaussian_p, {mu, eps}, at, site);
}
Tensor uniform_draws(const Shape& s, DType dt, Rng& rng) {
  Tensor t = Tensor::empty(s, dt);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  TG_DISPATCH(dt, T, {
    T* o = t.data<T>();
    for (int64_t i = 0, n = t.size(); i < n; ++i) o[i] = static_cast<T>(U(rng));
  });
  return t;
}
Tensor normal_draws(const Shape& s, DType dt, Rng& rng) {
  Tensor t = Tensor::empty(s, dt);
  std::normal_distribution<double> N(0.0, 1.0);
  TG_DISPATCH(dt, T, {
    T* o = t.data<T>();
    for (int64_t i = 0, n = t.size(); i < n; ++i) o[i] = static_cast<T>(N(rng));
  });
  return t;
}
Var sample_bernoulli(Var p, Rng& rng, Site site) {
  return bernoulli(p, p.graph()->input(uniform_draws(p.shape(), p.dtype(), rng), site), site);
}
Var sample_gaussian(Var mu, Rng& rng, double sigma, Site site) {
  return gaussian(mu, mu.graph()->input(normal_draws(mu.shape(), mu.dtype(), rng), site), sigma, site);
}

void register_arith(std::vector<const Primitive*>& r) {
  for (const Primitive* p : {&add_p, &sub_p, &mul_p, &div_p, &neg_p, &scale_p, &add_scalar_p, &rsub_scalar_p, &greater_p,
                             &bernoulli_p, &gaussian_p})
    r.push_back(p);
}

}  // namespace tg::ops

namespace tg {
Var operator+(VarAt a, Var b) { return ops::add(a.v, b, a.site); }
Var operator-(VarAt a, Var b) { return ops::sub(a.v, b, a.site); }
Var operator*(VarAt a, Var b) { return ops::mul(a.v, b, a.site); }
Var operator/(VarAt a, Var b) { return ops::div(a.v, b, a.site); }
Var operator-(VarAt a) { return ops::neg(a.v, a.site); }
Var operator+(VarAt a, double b) { return ops::add_scalar(a.v, b, a.site); }
Var operator-(VarAt a, double b) { return ops::add_scalar(a.v, -b, a.site); }
Var operator*(VarAt a, double b) { return ops::scale(a.v, b, a.site); }
Var operator/(VarAt a, double b) { return ops::scale(a.v, 1.0 / b, a.site); }
Var operator+(double a, VarAt b) { return ops::add_scalar(b.v, a, b.site); }
// a - x as one node and one pass over x (rsub_scalar; it was a scalar fill and a broadcasting sub, two
// nodes): the 1 - y of tanh's and logistic's derivative rules.
Var operator-(double a, VarAt b) {
  if (b.v.empty()) return ops::add_scalar(ops::neg(b.v, b.site), a, b.site);
  return ops::rsub_scalar(b.v, a, b.site);
}
Var operator*(double a, VarAt b) { return ops::scale(b.v, a, b.site); }
Var operator/(double a, VarAt b) { return ops::scale(ops::pow(b.v, -1.0, b.site), a, b.site); }
}  // namespace tg
