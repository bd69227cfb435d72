#include "models/mlstm.h"

#include "models/cell_model.h"

namespace tg::models {

MlstmCell::MlstmCell(ParamBuilder& p, InputShape in, const MlstmOptions& o) : hidden_(o.hidden), variant_(o.variant) {
  const int64_t H = o.hidden, F = o.factors > 0 ? o.factors : o.hidden, G = variant_.gates();
  w_mh_ = p.weight("W_mh", H, F);
  w_mx_ = p.input("W_mx", in.size, F);
  w_gx_ = p.input("W_gx", in.size, G * H, G);
  w_gm_ = p.weight("W_gm", F, G * H, G);
  if (o.bias) b_g_ = p.add("b_g", {G * H}, lstm_bias_init(variant_, H, o.forget_bias));
  init_ = InitialState(p, {{"h0", H}, {"c0", H}}, o.learned_h0);
}

Step MlstmCell::step(Graph& g, const StepInput& x, const State& s) const {
  Var m = ops::matmul(s[0], g[w_mh_]) * project(g, x, w_mx_);
  Var a = ops::addmm(project(g, x, w_gx_), m, g[w_gm_]);
  if (b_g_.index >= 0) a = a + g[b_g_];
  LstmMemory mem = lstm_memory(variant_, a, s[1]);
  return {{mem.h, mem.c}, mem.preact};
}

ModelInfo mlstm_info() {
  return cell_model_info(
      "mlstm", "multiplicative LSTM: gates and cell input read x and the factor state (h W_mh) * (x W_mx)", "001",
      {{"hidden", 100},
       {"factors", 0},
       {"bias", false},
       {"forget_bias", 0.0},
       {"output_bias", false},
       {"cell_input", "linear"},
       {"output_gate", "inside"}},
      false, [](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
        MlstmOptions m;
        m.hidden = o.size("hidden");
        m.factors = o.count("factors");
        m.bias = o.flag("bias");
        m.forget_bias = o.number("forget_bias");
        m.learned_h0 = c.learned_h0;
        m.variant.tanh_cell_input = o.choice("cell_input", {"linear", "tanh"}) == "tanh";
        m.variant.output = o.choice("output_gate", {"inside", "outside"}) == "inside"
                               ? LstmVariant::Output::tanh_of_gated
                               : LstmVariant::Output::gate_times_tanh;
        return std::make_unique<MlstmCell>(p, c.input(), m);
      });
}

}  // namespace tg::models
