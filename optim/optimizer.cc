#include "optim/optimizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/error.h"
#include "optim/first_order.h"
#include "optim/hf.h"

namespace tg::optim {

namespace {
nlohmann::json finite_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// A scalar of a saved state, named in the error when it is missing.
const nlohmann::json& saved(const nlohmann::json& scalars, const char* key, const char* optimizer) {
  if (!scalars.is_object() || !scalars.contains(key))
    throw Error(fmt::format("{}: the saved state has no '{}'", optimizer, key));
  return scalars.at(key);
}

// Hessian-free: a fresh gradient batch every iteration, its first curvature_batch sequences for G v.
class HfOptimizer : public Optimizer {
 public:
  HfOptimizer(const nlohmann::json& options, BatchSizes sizes)
      : hf_(hf_config_from_json(options)),
        batch_(sizes.batch),
        curv_(sizes.curvature_batch > 0 ? sizes.curvature_batch : std::max<int64_t>(1, sizes.batch / 10)) {}

  nlohmann::json step(Objective& obj, ParamVec& theta, const tasks::Dataset& data, Rng& rng, int64_t) override {
    std::unique_ptr<Data> g = data.draw(batch_, rng);  // fresh data every iteration
    obj.draw_noise(*g, rng);  // dropout masks / weight noise: one sample for the whole HF iteration
    std::unique_ptr<Data> c = g->slice(0, std::min(curv_, g->size()));  // a subset of the gradient batch
    HfStats s = hf_.step(obj, theta, *g, *c);
    sequences_ += s.sequences;
    warn_if_rho_stays_undefined(s);
    return {{"loss", s.loss},
            {"new_loss", s.new_loss},
            {"grad_norm", s.grad_norm},
            {"lambda", s.lambda},
            {"mu", s.mu},
            {"rho", finite_or_null(s.rho)},
            {"q", finite_or_null(s.q)},
            {"curv_loss", finite_or_null(s.curv_loss)},
            {"curv_new_loss", finite_or_null(s.curv_new_loss)},
            {"cg_iters", s.cg_iters},
            {"cg_stop", s.cg_stop},
            {"cg_zero_start", s.cg_zero_start},
            {"cg_restart", s.cg_restart},
            {"chosen_iter", s.chosen_iter},
            {"step_size", s.step},
            {"accepted", s.accepted},
            {"minibatches", static_cast<double>(sequences_) / 1000.0}};
  }
  State state() const override {
    State s;
    s.scalars = {{"lambda", hf_.lambda()}, {"mu", hf_.mu()}, {"sequences", sequences_}};
    if (hf_.warm_start().size() > 0) s.vectors.emplace_back("warm_start", hf_.warm_start());
    return s;
  }
  void restore(const State& s) override {
    ParamVec warm;
    for (const auto& [name, vec] : s.vectors) {
      if (name != "warm_start") throw Error(fmt::format("hf: unknown state vector '{}'", name));
      warm = vec;
    }
    std::optional<double> mu;  // absent before adapt_mu: the configured μ
    if (s.scalars.is_object() && s.scalars.contains("mu")) mu = s.scalars.at("mu").get<double>();
    hf_.restore(saved(s.scalars, "lambda", "hf").get<double>(), warm, mu);
    sequences_ = saved(s.scalars, "sequences", "hf").get<int64_t>();
  }

 private:
  // A model value that never gets below q(0) leaves ρ undefined, and λ then only grows (the mRNN char
  // run reached λ = 1e84): say so once, with the option that fixed it there.
  void warn_if_rho_stays_undefined(const HfStats& s) {
    undefined_rho_run_ = s.q < 0 ? 0 : undefined_rho_run_ + 1;
    if (undefined_rho_run_ != kWarnAfter || warned_) return;
    std::fprintf(stderr,
                 "\nhf: warning: CG's model value stayed above q(0) = 0 for %d iterations in a row (rho undefined, "
                 "lambda now %.3g); if the warm start is to blame, set optimizer_options.cg_restart_if_stuck=true\n",
                 kWarnAfter, hf_.lambda());
    warned_ = true;
  }

  HessianFree hf_;
  int64_t batch_, curv_;
  int64_t sequences_ = 0;
  static constexpr int kWarnAfter = 20;
  int undefined_rho_run_ = 0;
  bool warned_ = false;
};

// SGD, momentum, NAG, RMSprop, Adam and L-BFGS: one fresh batch per iteration.
class FirstOrderOptimizer : public Optimizer {
 public:
  FirstOrderOptimizer(const std::string& name, const nlohmann::json& options, BatchSizes sizes)
      : opt_(make_first_order(name, options)), batch_(sizes.batch) {}

  nlohmann::json step(Objective& obj, ParamVec& theta, const tasks::Dataset& data, Rng& rng, int64_t) override {
    std::unique_ptr<Data> b = data.draw(batch_, rng);
    obj.draw_noise(*b, rng);  // fresh dropout masks / weight noise per minibatch
    StepStats s = opt_->step(obj, theta, *b);
    sequences_ += s.sequences;
    nlohmann::json m = to_json(s);
    m["minibatches"] = static_cast<double>(sequences_) / 1000.0;
    return m;
  }
  State state() const override {
    const OptimizerState st = opt_->state();
    State s;
    s.scalars = {{"step", st.step}, {"updates", st.updates}, {"sequences", sequences_}, {"lr_scale", st.lr_scale}};
    s.vectors = st.vectors;
    return s;
  }
  void restore(const State& s) override {
    const std::string& name = opt_->name();
    OptimizerState st;
    st.step = saved(s.scalars, "step", name.c_str()).get<int64_t>();
    st.updates = saved(s.scalars, "updates", name.c_str()).get<int64_t>();
    st.lr_scale = s.scalars.is_object() ? s.scalars.value("lr_scale", 1.0) : 1.0;  // absent before the NaN rule
    st.vectors = s.vectors;
    opt_->restore(st);
    sequences_ = saved(s.scalars, "sequences", name.c_str()).get<int64_t>();
  }
  bool scale_learning_rate(double factor) override {
    opt_->scale_learning_rate(factor);
    return true;
  }

 private:
  std::unique_ptr<FirstOrder> opt_;
  int64_t batch_;
  int64_t sequences_ = 0;
};

bool is_first_order(const std::string& name) {
  const std::vector<std::string>& names = first_order_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string known_names() {
  std::string known;
  for (const std::string& n : optimizer_names()) known += (known.empty() ? "" : ", ") + n;
  return known;
}
}  // namespace

std::vector<std::string> optimizer_names() {
  std::vector<std::string> names = {"hf"};
  for (const std::string& n : first_order_names()) names.push_back(n);
  return names;
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, const nlohmann::json& options, BatchSizes sizes) {
  if (name == "hf") return std::make_unique<HfOptimizer>(options, sizes);
  if (is_first_order(name)) return std::make_unique<FirstOrderOptimizer>(name, options, sizes);
  throw Error(fmt::format("unknown optimizer '{}' (known: {})", name, known_names()));
}

nlohmann::json resolved_options(const std::string& name, const nlohmann::json& options) {
  if (name == "hf") return to_json(hf_config_from_json(options));
  if (is_first_order(name)) return make_first_order(name, options)->config();
  throw Error(fmt::format("unknown optimizer '{}' (known: {})", name, known_names()));
}

}  // namespace tg::optim
