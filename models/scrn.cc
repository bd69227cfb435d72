#include "models/scrn.h"

#include <cmath>

#include "core/error.h"
#include "models/cell_model.h"
#include "models/more_models.h"

namespace tg::models {

ScrnCell::ScrnCell(ParamBuilder& p, InputShape in, const ScrnOptions& o) : o_(o) {
  B_ = p.input("B", in.size, o.context);
  A_ = p.input("A", in.size, o.hidden);
  R_ = p.recurrent("R", o.hidden, o.hidden);
  P_ = p.weight("P", o.context, o.hidden);
  if (o.bias) b_h_ = p.add("b_h", {o.hidden}, init::zeros());
  if (o.learned_alpha) beta_ = p.add("beta", {o.context}, init::constant(std::log(o.alpha / (1 - o.alpha))));
  init_ = InitialState(p, {{"h0", o.hidden}, {"s0", o.context}}, o.learned_h0);
}

Step ScrnCell::step(Graph& g, const StepInput& x, const State& st) const {
  const Var& h = st[0];
  const Var& s = st[1];
  Var xB = project(g, x, B_);
  Var s_new;
  if (beta_.index >= 0) {
    Var q = ops::logistic(g[beta_]);  // [S]: per-unit retention
    s_new = (1.0 - q) * xB + q * s;
  } else {
    s_new = (1 - o_.alpha) * xB + o_.alpha * s;
  }
  Var u = ops::matmul(s_new, g[P_]) + project(g, x, A_) + ops::matmul(h, g[R_]);
  if (b_h_.index >= 0) u = u + g[b_h_];
  return {{activate(o_.activation, u), s_new}, u};
}

Var ScrnCell::readout(const State& s) const {
  Var hs[] = {s[0], s[1]};
  return ops::concat(hs, 1);
}

namespace {
ModelInfo scrn_info(const std::string& name, bool learned) {
  return cell_model_info(
      name,
      learned ? "SCRN with a learned time scale per context unit: s = (1-q)⊙xB + q⊙s, q = logistic(beta)"
              : "SCRN: linear context units s = (1-alpha) xB + alpha s (alpha fixed) beside a sigmoid hidden layer",
      "002", {{"hidden", 100}, {"context", 40}, {"alpha", 0.95}, {"activation", "logistic"}, {"bias", true}}, true,
      [learned](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
        ScrnOptions s{o.size("hidden"), o.size("context"), o.number("alpha"), learned,
                      read_activation(o, "activation"), o.flag("bias"), c.learned_h0};
        if (!(s.alpha > 0 && s.alpha < 1)) o.fail("option 'alpha' must lie in (0, 1)");
        return std::make_unique<ScrnCell>(p, c.input(), s);
      });
}
}  // namespace

void register_scrn(std::vector<ModelInfo>& r) {
  r.push_back(scrn_info("scrn", false));
  r.push_back(scrn_info("scrn_learned", true));
}

}  // namespace tg::models
