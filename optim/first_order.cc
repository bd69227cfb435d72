#include "optim/first_order.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/error.h"
#include "optim/lbfgs.h"
#include "core/options.h"

namespace tg::optim {

namespace {

bool finite(double x) { return std::isfinite(x); }

// The state vectors of one step, copied on first write so that a rejected step leaves the committed
// state untouched.
class Slots {
 public:
  Slots(const std::map<std::string, ParamVec>& committed, const ParamVec& like) : committed_(committed), like_(like) {}
  bool has(const std::string& name) const { return work_.count(name) || committed_.count(name); }
  ParamVec& operator[](const std::string& name) {
    auto it = work_.find(name);
    if (it != work_.end()) return it->second;
    auto c = committed_.find(name);
    ParamVec v = c != committed_.end() ? c->second.clone() : ParamVec(like_.layout(), like_.dtype());
    return work_.emplace(name, std::move(v)).first->second;
  }
  std::map<std::string, ParamVec>& written() { return work_; }

 private:
  const std::map<std::string, ParamVec>& committed_;
  const ParamVec& like_;
  std::map<std::string, ParamVec> work_;
};

// The shared step: evaluation point, checks, clipping, decay; subclasses give the update.
class GradientMethod : public FirstOrder {
 public:
  // slot_names: the state vectors it keeps; every_update: those that every update writes (all of them unless
  // given), which a checkpoint taken after an update must hold.
  GradientMethod(std::string name, const nlohmann::json& resolved, std::vector<std::string> slot_names,
                 std::optional<std::vector<std::string>> every_update = std::nullopt)
      : name_(std::move(name)),
        config_(resolved),
        slot_names_(std::move(slot_names)),
        every_update_(every_update ? std::move(*every_update) : slot_names_) {
    OptionReader r(name_, config_);
    lr_ = read_schedule(r, "lr", 0, INFINITY);
    if (config_.contains("momentum")) momentum_ = read_schedule(r, "momentum", 0, 1, /*hi_open=*/true);
    clip_norm_ = r.number("clip_norm", 0, INFINITY);
    weight_decay_ = r.number("weight_decay", 0, INFINITY);
    // the resolved config shows schedules expanded, so it rebuilds the same optimizer
    config_["lr"] = lr_.to_json();
    if (config_.contains("momentum")) config_["momentum"] = momentum_.to_json();
  }

  const std::string& name() const override { return name_; }
  nlohmann::json config() const override { return config_; }

  StepStats step(Objective& obj, ParamVec& theta, const Data& b) override {
    StepStats st;
    const int64_t t = step_++;
    st.lr = lr_.at(t) * lr_scale_;
    st.momentum = reported_momentum(t);
    for (const auto& [n, v] : slots_)
      if (v.size() != theta.size() || v.dtype() != theta.dtype())
        throw Error(fmt::format("{}: state vector '{}' has {} {} elements, θ has {} {}", name_, n, v.size(),
                                dtype_name(v.dtype()), theta.size(), dtype_name(theta.dtype())));

    const ParamVec point = evaluation_point(theta, st.momentum);
    auto ev = obj.evaluate(point, b);
    const int64_t cost = obj.cost(b);
    st.loss = ev->value();
    st.sequences = cost;
    if (!finite(st.loss)) return skip(st, "nonfinite_loss");
    ParamVec g = ev->grad().clone();  // Evaluation::grad shares its cache's buffer
    st.sequences += cost;
    ev.reset();
    if (g.size() != theta.size()) throw Error(fmt::format("{}: the gradient has {} elements, θ has {}", name_, g.size(), theta.size()));
    st.grad_norm = g.norm();  // a norm that overflows (> ~1e154) counts as non-finite too
    if (!finite(st.grad_norm) || !g.all_finite()) return skip(st, "nonfinite_gradient");
    if (clip_norm_ > 0 && st.grad_norm > clip_norm_) {
      g.scale(clip_norm_ / st.grad_norm);
      st.clipped = true;
    }
    if (weight_decay_ > 0) g.axpy(weight_decay_, point);

    ParamVec next = theta.clone();
    Slots slots(slots_, theta);
    update(next, g, st.lr, st.momentum, slots);
    if (!next.all_finite()) return skip(st, "nonfinite_update");
    for (auto& [n, v] : slots.written())
      if (!v.all_finite()) return skip(st, "nonfinite_update");
    st.update_norm = next.clone().axpy(-1.0, theta).norm();
    for (auto& [n, v] : slots.written()) slots_[n] = std::move(v);
    theta = std::move(next);
    ++updates_;
    return st;
  }

  OptimizerState state() const override {
    OptimizerState s;
    s.step = step_;
    s.updates = updates_;
    s.lr_scale = lr_scale_;
    for (const std::string& n : slot_names_) {
      auto it = slots_.find(n);
      if (it != slots_.end()) s.vectors.emplace_back(n, it->second.clone());
    }
    return s;
  }

  void restore(const OptimizerState& s) override {
    if (s.step < 0 || s.updates < 0 || s.updates > s.step)
      throw Error(fmt::format("{}: bad state counts (step {}, updates {})", name_, s.step, s.updates));
    if (!(s.lr_scale > 0) || !std::isfinite(s.lr_scale))
      throw Error(fmt::format("{}: bad learning-rate scale {}", name_, s.lr_scale));
    std::map<std::string, ParamVec> slots;
    for (const auto& [n, v] : s.vectors) {
      if (std::find(slot_names_.begin(), slot_names_.end(), n) == slot_names_.end()) {
        std::string known;
        for (const auto& k : slot_names_) known += (known.empty() ? "" : ", ") + k;
        throw Error(fmt::format("{}: unknown state vector '{}' (known: {})", name_, n, known.empty() ? "none" : known));
      }
      if (!slots.emplace(n, v.clone()).second) throw Error(fmt::format("{}: state vector '{}' given twice", name_, n));
    }
    // without it the run would go on from a zero vector: not the run it was (a damaged checkpoint)
    if (s.updates > 0)
      for (const std::string& n : every_update_)
        if (!slots.count(n))
          throw Error(fmt::format("{}: the state has no vector '{}' after {} updates (resuming without it would not "
                                  "continue the run)",
                                  name_, n, s.updates));
    slots_ = std::move(slots);
    step_ = s.step;
    updates_ = s.updates;
    lr_scale_ = s.lr_scale;
  }

 protected:
  virtual double reported_momentum(int64_t t) const { return momentum_.at(t); }
  virtual ParamVec evaluation_point(const ParamVec& theta, double /*mu*/) const { return theta; }
  // θ ← the updated point, from the processed gradient; slots are this step's working copies.
  virtual void update(ParamVec& theta, const ParamVec& g, double lr, double mu, Slots& s) = 0;

  const ParamVec* committed(const std::string& n) const {
    auto it = slots_.find(n);
    return it == slots_.end() ? nullptr : &it->second;
  }

 private:
  StepStats& skip(StepStats& st, const char* why) {
    st.skipped = true;
    st.skip_reason = why;
    return st;
  }

  std::string name_;
  nlohmann::json config_;
  std::vector<std::string> slot_names_, every_update_;
  Schedule lr_, momentum_;
  double clip_norm_ = 0, weight_decay_ = 0;
  std::map<std::string, ParamVec> slots_;
};

class Sgd : public GradientMethod {
 public:
  explicit Sgd(const nlohmann::json& c) : GradientMethod("sgd", c, {}) {}

 protected:
  double reported_momentum(int64_t) const override { return 0; }
  void update(ParamVec& theta, const ParamVec& g, double lr, double, Slots&) override { theta.axpy(-lr, g); }
};

// Classical momentum; with look_ahead, Nesterov's accelerated gradient (the gradient at θ + μv).
class Momentum : public GradientMethod {
 public:
  Momentum(const nlohmann::json& c, bool look_ahead)
      : GradientMethod(look_ahead ? "nag" : "momentum", c, {"velocity"}), look_ahead_(look_ahead) {}

 protected:
  ParamVec evaluation_point(const ParamVec& theta, double mu) const override {
    const ParamVec* v = committed("velocity");
    if (!look_ahead_ || !v || mu == 0) return theta;
    return theta.clone().axpy(mu, *v);
  }
  void update(ParamVec& theta, const ParamVec& g, double lr, double mu, Slots& s) override {
    ParamVec& v = s["velocity"];
    v.scale(mu).axpy(-lr, g);
    theta.axpy(1.0, v);
  }

 private:
  bool look_ahead_;
};

class RmsProp : public GradientMethod {
 public:
  explicit RmsProp(const nlohmann::json& c) : GradientMethod("rmsprop", c, {"mean_square", "velocity"}, {{"mean_square"}}) {
    OptionReader r("rmsprop", c);
    decay_ = r.number("decay", 0, 1, false, true);
    eps_ = r.number("eps", 0, INFINITY, true);
  }

 protected:
  void update(ParamVec& theta, const ParamVec& g, double lr, double mu, Slots& s) override {
    ParamVec& r = s["mean_square"];
    // the velocity exists from the first step with μ ≠ 0 on, so a schedule reaching μ = 0 keeps it exact
    const bool with_velocity = mu != 0 || s.has("velocity");
    ParamVec* b = with_velocity ? &s["velocity"] : nullptr;
    const double rho = decay_, eps = eps_;
    TG_DISPATCH(theta.dtype(), T, {
      T* th = theta.flat().data<T>();
      T* rs = r.flat().data<T>();
      T* bs = b ? b->flat().data<T>() : nullptr;
      const T* gs = g.flat().data<T>();
      for (int64_t i = 0; i < theta.size(); ++i) {
        const double gi = gs[i];
        const double ri = rho * rs[i] + (1 - rho) * gi * gi;
        rs[i] = static_cast<T>(ri);
        double d = gi / (std::sqrt(ri) + eps);
        if (bs) d = bs[i] = static_cast<T>(mu * bs[i] + d);
        th[i] = static_cast<T>(th[i] - lr * d);
      }
    });
  }

 private:
  double decay_, eps_;
};

class Adam : public GradientMethod {
 public:
  explicit Adam(const nlohmann::json& c) : GradientMethod("adam", c, {"m", "v"}) {
    OptionReader r("adam", c);
    beta1_ = r.number("beta1", 0, 1, false, true);
    beta2_ = r.number("beta2", 0, 1, false, true);
    eps_ = r.number("eps", 0, INFINITY, true);
  }

 protected:
  double reported_momentum(int64_t) const override { return beta1_; }
  void update(ParamVec& theta, const ParamVec& g, double lr, double, Slots& s) override {
    ParamVec& m = s["m"];
    ParamVec& v = s["v"];
    const double k = static_cast<double>(updates_ + 1);
    const double c1 = 1 - std::pow(beta1_, k), c2 = 1 - std::pow(beta2_, k);
    const double b1 = beta1_, b2 = beta2_, eps = eps_;
    TG_DISPATCH(theta.dtype(), T, {
      T* th = theta.flat().data<T>();
      T* ms = m.flat().data<T>();
      T* vs = v.flat().data<T>();
      const T* gs = g.flat().data<T>();
      for (int64_t i = 0; i < theta.size(); ++i) {
        const double gi = gs[i];
        const double mi = b1 * ms[i] + (1 - b1) * gi;
        const double vi = b2 * vs[i] + (1 - b2) * gi * gi;
        ms[i] = static_cast<T>(mi);
        vs[i] = static_cast<T>(vi);
        th[i] = static_cast<T>(th[i] - lr * (mi / c1) / (std::sqrt(vi / c2) + eps));
      }
    });
  }

 private:
  double beta1_, beta2_, eps_;
};

nlohmann::json defaults_of(const std::string& name) {
  using nlohmann::json;
  if (name == "sgd") return {{"lr", 0.01}, {"clip_norm", 0.0}, {"weight_decay", 0.0}};
  if (name == "momentum" || name == "nag")
    return {{"lr", 0.01}, {"momentum", 0.9}, {"preset", ""}, {"clip_norm", 0.0}, {"weight_decay", 0.0}};
  if (name == "rmsprop")
    return {{"lr", 1e-3}, {"decay", 0.9}, {"eps", 1e-8}, {"momentum", 0.0}, {"clip_norm", 0.0}, {"weight_decay", 0.0}};
  if (name == "adam")
    return {{"lr", 1e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"clip_norm", 0.0}, {"weight_decay", 0.0}};
  if (name == "lbfgs") return to_json(LbfgsConfig{});
  std::string known;
  for (const auto& n : first_order_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(fmt::format("unknown optimizer '{}' (known: {})", name, known));
}

}  // namespace

nlohmann::json to_json(const StepStats& s) {
  nlohmann::json j = {{"loss", s.loss}, {"grad_norm", s.grad_norm}, {"clipped", s.clipped}, {"lr", s.lr},
                      {"momentum", s.momentum}, {"update_norm", s.update_norm}, {"skipped", s.skipped},
                      {"skip_reason", s.skip_reason}, {"sequences", s.sequences}};
  if (s.evaluations > 0) {  // L-BFGS
    j["new_loss"] = s.new_loss;
    j["step_size"] = s.step_size;
    j["evaluations"] = s.evaluations;
  }
  return j;
}

const std::vector<std::string>& first_order_names() {
  static const std::vector<std::string> names{"sgd", "momentum", "nag", "rmsprop", "adam", "lbfgs"};
  return names;
}

nlohmann::json first_order_defaults(const std::string& name) { return defaults_of(name); }

std::unique_ptr<FirstOrder> make_first_order(const std::string& name, const nlohmann::json& options) {
  const nlohmann::json defaults = defaults_of(name);
  nlohmann::json c = merge_options(name, defaults, options);
  if (c.contains("preset")) {
    const std::string preset = OptionReader(name, c).string("preset");
    if (!preset.empty()) {
      const SchedulePreset& p = find_schedule_preset(preset);
      const bool user_lr = options.is_object() && options.contains("lr");
      const bool user_mu = options.is_object() && options.contains("momentum");
      if (p.lr && !user_lr) c["lr"] = p.lr->to_json();
      if (!user_mu) c["momentum"] = p.momentum.to_json();
    }
  }
  if (name == "sgd") return std::make_unique<Sgd>(c);
  if (name == "momentum") return std::make_unique<Momentum>(c, false);
  if (name == "nag") return std::make_unique<Momentum>(c, true);
  if (name == "rmsprop") return std::make_unique<RmsProp>(c);
  if (name == "adam") return std::make_unique<Adam>(c);
  return std::make_unique<Lbfgs>(lbfgs_config_from_json(c));
}

}  // namespace tg::optim
