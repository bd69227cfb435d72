#include "optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/error.h"
#include "core/options.h"

namespace tg::optim {

namespace {

bool finite(double x) { return std::isfinite(x); }

bool bitwise_equal(const ParamVec& a, const ParamVec& b) {
  return a.size() == b.size() && a.dtype() == b.dtype() &&
         std::memcmp(a.flat().raw(), b.flat().raw(), static_cast<size_t>(a.size()) * dtype_size(a.dtype())) == 0;
}

}  // namespace

Lbfgs::Lbfgs(LbfgsConfig cfg) : cfg_(std::move(cfg)) {
  if (cfg_.history < 1) throw Error("lbfgs: history must be >= 1");
  if (!(cfg_.armijo > 0 && cfg_.armijo < 1)) throw Error("lbfgs: armijo must be in (0, 1)");
  if (!(cfg_.backtrack > 0 && cfg_.backtrack < 1)) throw Error("lbfgs: backtrack must be in (0, 1)");
  if (cfg_.max_line_search < 1) throw Error("lbfgs: max_line_search must be >= 1");
  if (!(cfg_.weight_decay >= 0)) throw Error("lbfgs: weight_decay must be >= 0");
  if (!(cfg_.min_curvature >= 0)) throw Error("lbfgs: min_curvature must be >= 0");
}

const std::string& Lbfgs::name() const {
  static const std::string n = "lbfgs";
  return n;
}

ParamVec Lbfgs::direction(const ParamVec& g) const {
  const size_t k = s_.size();
  ParamVec q = g.clone();
  std::vector<double> alpha(k), rho(k);
  for (size_t j = k; j-- > 0;) {
    rho[j] = 1.0 / s_[j].dot(y_[j]);
    alpha[j] = rho[j] * s_[j].dot(q);
    q.axpy(-alpha[j], y_[j]);
  }
  if (k > 0) q.scale(s_[k - 1].dot(y_[k - 1]) / y_[k - 1].dot(y_[k - 1]));
  for (size_t j = 0; j < k; ++j) {
    const double beta = rho[j] * y_[j].dot(q);
    q.axpy(alpha[j] - beta, s_[j]);
  }
  return q.scale(-1.0);
}

void Lbfgs::remember(ParamVec s, ParamVec y) {
  const double sy = s.dot(y);
  if (!(sy > cfg_.min_curvature * s.norm() * y.norm()) || !finite(sy)) return;
  s_.push_back(std::move(s));
  y_.push_back(std::move(y));
  if (static_cast<int>(s_.size()) > cfg_.history) {
    s_.erase(s_.begin());
    y_.erase(y_.begin());
  }
}

StepStats Lbfgs::step(Objective& obj, ParamVec& theta, const Data& b) {
  StepStats st;
  const int64_t t = step_++;
  st.lr = cfg_.lr.at(t) * lr_scale_;
  for (const auto* hist : {&s_, &y_})
    for (const ParamVec& v : *hist)
      if (v.size() != theta.size() || v.dtype() != theta.dtype())
        throw Error(fmt::format("lbfgs: a history vector has {} {} elements, θ has {} {}", v.size(), dtype_name(v.dtype()),
                                theta.size(), dtype_name(theta.dtype())));
  const int64_t cost = obj.cost(b);
  const double wd = cfg_.weight_decay;
  auto skip = [&](const char* why) {
    st.skipped = true;
    st.skip_reason = why;
    return st;
  };

  // f and ∇f at θ (the previous step's accepted point, when nothing changed since)
  double f;
  ParamVec g;
  if (cache_ && cache_->obj == &obj && cache_->batch->same_as(b) && bitwise_equal(cache_->theta, theta)) {
    f = cache_->loss;
    g = cache_->grad;
    st.grad_norm = cache_->grad_norm;
  } else {
    auto ev = obj.evaluate(theta, b);
    ++st.evaluations;
    st.sequences += cost;
    f = ev->value();
    st.loss = f;
    if (!finite(f)) return skip("nonfinite_loss");
    g = ev->grad().clone();
    st.sequences += cost;
    if (g.size() != theta.size()) throw Error(fmt::format("lbfgs: the gradient has {} elements, θ has {}", g.size(), theta.size()));
    st.grad_norm = g.norm();
    if (!finite(st.grad_norm) || !g.all_finite()) return skip("nonfinite_gradient");
    if (wd > 0) {
      f += 0.5 * wd * theta.dot(theta);
      g.axpy(wd, theta);
    }
  }
  cache_.reset();
  st.loss = f;

  ParamVec d = direction(g);
  double slope = g.dot(d);
  double alpha = st.lr;
  if (!(slope < 0) || !d.all_finite()) {  // H lost positive definiteness to rounding: restart
    s_.clear();
    y_.clear();
    d = g.clone().scale(-1.0);
    slope = -g.dot(g);
  }
  if (s_.empty()) alpha *= std::min(1.0, 1.0 / std::sqrt(-slope));  // no curvature known: a step of length ≤ lr

  for (int k = 0; k < cfg_.max_line_search; ++k, alpha *= cfg_.backtrack) {
    ParamVec trial = theta.clone().axpy(alpha, d);
    if (!trial.all_finite()) continue;
    auto ev = obj.evaluate(trial, b);
    ++st.evaluations;
    st.sequences += cost;
    double ft = ev->value();
    if (wd > 0) ft += 0.5 * wd * trial.dot(trial);
    if (!finite(ft) || !(ft <= f + cfg_.armijo * alpha * slope)) continue;
    ParamVec gt = ev->grad().clone();
    st.sequences += cost;
    const double gt_norm = gt.norm();
    if (!finite(gt_norm) || !gt.all_finite()) continue;
    if (wd > 0) gt.axpy(wd, trial);

    ParamVec s = trial.clone().axpy(-1.0, theta);
    st.update_norm = s.norm();
    remember(std::move(s), gt.clone().axpy(-1.0, g));
    cache_ = Cached{&obj, b.clone(), trial.clone(), gt, ft, gt_norm};
    theta = std::move(trial);
    ++updates_;
    st.new_loss = ft;
    st.step_size = alpha;
    return st;
  }
  s_.clear();
  y_.clear();
  return skip("line_search_failed");
}

OptimizerState Lbfgs::state() const {
  OptimizerState s;
  s.step = step_;
  s.updates = updates_;
  s.lr_scale = lr_scale_;
  for (size_t j = 0; j < s_.size(); ++j) {
    s.vectors.emplace_back(fmt::format("s{}", j), s_[j].clone());
    s.vectors.emplace_back(fmt::format("y{}", j), y_[j].clone());
  }
  return s;
}

void Lbfgs::restore(const OptimizerState& s) {
  if (s.step < 0 || s.updates < 0 || s.updates > s.step)
    throw Error(fmt::format("lbfgs: bad state counts (step {}, updates {})", s.step, s.updates));
  if (!(s.lr_scale > 0) || !std::isfinite(s.lr_scale)) throw Error(fmt::format("lbfgs: bad learning-rate scale {}", s.lr_scale));
  if (s.vectors.size() % 2 != 0 || static_cast<int>(s.vectors.size() / 2) > cfg_.history)
    throw Error(fmt::format("lbfgs: expected up to {} pairs s0, y0, s1, y1, ..., got {} vectors", cfg_.history, s.vectors.size()));
  // By name, not by position: a checkpoint's arrays come back in name order (s0, s1, ..., y0, ...).
  std::map<std::string, const ParamVec*> by_name;
  for (const auto& [name, v] : s.vectors) by_name[name] = &v;
  const size_t pairs = s.vectors.size() / 2;
  std::vector<ParamVec> ss, ys;
  for (size_t j = 0; j < pairs; ++j) {
    const auto sv = by_name.find(fmt::format("s{}", j)), yv = by_name.find(fmt::format("y{}", j));
    if (sv == by_name.end() || yv == by_name.end())
      throw Error(fmt::format("lbfgs: state vectors must be the pairs s0, y0 ... s{1}, y{1} (got {0})",
                              fmt::join([&] {
                                std::vector<std::string> names;
                                for (const auto& [name, v] : s.vectors) names.push_back(name);
                                return names;
                              }(), ", "), pairs - 1));
    ss.push_back(sv->second->clone());
    ys.push_back(yv->second->clone());
  }
  s_ = std::move(ss);
  y_ = std::move(ys);
  cache_.reset();
  step_ = s.step;
  updates_ = s.updates;
  lr_scale_ = s.lr_scale;
}

nlohmann::json to_json(const LbfgsConfig& c) {
  return {{"lr", c.lr.to_json()},
          {"history", c.history},
          {"armijo", c.armijo},
          {"backtrack", c.backtrack},
          {"max_line_search", c.max_line_search},
          {"weight_decay", c.weight_decay},
          {"min_curvature", c.min_curvature}};
}

LbfgsConfig lbfgs_config_from_json(const nlohmann::json& j) {
  const nlohmann::json full = merge_options("lbfgs", to_json(LbfgsConfig{}), j);
  OptionReader r("lbfgs", full);
  LbfgsConfig c;
  c.lr = read_schedule(r, "lr", 0, INFINITY);
  c.history = static_cast<int>(r.integer("history", 1));
  c.armijo = r.number("armijo", 0, 1, true, true);
  c.backtrack = r.number("backtrack", 0, 1, true, true);
  c.max_line_search = static_cast<int>(r.integer("max_line_search", 1));
  c.weight_decay = r.number("weight_decay", 0, INFINITY);
  c.min_curvature = r.number("min_curvature", 0, INFINITY);
  return c;
}

}  // namespace tg::optim
