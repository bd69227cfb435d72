#include "optim/hf.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/options.h"
#include "optim/hf_rules.h"
#include "optim/precondition.h"

namespace tg::optim {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Loss and gradient over a large batch, a chunk at a time (the tape of 10,000 sequences of length
// 100 would not fit in memory), combined with the chunks' loss weights into the whole batch's mean.
std::pair<double, ParamVec> chunked_value_and_grad(Objective& obj, const ParamVec& theta, const Data& b, int64_t chunk) {
  if (b.size() <= chunk) {  // one chunk: no reweighting, which would round differently
    auto ev = obj.evaluate(theta, b);
    return {ev->value(), ev->grad()};
  }
  double total_w = 0, loss = 0;
  ParamVec grad = theta.clone().fill(0);
  for (int64_t first = 0; first < b.size(); first += chunk) {
    const auto part_data = b.slice(first, std::min(chunk, b.size() - first));
    const Data& part = *part_data;
    const double w = obj.weight(part);
    auto ev = obj.evaluate(theta, part);
    loss += w * ev->value();
    grad.axpy(w, ev->grad());
    total_w += w;
  }
  return {loss / total_w, grad.scale(1.0 / total_w)};
}
double chunked_value(Objective& obj, const ParamVec& theta, const Data& b, int64_t chunk) {
  if (b.size() <= chunk) return obj.value(theta, b);
  double total_w = 0, loss = 0;
  for (int64_t first = 0; first < b.size(); first += chunk) {
    const auto part_data = b.slice(first, std::min(chunk, b.size() - first));
    const Data& part = *part_data;
    const double w = obj.weight(part);
    loss += w * obj.value(theta, part);
    total_w += w;
  }
  return loss / total_w;
}

ParamVec plus(const ParamVec& theta, double a, const ParamVec& d) { return theta.clone().axpy(a, d); }
bool finite(double x) { return std::isfinite(x); }

// The reduction of f that a δ achieved over the one the damped model q promised, both from δ = 0 (f's
// reference is the curvature batch at θ): ρ of the λ rule and Krause's p of the μ rule. -∞ when it is
// not a meaningful ratio: f not finite or higher, or a model that promised no reduction.
double agreement(double f_new, double f0, double q) {
  return (finite(f_new) && f_new <= f0 && q < 0) ? (f_new - f0) / q : kNegInf;
}
}  // namespace

// Every option is checked against its range (hf_config_from_json), however the config was made.
HessianFree::HessianFree(HfConfig cfg)
    : cfg_(hf_config_from_json(to_json(cfg))), lambda_(cfg_.lambda), mu_(cfg_.mu) {}

void HessianFree::restore(double lambda, ParamVec warm_start, std::optional<double> mu) {
  if (!(lambda >= 0) || !std::isfinite(lambda)) throw Error(fmt::format("hf: restored lambda must be finite and >= 0, not {}", lambda));
  if (mu && (!(*mu >= 0) || !std::isfinite(*mu))) throw Error(fmt::format("hf: restored mu must be finite and >= 0, not {}", *mu));
  lambda_ = lambda;
  mu_ = mu.value_or(cfg_.mu);
  prev_ = std::move(warm_start);
}

HfStats HessianFree::step(Objective& obj, ParamVec& theta, const Data& grad_batch, const Data& curv_batch) {
  HfStats st;
  st.lambda = lambda_;
  st.mu = mu_;
  const int64_t n_grad = obj.cost(grad_batch), n_curv = obj.cost(curv_batch);

  const int64_t chunk = std::max(1, cfg_.grad_chunk);
  auto [loss0, g] = chunked_value_and_grad(obj, theta, grad_batch, chunk);
  st.loss = st.new_loss = loss0;
  st.sequences += 2 * n_grad;  // forward + backward
  st.grad_norm = g.norm();
  auto reject = [&](const char* why) {
    st.cg_stop = why;
    st.rho = kNegInf;
    lambda_ = std::max(cfg_.min_lambda, lambda_ * cfg_.lm_increase);
    st.next_lambda = lambda_;
    prev_ = ParamVec();
    return st;
  };
  if (!finite(st.loss) || !g.all_finite()) return reject("nonfinite_gradient");

  auto ec = obj.evaluate(theta, curv_batch);
  const double fc0 = ec->value();
  st.curv_loss = st.curv_new_loss = fc0;
  st.sequences += n_curv;
  if (!finite(fc0)) return reject("nonfinite_loss");
  const double lam = lambda_;
  const bool structural = cfg_.mu > 0 && ec->has_structural();
  if (cfg_.adapt_mu && !structural)
    throw Error("hf: adapt_mu adapts the structural damping's mu, but this objective has no structural block");
  const double mu0 = mu_;
  // B reads μ at each product: adapt_mu changes it while CG runs
  LinearOp B = [&](const ParamVec& v) {
    st.sequences += n_curv;
    const double sd_weight = cfg_.mu_times_lambda ? lam * mu_ : mu_;
    if (structural && cfg_.curvature == Curvature::gauss_newton) return ec->gnvp_structural(v, sd_weight).axpy(lam, v);
    ParamVec out = cfg_.curvature == Curvature::gauss_newton ? ec->gnvp(v)
                   : cfg_.curvature == Curvature::hessian    ? ec->hvp(v)
                                                             : ec->fisher_vp(v);
    if (structural) out.axpy(sd_weight, ec->structural_gnvp(v));
    return out.axpy(lam, v);
  };
  auto f_curv = [&](const ParamVec& delta) {
    st.sequences += n_curv;
    return obj.value(plus(theta, 1.0, delta), curv_batch);
  };

  CgOptions co;
  co.max_iters = cfg_.max_cg;
  co.min_iters = cfg_.min_cg;
  co.progress_eps = cfg_.progress_eps;
  co.zero_start_if_worse = cfg_.cg_zero_start_if_worse;
  if (cfg_.precondition) {
    co.precondition = diagonal_preconditioner(empirical_fisher_diagonal(obj, theta, curv_batch), lam,
                                              cfg_.precondition_alpha);
    st.sequences += 2 * n_curv;  // one forward + backward per sequence
  }
  ParamVec b = g.clone().scale(-1.0);
  ParamVec x0 = prev_.size() == theta.size() ? prev_.clone().scale(cfg_.cg_decay) : theta.clone().fill(0);

  // Line-search damping and the augmented search build their own update from the conjugate steps.
  std::unique_ptr<hf_rules::ConjugateStepSearch> search = hf_rules::make_search(cfg_, f_curv, theta.clone().fill(0), fc0);
  // Augmented HF's basis holds the warm start too (the thesis's "augmented" Krylov subspace, whose
  // construction it does not give): the previous solution is searched first, then each conjugate step.
  if (search && cfg_.rule == StepRule::augmented && x0.norm() > 0) search->take(x0);
  double best_reduction = 0;
  bool mu_grew = false;
  co.on_iter = [&](int i, const ParamVec& x, const ParamVec& step, double q) {
    if (search && search->take(step)) return CgNext::stop;
    if (i % cfg_.check_every != 0 || !(cfg_.true_stop_factor > 0 || cfg_.adapt_mu)) return CgNext::go_on;
    const double f = f_curv(x);  // one evaluation serves both checks
    // the thesis's stop on the true objective
    if (cfg_.true_stop_factor > 0) {
      const double red = fc0 - f;
      best_reduction = std::max(best_reduction, red);
      if (best_reduction > 0 && red < cfg_.true_stop_factor * best_reduction) return CgNext::stop;
    }
    if (!cfg_.adapt_mu) return CgNext::go_on;
    // Krause's μ(i); by μ >= 3 μ0 the model has disagreed with f at several checks: stop minimising it
    const double before = mu_;
    mu_ = hf_rules::adapt_mu(mu_, agreement(f, fc0, q), cfg_);
    if (mu_ >= 3 * mu0) {
      mu_grew = true;
      return CgNext::stop;
    }
    return mu_ != before ? CgNext::restart : CgNext::go_on;
  };
  CgResult cg = conjugate_gradient(B, b, x0, co);
  st.cg_iters = cg.iters;
  if (cfg_.cg_restart_if_stuck && !cg.zero_started && !(cg.q.back() < 0) && x0.norm() > 0) {
    // stuck above q(0): start over from 0, with the searches and μ changes of the first run forgotten
    if (search) search->reset();
    best_reduction = 0;
    mu_ = mu0;
    mu_grew = false;
    cg = conjugate_gradient(B, b, theta.clone().fill(0), co);
    st.cg_iters += cg.iters;
    st.cg_restart = true;
  }
  st.cg_stop = mu_grew ? "mu_grew" : cg.stop;
  st.mu = mu_;
  st.cg_zero_start = cg.zero_started;
  prev_ = cg.x.clone();  // the next warm start is the last iterate, not the backtracked one
  if (search && cfg_.rule == StepRule::augmented) prev_ = search->update().clone();  // AHF: the step it took

  // the update and its true reduction on the curvature batch
  ParamVec delta;
  double f_new;
  if (search) {
    delta = search->update();
    st.chosen_iter = cg.iters;
    f_new = search->value();
  } else {
    hf_rules::Chosen c = hf_rules::backtrack_over_iterates(cg.saved, f_curv, cfg_.backtrack);
    delta = std::move(c.delta);
    st.chosen_iter = c.iteration;
    f_new = c.value;
  }
  // damped quadratic model at delta (with μ as CG ended): gᵀδ + ½ δᵀBδ
  st.q = g.dot(delta) + 0.5 * delta.dot(B(delta));
  st.curv_new_loss = f_new;
  st.rho = agreement(f_new, fc0, st.q);
  // Augmented HF has no λ rule: its greedy search along each conjugate step takes the place of
  // Tikhonov damping (digest 000 §2.4), and ρ, measured at an update that is not the model's minimiser
  // (steps scaled up to 16×), says little about the model; λ stays at its configured small value.
  if (cfg_.rule != StepRule::augmented) lambda_ = hf_rules::levenberg_marquardt(lambda_, st.rho, cfg_);
  st.next_lambda = lambda_;

  double alpha = 0, f_alpha = st.loss;
  const double slope = g.dot(delta);
  if (delta.all_finite() && slope < 0) {
    std::tie(alpha, f_alpha) = hf_rules::armijo_line_search(
        [&](double a) {
          st.sequences += n_grad;
          return chunked_value(obj, plus(theta, a, delta), grad_batch, chunk);
        },
        st.loss, slope, cfg_);
  }
  if (alpha == 0) {
    prev_ = ParamVec();  // the direction was useless: restart CG from zero
    st.cg_stop += "+rejected";
    return st;
  }
  ParamVec next = plus(theta, alpha, delta);
  if (!next.all_finite()) {
    prev_ = ParamVec();
    st.cg_stop += "+nonfinite";
    return st;
  }
  theta = std::move(next);
  st.step = alpha;
  st.new_loss = f_alpha;
  st.accepted = true;
  return st;
}

namespace {
// The names of the enum options, one table each (written by to_json, read back by hf_config_from_json).
template <class E>
using Names = std::initializer_list<std::pair<E, const char*>>;
const Names<Curvature> kCurvatureNames = {
    {Curvature::gauss_newton, "gauss_newton"}, {Curvature::hessian, "hessian"}, {Curvature::fisher, "fisher"}};
const Names<StepRule> kRuleNames = {{StepRule::cg_backtrack, "cg_backtrack"},
                                    {StepRule::line_search_damping, "line_search_damping"},
                                    {StepRule::augmented, "augmented"}};
constexpr double kInf = std::numeric_limits<double>::infinity();

// Every option of HfConfig, listed once with its allowed range: to_json and hf_config_from_json both
// walk this list, so a field cannot be written without being read, or read without being checked.
// `v` has number(name, field, lo, hi, lo_open, hi_open), integer(name, field, lo), flag(name, field)
// and choice(name, field, names).
template <class Config, class Visitor>
void visit_fields(Config& c, Visitor& v) {
  v.number("lambda", c.lambda, 0, kInf, false, true);  // 0: undamped (Newton on a convex problem)
  v.number("mu", c.mu, 0, kInf, false, true);
  v.flag("mu_times_lambda", c.mu_times_lambda);
  v.flag("adapt_mu", c.adapt_mu);
  v.flag("mu_adapt_literal", c.mu_adapt_literal);
  v.choice("curvature", c.curvature, kCurvatureNames);
  v.choice("rule", c.rule, kRuleNames);
  v.integer("max_cg", c.max_cg, 1);
  v.integer("min_cg", c.min_cg, 0);
  v.number("cg_decay", c.cg_decay, 0, 1);
  v.flag("cg_zero_start_if_worse", c.cg_zero_start_if_worse);
  v.flag("cg_restart_if_stuck", c.cg_restart_if_stuck);
  v.number("progress_eps", c.progress_eps, 0, kInf, false, true);
  v.number("true_stop_factor", c.true_stop_factor, 0, 1);
  v.integer("check_every", c.check_every, 1);
  v.flag("backtrack", c.backtrack);
  v.number("lm_decrease", c.lm_decrease, 0, 1, true, true);
  v.number("lm_increase", c.lm_increase, 1, kInf, true, true);
  v.number("rho_low", c.rho_low, 0, 1);
  v.number("rho_high", c.rho_high, 0, 1);
  v.number("min_lambda", c.min_lambda, 0, kInf, false, true);
  v.flag("line_search", c.line_search);
  v.number("ls_factor", c.ls_factor, 0, 1, true, true);
  v.integer("ls_max", c.ls_max, 1);
  v.number("armijo", c.armijo, 0, 1, false, true);
  v.integer("ls_damping_tries", c.ls_damping_tries, 0);
  v.number("ls_damping_tau", c.ls_damping_tau, 0, 1, true, true);
  v.integer("ls_damping_failures", c.ls_damping_failures, 0);
  v.flag("precondition", c.precondition);
  v.number("precondition_alpha", c.precondition_alpha, 0, 1);
  v.integer("grad_chunk", c.grad_chunk, 1);
}

struct Writer {
  nlohmann::json j = nlohmann::json::object();
  void number(const char* k, double x, double, double, bool = false, bool = false) { j[k] = x; }
  void integer(const char* k, int x, int) { j[k] = x; }
  void flag(const char* k, bool x) { j[k] = x; }
  template <class E>
  void choice(const char* k, E x, Names<E> names) {
    for (const auto& [e, name] : names)
      if (e == x) j[k] = name;
  }
};

struct Reader {
  const OptionReader& r;
  void number(const char* k, double& x, double lo, double hi, bool lo_open = false, bool hi_open = false) {
    x = r.number(k, lo, hi, lo_open, hi_open);
  }
  void integer(const char* k, int& x, int lo) { x = static_cast<int>(r.integer(k, lo, std::numeric_limits<int>::max())); }
  void flag(const char* k, bool& x) { x = r.flag(k); }
  template <class E>
  void choice(const char* k, E& x, Names<E> names) {
    std::vector<const char*> allowed;
    for (const auto& [e, name] : names) allowed.push_back(name);
    const std::string chosen = r.choice(k, allowed);
    for (const auto& [e, name] : names)
      if (chosen == name) x = e;
  }
};
}  // namespace

nlohmann::json to_json(const HfConfig& c) {
  Writer w;
  visit_fields(c, w);
  return w.j;
}

HfConfig hf_config_from_json(const nlohmann::json& j) {
  const nlohmann::json full = merge_options("hf", to_json(HfConfig{}), j);
  const OptionReader r("hf", full);
  HfConfig c;
  Reader reader{r};
  visit_fields(c, reader);
  // the ranges that involve two options
  if (c.min_cg > c.max_cg) r.fail(fmt::format("option 'min_cg' ({}) must not exceed 'max_cg' ({})", c.min_cg, c.max_cg));
  if (c.rho_low > c.rho_high) r.fail(fmt::format("option 'rho_low' ({}) must not exceed 'rho_high' ({})", c.rho_low, c.rho_high));
  if (c.adapt_mu && c.mu == 0) r.fail("option 'adapt_mu' adapts the structural damping's mu, which needs 'mu' > 0");
  if (c.adapt_mu && c.mu_times_lambda)
    r.fail("option 'adapt_mu' is for Krause's weighting B = C + mu G_S + lambda I: set 'mu_times_lambda' to false "
           "(with lambda mu G_S the lambda rule already scales the structural term)");
  return c;
}

}  // namespace tg::optim
