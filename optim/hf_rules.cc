#include "optim/hf_rules.h"

#include <algorithm>
#include <cmath>

namespace tg::optim::hf_rules {

namespace {
ParamVec plus(const ParamVec& x, double a, const ParamVec& d) { return x.clone().axpy(a, d); }
bool finite(double x) { return std::isfinite(x); }
}  // namespace

ConjugateStepSearch::ConjugateStepSearch(const HfConfig& cfg, TrueObjective f, ParamVec zero, double f0)
    : cfg_(cfg), f_(std::move(f)), x_(std::move(zero)), f0_(f0), f_x_(f0) {}

bool ConjugateStepSearch::take(const ParamVec& step) {
  const auto [scale, f] = search(x_, f_x_, step);
  if (scale > 0) {
    x_.axpy(scale, step);
    f_x_ = f;
    return false;
  }
  return ++failed_ > cfg_.ls_damping_failures;
}

void ConjugateStepSearch::reset() {
  x_.fill(0);
  f_x_ = f0_;
  failed_ = 0;
}

std::pair<double, double> LineSearchDamping::search(const ParamVec& x, double f_x, const ParamVec& step) {
  double eps = 1.0, f = f_(plus(x, 1.0, step));
  for (int j = 0; j < cfg_.ls_damping_tries; ++j) {
    const double f2 = f_(plus(x, cfg_.ls_damping_tau * eps, step));
    if (!(f2 < f)) break;
    f = f2;
    eps *= cfg_.ls_damping_tau;
  }
  if (finite(f) && f < f_x) return {eps, f};
  return {0.0, f_x};
}

namespace {
// The vertex of the parabola through (a, fa), (b, fb), (c, fc) with a < b < c and fb below both ends:
// the 1-D minimum's estimate from the three best points of a bracket.
double parabola_vertex(double a, double fa, double b, double fb, double c, double fc) {
  const double p = (b - a) * (fb - fc), q = (b - c) * (fb - fa);
  const double den = 2 * (p - q);
  if (!(std::abs(den) > 0)) return b;
  return b - ((b - a) * p - (b - c) * q) / den;
}
}  // namespace

std::pair<double, double> AugmentedGreedySearch::search(const ParamVec& x, double f_x, const ParamVec& step) {
  auto f_at = [&](double scale) { return f_(plus(x, scale, step)); };
  // Bracket the minimum of f along the step: from CG's own scale 1, double while f keeps falling
  // (at most 2^expand_limit), or halve until f falls below f(x) (at most ls_damping_tries times).
  double lo = 0, f_lo = f_x, mid = 1, f_mid = f_at(1), hi = 0, f_hi = 0;
  constexpr int kExpandLimit = 4;
  if (finite(f_mid) && f_mid < f_x) {
    hi = 2, f_hi = f_at(2);
    for (int k = 1; k < kExpandLimit && finite(f_hi) && f_hi < f_mid; ++k) {
      lo = mid, f_lo = f_mid, mid = hi, f_mid = f_hi;
      hi = 2 * mid, f_hi = f_at(hi);
    }
    if (finite(f_hi) && f_hi < f_mid) return {hi, f_hi};  // still falling at the limit: take it
  } else {
    hi = mid, f_hi = f_mid;
    for (int k = 0;; ++k) {
      if (k >= cfg_.ls_damping_tries) return {0.0, f_x};
      mid = hi / 2, f_mid = f_at(mid);
      if (finite(f_mid) && f_mid < f_x) break;
      hi = mid, f_hi = f_mid;
    }
  }
  // f_mid is below both ends (an infinite or NaN end counts as high): one parabola through the bracket
  if (!finite(f_hi)) return {mid, f_mid};
  const double v = parabola_vertex(lo, f_lo, mid, f_mid, hi, f_hi);
  if (v > lo && v < hi && v != mid) {
    const double f_v = f_at(v);
    if (finite(f_v) && f_v < f_mid) return {v, f_v};
  }
  return {mid, f_mid};
}

std::unique_ptr<ConjugateStepSearch> make_search(const HfConfig& cfg, TrueObjective f, ParamVec zero, double f0) {
  switch (cfg.rule) {
    case StepRule::line_search_damping: return std::make_unique<LineSearchDamping>(cfg, std::move(f), std::move(zero), f0);
    case StepRule::augmented: return std::make_unique<AugmentedGreedySearch>(cfg, std::move(f), std::move(zero), f0);
    case StepRule::cg_backtrack: break;
  }
  return nullptr;
}

Chosen backtrack_over_iterates(const std::vector<std::pair<int, ParamVec>>& saved, const TrueObjective& f,
                               bool backtrack) {
  int j = static_cast<int>(saved.size()) - 1;
  double best = f(saved[j].second);
  while (backtrack && j > 0) {
    const double fj = f(saved[j - 1].second);
    if (!(fj < best) && finite(best)) break;
    best = fj;
    --j;
  }
  return Chosen{saved[j].second, saved[j].first, best};
}

double levenberg_marquardt(double lambda, double rho, const HfConfig& cfg) {
  if (rho < cfg.rho_low) return lambda * cfg.lm_increase;
  if (rho > cfg.rho_high) return std::max(cfg.min_lambda, lambda * cfg.lm_decrease);
  return lambda;
}

double adapt_mu(double mu, double p, const HfConfig& cfg) {
  if (!cfg.mu_adapt_literal) return levenberg_marquardt(mu, p, cfg);
  if (p < cfg.rho_low) return std::max(cfg.min_lambda, mu * cfg.lm_decrease);
  if (p > cfg.rho_high) return mu * cfg.lm_increase;
  return mu;
}

std::pair<double, double> armijo_line_search(const std::function<double(double alpha)>& f_at, double f0, double slope,
                                             const HfConfig& cfg) {
  double a = 1.0;
  for (int k = 0; k < (cfg.line_search ? cfg.ls_max : 1); ++k, a *= cfg.ls_factor) {
    const double f = f_at(a);
    if (finite(f) && f <= f0 + cfg.armijo * a * slope) return {a, f};
  }
  return {0.0, f0};
}

}  // namespace tg::optim::hf_rules
