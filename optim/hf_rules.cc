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

std::pair<double, double> AugmentedGreedySearch::search(const ParamVec& x, double f_x, const ParamVec& step) {
  double best_eps = 0, best_f = f_x;
  for (double eps : {2.0, 1.0, 0.5, 0.25}) {
    const double f = f_(plus(x, eps, step));
    if (finite(f) && f < best_f) {
      best_f = f;
      best_eps = eps;
    }
  }
  return {best_eps, best_f};
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
