#include "models/lstm.h"

#include "core/error.h"
#include "models/cell_model.h"

namespace tg::models {

LstmMemory lstm_memory(const LstmVariant& v, std::span<const Var> a, Var c_prev, Var w_ci, Var w_cf, Var w_co) {
  const size_t G = static_cast<size_t>(v.gates());
  TG_ASSERT(a.size() == G, "{} gate pre-activations for {} gates", a.size(), G);
  Var i = ops::logistic(ops::add(a[0], ops::mul(w_ci, c_prev)));
  Var g = v.tanh_cell_input ? ops::tanh(a[G - 1]) : a[G - 1];
  Var c;
  if (v.forget_gate) {
    Var f = ops::logistic(ops::add(a[1], ops::mul(w_cf, c_prev)));
    c = f * c_prev + i * g;
  } else {
    c = c_prev + i * g;  // the constant error carousel: self-loop of weight 1
  }
  Var o = ops::logistic(ops::add(a[G - 2], ops::mul(w_co, c)));
  switch (v.output) {
    case LstmVariant::Output::gate_times_tanh: return {c, o * ops::tanh(c), c};
    case LstmVariant::Output::tanh_of_gated: {
      Var zeta = c * o;
      return {c, ops::tanh(zeta), zeta};
    }
    case LstmVariant::Output::gate_times_cell: return {c, o * c, c};
  }
  return {};
}

LstmMemory lstm_memory(const LstmVariant& v, Var a, Var c_prev, Var w_ci, Var w_cf, Var w_co) {
  const bool standard = v.forget_gate && v.tanh_cell_input && v.output == LstmVariant::Output::gate_times_tanh &&
                        w_ci.empty() && w_cf.empty() && w_co.empty();
  if (!standard) {
    std::vector<Var> gates = ops::split(a, 1, static_cast<int>(v.gates()));
    return lstm_memory(v, gates, c_prev, w_ci, w_cf, w_co);
  }
  const int64_t B = c_prev.shape()[0];
  Var ch = ops::lstm_cell(a, c_prev);
  Var c = ops::slice(ch, 0, 0, B), h = ops::slice(ch, 0, B, 2 * B);
  return {c, h, c};
}

Init lstm_bias_init(const LstmVariant& v, int64_t hidden, double forget_bias) {
  return [v, hidden, forget_bias](Tensor& b, Rng&) {
    b.fill(0);
    if (!v.forget_gate) return;
    TG_DISPATCH(b.dtype(), T, {
      for (int64_t j = hidden; j < 2 * hidden; ++j) b.data<T>()[j] = static_cast<T>(forget_bias);
    });
  };
}

LstmCell::LstmCell(ParamBuilder& p, InputShape in, const LstmOptions& o)
    : hidden_(o.hidden), variant_(o.variant), truncated_gradient_(o.truncated_gradient) {
  const int64_t H = o.hidden, G = variant_.gates();
  w_gx_ = p.input("W_gx", in.size, G * H, G);
  w_gh_ = p.recurrent("W_gh", H, G * H, G);
  if (o.bias) b_g_ = p.add("b_g", {G * H}, lstm_bias_init(variant_, H, o.forget_bias));
  if (variant_.peepholes) {  // zero at first: the cell starts as a standard LSTM
    w_ci_ = p.add("w_ci", {H}, init::zeros());
    if (variant_.forget_gate) w_cf_ = p.add("w_cf", {H}, init::zeros());
    w_co_ = p.add("w_co", {H}, init::zeros());
  }
  init_ = InitialState(p, {{"h0", H}, {"c0", H}}, o.learned_h0);
}

Step LstmCell::step(Graph& g, const StepInput& x, const State& s) const {
  const Var h_prev = truncated_gradient_ ? ops::stop_gradient(s[0]) : s[0];
  Var a = ops::addmm(project(g, x, w_gx_, b_g_), h_prev, g[w_gh_]);
  auto peep = [&](ParamId w) { return w.index >= 0 ? g[w] : Var{}; };
  LstmMemory m = lstm_memory(variant_, a, s[1], peep(w_ci_), peep(w_cf_), peep(w_co_));
  return {{m.h, m.c}, m.preact};
}

namespace {
ModelInfo lstm_variant_info(std::string name, std::string description, std::string seed, LstmVariant v,
                            nlohmann::json defaults) {
  defaults["truncated_gradient"] = false;  // every variant can train with the original truncated gradient
  return cell_model_info(std::move(name), std::move(description), std::move(seed), defaults, true,
                         [v](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
                           LstmOptions l;
                           l.hidden = o.size("hidden");
                           l.bias = o.flag("bias");
                           if (o.has("forget_bias")) l.forget_bias = o.number("forget_bias");
                           l.truncated_gradient = o.flag("truncated_gradient");
                           l.learned_h0 = c.learned_h0;
                           l.variant = v;
                           return std::make_unique<LstmCell>(p, c.input(), l);
                         });
}
}  // namespace

ModelInfo lstm_info() {
  return lstm_variant_info("lstm", "standard LSTM: forget gate, biases, forget-bias initial value, h = o * tanh(c)",
                           "004", LstmVariant{}, {{"hidden", 100}, {"bias", true}, {"forget_bias", 1.0}});
}

ModelInfo lstm_krause_info() {
  LstmVariant v;
  v.tanh_cell_input = false;
  v.output = LstmVariant::Output::tanh_of_gated;
  return lstm_variant_info("lstm_krause", "Krause's LSTM: linear cell input, h = tanh(c * o), no biases", "001", v,
                           {{"hidden", 100}, {"bias", false}, {"forget_bias", 0.0}, {"output_bias", false}});
}

ModelInfo lstm1997_info() {
  LstmVariant v;
  v.forget_gate = false;
  return lstm_variant_info("lstm1997", "original LSTM (Hochreiter & Schmidhuber 1997): no forget gate, c += i * g",
                           "002", v, {{"hidden", 100}, {"bias", false}});
}

ModelInfo lstm_peephole_info() {
  LstmVariant v;
  v.peepholes = true;
  return lstm_variant_info("lstm_peephole", "Graves' peephole LSTM: gates also read the cell (diagonal weights)",
                           "003", v, {{"hidden", 100}, {"bias", true}, {"forget_bias", 1.0}});
}

ModelInfo lstm_no_output_tanh_info() {
  LstmVariant v;
  v.output = LstmVariant::Output::gate_times_cell;
  return lstm_variant_info("lstm_no_output_tanh", "LSTM without the output tanh: h = o * c", "004", v,
                           {{"hidden", 100}, {"bias", true}, {"forget_bias", 1.0}});
}

}  // namespace tg::models
