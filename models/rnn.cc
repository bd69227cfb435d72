#include "models/rnn.h"

#include <fmt/format.h>

#include "models/cell_model.h"

namespace tg::models {

RnnCell::RnnCell(ParamBuilder& p, InputShape in, const RnnOptions& o) : hidden_(o.hidden), activation_(o.activation) {
  w_hx_ = p.input("W_hx", in.size, o.hidden);
  w_hh_ = p.recurrent("W_hh", o.hidden, o.hidden);
  if (o.bias) b_h_ = p.add("b_h", {o.hidden}, o.bias_scale > 0 ? init::normal(o.bias_scale) : init::zeros());
  h0_ = InitialState(p, {{"h0", o.hidden}}, o.learned_h0);
}

Step RnnCell::step(Graph& g, const StepInput& x, const State& s) const {
  Var u = ops::addmm(project(g, x, w_hx_, b_h_), s[0], g[w_hh_]);
  return {{activate(activation_, u)}, u};
}

std::vector<Step> RnnCell::steps(Graph& g, std::span<const StepInput> x, const State& s) const {
  Var (*scan)(Var, Var, Var, bool, Site) = nullptr;
  switch (activation_) {
    case Activation::tanh: scan = ops::tanh_scan; break;
    case Activation::logistic: scan = ops::logistic_scan; break;
    case Activation::relu: scan = ops::relu_scan; break;
    case Activation::linear: return {};  // no scan of its own: it steps
  }
  if (x.size() < 2) return {};
  const Var u = project_all(g, x, w_hx_, b_h_);
  if (u.empty()) return {};
  const Var hp = scan(u, g[w_hh_], s[0], false, Site::current());
  // [H; P]: step t's h and pre-activation u (the scan's p) are rows of each half
  const int64_t n = static_cast<int64_t>(x.size()), B = s[0].shape()[0];
  std::vector<Step> out;
  out.reserve(x.size());
  for (int64_t t = 0; t < n; ++t)
    out.push_back({{ops::slice(hp, 0, t * B, (t + 1) * B)}, ops::slice(hp, 0, (n + t) * B, (n + t + 1) * B)});
  return out;
}

ModelInfo rnn_info() {
  return cell_model_info(
      "rnn", "standard RNN: tanh / logistic / ReLU hidden units, optional hidden bias, zero or learned h0",
      "000, 001, 002, 004", {{"hidden", 100}, {"activation", "tanh"}, {"bias", true}, {"bias_scale", 0.0}}, true,
      [](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
        RnnOptions r{o.size("hidden"), read_activation(o, "activation"), o.flag("bias"), c.learned_h0,
                     o.number("bias_scale")};
        if (r.bias_scale < 0) o.fail(fmt::format("option 'bias_scale' must be >= 0 (got {})", r.bias_scale));
        return std::make_unique<RnnCell>(p, c.input(), r);
      });
}

}  // namespace tg::models
