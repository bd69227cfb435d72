#include "gradcheck/gradcheck.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/ad.h"
#include "core/error.h"
#include "core/linearize.h"
#include "ops/ops.h"

namespace tg::check {

namespace {
using Tensors = std::vector<Tensor>;

Tensors random_like(const Tensors& like, std::mt19937_64& rng) {
  std::normal_distribution<double> n(0, 1);
  Tensors out;
  for (const Tensor& t : like) {
    Tensor r = Tensor::empty(t.shape(), DType::f64);
    double* p = r.data<double>();
    for (int64_t i = 0; i < r.size(); ++i) p[i] = n(rng);
    out.push_back(r);
  }
  return out;
}

std::vector<Var> leaves(Graph& g, const Tensors& xs) {
  std::vector<Var> v;
  for (const Tensor& x : xs) v.push_back(g.input(x.clone()));
  return v;
}

Tensors values(const std::vector<Var>& vs, const std::vector<Shape>& shapes) {
  Tensors out;
  for (size_t i = 0; i < vs.size(); ++i) out.push_back(ad::value_or_zeros(vs[i], shapes[i], DType::f64).astype(DType::f64));
  return out;
}

std::vector<Shape> shapes_of(const std::vector<Var>& vs) {
  std::vector<Shape> s;
  for (const Var& v : vs) s.push_back(v.shape());
  return s;
}

double dot(const Tensors& a, const Tensors& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double* p = a[i].data<double>();
    const double* q = b[i].data<double>();
    for (int64_t k = 0; k < a[i].size(); ++k) s += p[k] * q[k];
  }
  return s;
}
double norm(const Tensors& a) { return std::sqrt(dot(a, a)); }
double diff_norm(const Tensors& a, const Tensors& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double* p = a[i].data<double>();
    const double* q = b[i].data<double>();
    for (int64_t k = 0; k < a[i].size(); ++k) s += (p[k] - q[k]) * (p[k] - q[k]);
  }
  return std::sqrt(s);
}
Tensors axpy(const Tensors& x, double a, const Tensors& v) {  // x + a v
  Tensors out;
  for (size_t i = 0; i < x.size(); ++i) {
    Tensor t = x[i].clone();
    double* p = t.data<double>();
    const double* q = v[i].data<double>();
    for (int64_t k = 0; k < t.size(); ++k) p[k] += a * q[k];
    out.push_back(t);
  }
  return out;
}

// Output values, with their shapes, at inputs xs.
struct Eval {
  Tensors y;
  std::vector<Shape> shapes;
};
Eval evaluate(const Fn& f, const Tensors& xs) {
  Graph g;
  std::vector<Var> outs = f(g, leaves(g, xs));
  Eval e;
  e.shapes = shapes_of(outs);
  e.y = values(outs, e.shapes);
  return e;
}

Tensors fresh_jvp(const Fn& f, const Tensors& xs, const Tensors& v) {
  Graph g;
  std::vector<Var> in = leaves(g, xs);
  std::vector<Var> outs = f(g, in);
  std::vector<Var> t = ad::jvp(outs, in, leaves(g, v));
  return values(t, shapes_of(outs));
}

Tensors fresh_vjp(const Fn& f, const Tensors& xs, const Tensors& u) {
  Graph g;
  std::vector<Var> in = leaves(g, xs);
  std::vector<Var> outs = f(g, in);
  std::vector<ad::Seed> seeds;
  for (size_t j = 0; j < outs.size(); ++j) seeds.push_back({outs[j], g.input(u[j].clone())});
  return values(ad::vjp(seeds, in), shapes_of(in));
}

double rel(double err, double scale) { return err / std::max(scale, 1e-3); }

// First-order checks of f at xs; returns {fd error, dot error}.
std::pair<double, double> first_order(const Fn& f, const Tensors& xs, const Options& opt, std::mt19937_64& rng) {
  Eval e0 = evaluate(f, xs);
  Tensors v = random_like(xs, rng);
  Tensors u = random_like(e0.y, rng);
  Tensors jv = fresh_jvp(f, xs, v);
  Tensors jtu = fresh_vjp(f, xs, u);
  double fd_err = 0;
  if (opt.finite_differences) {
    Eval ep = evaluate(f, axpy(xs, opt.eps, v));
    Eval em = evaluate(f, axpy(xs, -opt.eps, v));
    Tensors fd;
    for (size_t j = 0; j < ep.y.size(); ++j) {
      Tensor t = ep.y[j].clone();
      double* p = t.data<double>();
      const double* q = em.y[j].data<double>();
      for (int64_t k = 0; k < t.size(); ++k) p[k] = (p[k] - q[k]) / (2 * opt.eps);
      fd.push_back(t);
    }
    fd_err = rel(diff_norm(jv, fd), std::max(norm(fd), norm(jv)));
  }
  double a = dot(u, jv), b = dot(jtu, v);
  double scale = norm(u) * norm(jv) + norm(jtu) * norm(v);
  double dot_err = scale > 0 ? std::abs(a - b) / scale : std::abs(a - b);
  return {fd_err, dot_err};
}
}  // namespace

Report check_gauss_newton_product(const std::vector<double>& engine, const OutputsAt& z, const ParamVec& theta,
                                  const ParamVec& v, const HessianTimes& hessian_times,
                                  const std::vector<bool>& varies) {
  const double h = 1e-5;
  const std::vector<double> zp = z(theta.clone().axpy(h, v)), zm = z(theta.clone().axpy(-h, v));
  std::vector<double> jv(zp.size());
  for (size_t i = 0; i < jv.size(); ++i) jv[i] = (zp[i] - zm[i]) / (2 * h);
  const std::vector<double> u = hessian_times(z(theta), jv);
  std::vector<double> reference(static_cast<size_t>(theta.size()));
  for (int64_t i = 0; i < theta.size(); ++i) {
    if (!varies.empty() && !varies[static_cast<size_t>(i)]) continue;
    ParamVec up = theta.clone(), down = theta.clone();
    up.flat().data<double>()[i] += h;
    down.flat().data<double>()[i] -= h;
    const std::vector<double> a = z(up), c = z(down);
    double d = 0;
    for (size_t k = 0; k < u.size(); ++k) d += u[k] * (a[k] - c[k]) / (2 * h);
    reference[static_cast<size_t>(i)] = d;
  }
  double scale = 0, err = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    scale = std::max(scale, std::abs(reference[i]));
    err = std::max(err, std::abs(engine[i] - reference[i]));
  }
  Report r;
  r.worst = err / std::max(scale, 1e-300);
  r.ok = r.worst < 1e-6;
  if (!r.ok) r.failure = fmt::format("G v differs from Jᵀ H J v by {:.2e} (relative)", r.worst);
  return r;
}

std::vector<Tensor> random_inputs(const std::vector<Shape>& shapes, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  Tensors out;
  for (const Shape& s : shapes) {
    Tensor t = Tensor::empty(s, DType::f64);
    double* p = t.data<double>();
    for (int64_t i = 0; i < t.size(); ++i) p[i] = d(rng);
    out.push_back(t);
  }
  return out;
}

Report check_fn(const Fn& f, const std::vector<Tensor>& inputs_any, const Options& opt) {
  Report r;
  std::mt19937_64 rng(opt.seed);
  Tensors xs;
  for (const Tensor& t : inputs_any) xs.push_back(t.astype(DType::f64));
  auto fail = [&](const std::string& what) {
    if (r.ok) r.failure = what;
    r.ok = false;
  };
  try {
    // 1. first order
    std::tie(r.fd1, r.dot1) = first_order(f, xs, opt, rng);
    if (r.fd1 > opt.fd_tol) fail(fmt::format("FD vs JVP relative error {:.2e}", r.fd1));
    if (r.dot1 > opt.dot_tol) fail(fmt::format("dot-product test relative error {:.2e}", r.dot1));

    // 2. second order: the VJP graph x -> Jᵀu and the JVP graph x -> Jv are checked the same way
    if (opt.order >= 2) {
      Eval e0 = evaluate(f, xs);
      Tensors u = random_like(e0.y, rng), v = random_like(xs, rng);
      Fn f_vjp = [&](Graph& g, std::span<const Var> in) {
        std::vector<Var> outs = f(g, in);
        std::vector<ad::Seed> seeds;
        for (size_t j = 0; j < outs.size(); ++j) seeds.push_back({outs[j], g.input(u[j].clone())});
        std::vector<Var> c = ad::vjp(seeds, in);
        for (size_t i = 0; i < c.size(); ++i)
          if (c[i].empty()) c[i] = ops::zeros_like(in[i]);
        return c;
      };
      Fn f_jvp = [&](Graph& g, std::span<const Var> in) {
        std::vector<Var> outs = f(g, in);
        std::vector<Var> tv;
        for (const Tensor& t : v) tv.push_back(g.input(t.clone()));
        std::vector<Var> t = ad::jvp(outs, in, tv);
        for (size_t j = 0; j < t.size(); ++j)
          if (t[j].empty()) t[j] = ops::zeros_like(outs[j]);
        return t;
      };
      auto [fa, da] = first_order(f_vjp, xs, opt, rng);
      auto [fb, db] = first_order(f_jvp, xs, opt, rng);
      r.fd2 = std::max(fa, fb);
      r.dot2 = std::max(da, db);
      if (r.fd2 > opt.fd_tol) fail(fmt::format("second-order FD error {:.2e}", r.fd2));
      if (r.dot2 > opt.dot_tol) fail(fmt::format("second-order dot-product error {:.2e}", r.dot2));
    }

    // 3. linearize: cached products equal fresh ones; the primal is evaluated once
    {
      Graph g;
      std::vector<Var> in = leaves(g, xs);
      std::vector<Var> outs = f(g, in);
      Var loss;
      for (const Var& y : outs) {
        Tensor rr = random_like({y.value().astype(DType::f64)}, rng)[0];
        loss = ops::add(loss, ops::sum(ops::mul(y, g.input(rr))));
      }
      ad::Linearization lin(in, loss);
      for (int k = 0; k < opt.linearize_calls; ++k) {
        Tensors v = random_like(xs, rng);
        Tensors u;
        for (const Var& y : outs) u.push_back(random_like({y.value().astype(DType::f64)}, rng)[0]);
        Tensors a = lin.jvp(v, outs), b = fresh_jvp(f, xs, v);
        Tensors c = lin.vjp(outs, u), d = fresh_vjp(f, xs, u);
        for (auto* t : {&a, &c})
          for (Tensor& x : *t) x = x.astype(DType::f64);
        r.lin = std::max({r.lin, rel(diff_norm(a, b), norm(b)), rel(diff_norm(c, d), norm(d))});
      }
      r.primal_reevals = lin.primal_reevaluations();
      if (r.lin > 1e-12) fail(fmt::format("linearize differs from fresh products by {:.2e}", r.lin));
      if (r.primal_reevals != 0) fail(fmt::format("linearize re-evaluated the primal {} times", r.primal_reevals));
    }
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
  }
  r.worst = std::max({r.fd1, r.dot1, r.fd2, r.dot2, r.lin});
  return r;
}

}  // namespace tg::check
