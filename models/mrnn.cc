#include "models/mrnn.h"

#include "models/cell_model.h"

namespace tg::models {

MrnnCell::MrnnCell(ParamBuilder& p, InputShape in, const MrnnOptions& o) : hidden_(o.hidden) {
  const int64_t f = o.factors > 0 ? o.factors : o.hidden;
  w_fx_ = p.input("W_fx", in.size, f);
  w_fh_ = p.weight("W_fh", o.hidden, f);
  w_hf_ = p.weight("W_hf", f, o.hidden);
  w_hx_ = p.input("W_hx", in.size, o.hidden);
  if (o.bias) b_h_ = p.add("b_h", {o.hidden}, init::zeros());
  h0_ = InitialState(p, {{"h0", o.hidden}}, o.learned_h0);
}

Var MrnnCell::preact(Graph& g, const StepInput& x, Var h_prev, Var extra) const {
  Var f = project(g, x, w_fx_) * ops::matmul(h_prev, g[w_fh_]);
  Var u = ops::addmm(project(g, x, w_hx_), f, g[w_hf_]);
  if (b_h_.index >= 0) u = u + g[b_h_];
  return ops::add(u, extra);  // adding an empty Var is a no-op
}

Step MrnnCell::step(Graph& g, const StepInput& x, const State& s) const {
  Var u = preact(g, x, s[0]);
  return {{ops::tanh(u)}, u};
}

ModelInfo mrnn_info() {
  return cell_model_info(
      "mrnn", "multiplicative RNN: input-dependent factored recurrence, factor count configurable", "000, 001",
      {{"hidden", 100}, {"factors", 0}, {"bias", true}}, false,
      [](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
        MrnnOptions m{o.size("hidden"), o.count("factors"), o.flag("bias"), c.learned_h0};
        return std::make_unique<MrnnCell>(p, c.input(), m);
      });
}

}  // namespace tg::models
