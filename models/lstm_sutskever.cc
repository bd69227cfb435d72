#include "models/lstm_sutskever.h"

#include "models/cell_model.h"
#include "models/lstm.h"

namespace tg::models {

SutskeverLstmCell::SutskeverLstmCell(ParamBuilder& p, InputShape in, const SutskeverLstmOptions& o)
    : hidden_(o.hidden), cells_(o.cells) {
  const int64_t H = o.hidden, N = o.cells;
  w_hx_ = p.input("W_hx", in.size, H);
  w_hh_ = p.recurrent("W_hh", H, H);
  w_hm_ = p.weight("W_hm", N, H);
  w_gx_ = p.input("W_gx", in.size, 4 * N, 4);
  w_gh_ = p.weight("W_gh", H, 4 * N, 4);
  w_gm_ = p.weight("W_gm", N, 4 * N, 4);
  if (o.bias) {
    b_h_ = p.add("b_h", {H}, init::zeros());
    b_g_ = p.add("b_g", {4 * N}, lstm_bias_init(LstmVariant{}, N, o.forget_bias));
  } else {
    b_f_ = p.add("b_f", {N}, init::constant(o.forget_bias));
  }
  init_ = InitialState(p, {{"h0", H}, {"m0", N}, {"m_gated0", N}}, o.learned_h0);
}

Step SutskeverLstmCell::step(Graph& g, const StepInput& x, const State& s) const {
  const Var &h_prev = s[0], &m_prev = s[1], &m_gated_prev = s[2];
  Var u = project(g, x, w_hx_) + ops::matmul(h_prev, g[w_hh_]) + ops::matmul(m_gated_prev, g[w_hm_]);
  if (b_h_.index >= 0) u = u + g[b_h_];
  Var h = ops::tanh(u);
  Var a = project(g, x, w_gx_) + ops::matmul(h, g[w_gh_]) + ops::matmul(m_gated_prev, g[w_gm_]);
  if (b_g_.index >= 0) a = a + g[b_g_];
  std::vector<Var> gate = ops::split(a, 1, 4);  // [i, f, o, g]
  Var f_pre = b_f_.index >= 0 ? gate[1] + g[b_f_] : gate[1];
  Var m = m_prev * ops::logistic(f_pre) + ops::tanh(gate[3]) * ops::logistic(gate[0]);
  Var m_gated = m * ops::logistic(gate[2]);
  return {{h, m, m_gated}, u};
}

Var SutskeverLstmCell::readout(const State& s) const {
  Var parts[] = {s[0], s[2]};
  return ops::concat(parts, 1);
}

ModelInfo lstm_sutskever_info() {
  return cell_model_info(
      "lstm_sutskever", "Sutskever's LSTM: a tanh layer feeds the gates; the output reads h and the gated memory",
      "000", {{"hidden", 100}, {"cells", 100}, {"bias", false}, {"forget_bias", 3.0}}, true,
      [](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
        SutskeverLstmOptions l{o.size("hidden"), o.size("cells"), o.flag("bias"), o.number("forget_bias"),
                               c.learned_h0};
        return std::make_unique<SutskeverLstmCell>(p, c.input(), l);
      });
}

}  // namespace tg::models
