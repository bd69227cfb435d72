#include "models/tensor_rnn.h"

#include "models/cell_model.h"

namespace tg::models {

TensorRnnCell::TensorRnnCell(ParamBuilder& p, InputShape in, const TensorRnnOptions& o) : hidden_(o.hidden) {
  w_hx_ = p.input("W_hx", in.size, o.hidden);
  w_hh_ = p.add("W_hh", {in.size, o.hidden * o.hidden}, init::per_row_square(o.hidden, p.recurrent_init()));
  if (o.bias) b_h_ = p.add("b_h", {o.hidden}, init::zeros());
  h0_ = InitialState(p, {{"h0", o.hidden}}, o.learned_h0);
}

Step TensorRnnCell::step(Graph& g, const StepInput& x, const State& s) const {
  const int64_t B = s[0].shape()[0], H = hidden_;
  Var w = ops::reshape(project(g, x, w_hh_), {B, H, H});                 // W_hh^(x_b) per sequence
  Var hw = ops::sum(ops::reshape(s[0], {B, H, 1}) * w, 1);               // h_{t-1} W_hh^(x_b): [B, H]
  Var u = project(g, x, w_hx_) + hw;
  if (b_h_.index >= 0) u = u + g[b_h_];
  return {{ops::tanh(u)}, u};
}

ModelInfo tensor_rnn_info() {
  return cell_model_info("tensor_rnn", "tensor RNN: one recurrent matrix per input symbol (small vocabularies)", "000",
                         {{"vocab", 10}, {"hidden", 30}, {"bias", true}}, true,
                         [](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
                           TensorRnnOptions t{o.size("hidden"), o.flag("bias"), c.learned_h0};
                           return std::make_unique<TensorRnnCell>(p, c.input(), t);
                         });
}

}  // namespace tg::models
