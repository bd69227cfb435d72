#include "optim/cg.h"

#include <algorithm>
#include <cmath>

namespace tg::optim {

CgResult conjugate_gradient(const LinearOp& A, const ParamVec& b, const ParamVec& x0, const CgOptions& opt) {
  CgResult res;
  ParamVec x = x0.clone();
  ParamVec r = A(x).axpy(-1.0, b);  // r = A x - b
  res.products = 1;
  auto q_start = [&] { return 0.5 * x.dot(r) - 0.5 * b.dot(x); };
  if (opt.zero_start_if_worse && !(q_start() <= 0)) {  // q(0) = 0 beats the warm start
    x.fill(0);
    r = b.clone().scale(-1.0);
    res.zero_started = true;
  }
  auto precond = [&](const ParamVec& v) { return opt.precondition ? opt.precondition(v) : v.clone(); };
  ParamVec y = precond(r);
  ParamVec p = y.clone().scale(-1.0);
  double ry = r.dot(y);
  const double bnorm = std::max(b.norm(), 1e-300);
  auto q_of = [&](const ParamVec& xx, const ParamVec& rr) { return 0.5 * xx.dot(rr) - 0.5 * b.dot(xx); };
  res.q.push_back(q_of(x, r));
  // A has changed: r and the conjugacy of p belong to the old A, and carrying on with them would
  // minimise neither model. Start afresh from x, as from a warm start (r = A x - b for the new A, p the
  // preconditioned steepest descent): every later step lowers the new model, at the cost of one
  // product and of the Krylov space built so far.
  auto restart = [&] {
    r = A(x).axpy(-1.0, b);
    ++res.products;
    ++res.restarts;
    y = precond(r);
    p = y.clone().scale(-1.0);
    ry = r.dot(y);
    const double jump = q_of(x, r) - res.q.back();
    for (double& q : res.q) q += jump;  // the progress stop then compares progress, not models
  };
  double next_save = 1;
  res.stop = "max_iters";
  for (int i = 1; i <= opt.max_iters; ++i) {
    if (r.norm() <= opt.residual_tol * bnorm) {
      res.stop = "residual";
      break;
    }
    ParamVec Ap = A(p);
    ++res.products;
    double pAp = p.dot(Ap);
    if (!(pAp > 0)) {  // negative or zero curvature (possible with the exact Hessian), or NaN
      res.stop = std::isnan(pAp) ? "nan" : "negative_curvature";
      break;
    }
    double alpha = ry / pAp;
    ParamVec step = p.clone().scale(alpha);
    x.axpy(1.0, step);
    r.axpy(alpha, Ap);
    y = precond(r);
    double ry_new = r.dot(y);
    p.scale(ry_new / ry).axpy(-1.0, y);
    ry = ry_new;
    double qi = q_of(x, r);
    res.q.push_back(qi);
    res.iters = i;
    if (i >= next_save) {
      res.saved.emplace_back(i, x.clone());
      while (next_save <= i) next_save = std::ceil(next_save * opt.save_ratio);
    }
    const CgNext next = opt.on_iter ? opt.on_iter(i, x, step, qi) : CgNext::go_on;
    if (next == CgNext::stop) {
      res.stop = "hook";
      break;
    }
    if (next == CgNext::restart) {
      restart();
      qi = res.q.back();
    }
    if (opt.progress_stop && i >= opt.min_iters) {
      int k = std::max(opt.progress_k, static_cast<int>(opt.progress_frac * i));
      if (i > k && qi < 0 && (qi - res.q[i - k]) / qi < k * opt.progress_eps) {
        res.stop = "progress";
        break;
      }
    }
  }
  if (res.saved.empty() || res.saved.back().first != res.iters) res.saved.emplace_back(res.iters, x.clone());
  res.x = std::move(x);
  return res;
}

}  // namespace tg::optim
