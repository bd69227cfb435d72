// The pieces of one Hessian-free iteration (optim/hf.cc), each as the thesis names it:
//  - the step rules that turn CG's run into an update: Martens' backtracking over the stored CG
//    iterates, Krause's line-search damping (3.3.3, Alg. 5), and the greedy 1-D search of Sutskever's
//    augmented HF (ch. 6, as far as the thesis describes it);
//  - the Levenberg-Marquardt rule for λ (Martens 2010, §4.1), and Krause's for μ during CG (4.1);
//  - the backtracking (Armijo) line search on the step size.
// Each takes f, the true objective on the curvature batch at θ + δ, as a function of δ.
#pragma once
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/params.h"
#include "optim/hf.h"

namespace tg::optim::hf_rules {

using TrueObjective = std::function<double(const ParamVec& delta)>;

// A rule that builds its own update from the conjugate steps while CG runs: each step p_i is scaled by
// a 1-D search on f and added to the update when it lowers f.
class ConjugateStepSearch {
 public:
  ConjugateStepSearch(const HfConfig& cfg, TrueObjective f, ParamVec zero, double f0);
  virtual ~ConjugateStepSearch() = default;
  // Takes CG's step p_i; true when CG should stop: more than ls_damping_failures searches have failed
  // since the last reset (a running total, not a streak).
  bool take(const ParamVec& step);
  void reset();  // back to δ = 0 (CG restarted from zero)
  const ParamVec& update() const { return x_; }
  double value() const { return f_x_; }

 protected:
  // The scale of `step` that this rule accepts and f at x + scale · step; scale 0 when none helps.
  virtual std::pair<double, double> search(const ParamVec& x, double f_x, const ParamVec& step) = 0;
  const HfConfig& cfg_;
  TrueObjective f_;

 private:
  ParamVec x_;
  double f0_, f_x_;
  int failed_ = 0;
};

// Krause's line-search damping: ε ← 1, shrink by τ while f keeps improving.
class LineSearchDamping : public ConjugateStepSearch {
 public:
  using ConjugateStepSearch::ConjugateStepSearch;

 protected:
  std::pair<double, double> search(const ParamVec& x, double f_x, const ParamVec& step) override;
};

// Augmented HF's greedy search (thesis ch. 6, digest 000 §2.4): f minimised along each conjugate step in
// turn. The step is bracketed from CG's own scale 1 (doubled while f falls, up to 16; or halved until f
// falls below f(x), up to ls_damping_tries times), then refined by one parabola through the bracket.
class AugmentedGreedySearch : public ConjugateStepSearch {
 public:
  using ConjugateStepSearch::ConjugateStepSearch;

 protected:
  std::pair<double, double> search(const ParamVec& x, double f_x, const ParamVec& step) override;
};

// The search of `rule`, or null for cg_backtrack (which chooses among CG's own iterates afterwards).
std::unique_ptr<ConjugateStepSearch> make_search(const HfConfig& cfg, TrueObjective f, ParamVec zero, double f0);

// Martens' CG backtracking: from the last stored iterate, walk back while f keeps improving (only the
// last iterate without `backtrack`). Returns the chosen iterate, its CG iteration and f there.
struct Chosen {
  ParamVec delta;
  int iteration = 0;
  double value = 0;
};
Chosen backtrack_over_iterates(const std::vector<std::pair<int, ParamVec>>& saved, const TrueObjective& f,
                               bool backtrack);

// The Levenberg-Marquardt rule: λ × lm_increase when ρ < rho_low, λ × lm_decrease (not below
// min_lambda) when ρ > rho_high, else λ.
double levenberg_marquardt(double lambda, double rho, const HfConfig& cfg);

// Krause's μ(i) (4.1) at a check with agreement p: the same rule, thresholds, factors and floor as λ's (as
// Martens & Sutskever adapt their damping); with mu_adapt_literal, the directions as printed, swapped.
double adapt_mu(double mu, double p, const HfConfig& cfg);

// Backtracking on the step size: the first α in 1, ls_factor, ls_factor², ... (ls_max tries; one
// without line_search) with f(θ + α δ) <= f(θ) + armijo α gᵀδ. Returns (α, f there); α = 0 when none.
std::pair<double, double> armijo_line_search(const std::function<double(double alpha)>& f_at, double f0, double slope,
                                             const HfConfig& cfg);

}  // namespace tg::optim::hf_rules
