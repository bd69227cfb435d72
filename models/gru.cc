#include "models/gru.h"

#include "models/cell_model.h"

namespace tg::models {

GruCell::GruCell(ParamBuilder& p, InputShape in, const GruOptions& o) : hidden_(o.hidden), candidate_(o.candidate) {
  const int64_t H = o.hidden;
  w_gx_ = p.input("W_gx", in.size, 3 * H, 3);
  w_gh_ = p.recurrent("W_gh", H, 2 * H, 2);
  w_hh_ = p.recurrent("W_hh", H, H);
  if (o.bias) b_g_ = p.add("b_g", {3 * H}, init::zeros());
  h0_ = InitialState(p, {{"h0", H}}, o.learned_h0);
}

Step GruCell::step(Graph& g, const StepInput& x, const State& s) const {
  const Var& h = s[0];
  Var ax = project(g, x, w_gx_, b_g_);
  std::vector<Var> xs = ops::split(ax, 1, 3);                       // [z, r, candidate]
  std::vector<Var> hs = ops::split(ops::matmul(h, g[w_gh_]), 1, 2);  // [z, r]
  Var a_z = xs[0] + hs[0];
  Var r = ops::logistic(xs[1] + hs[1]);
  Var u = ops::addmm(xs[2], r * h, g[w_hh_]);
  if (candidate_ == Activation::tanh) return {{ops::gru_update(a_z, u, h)}, u};  // fused: one node, not seven
  Var z = ops::logistic(a_z);
  return {{z * h + (1.0 - z) * activate(candidate_, u)}, u};
}

ModelInfo gru_info() {
  return cell_model_info("gru", "GRU (Cho et al. 2014): update and reset gates, h = z * h + (1 - z) * tanh(u)",
                         "002, 004", {{"hidden", 100}, {"bias", true}, {"candidate", "tanh"}}, true,
                         [](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
                           GruOptions r;
                           r.hidden = o.size("hidden");
                           r.bias = o.flag("bias");
                           r.learned_h0 = c.learned_h0;
                           r.candidate = o.choice("candidate", {"tanh", "logistic"}) == "tanh" ? Activation::tanh
                                                                                               : Activation::logistic;
                           return std::make_unique<GruCell>(p, c.input(), r);
                         });
}

}  // namespace tg::models
