#include "models/output_layer.h"

#include "ops/ops.h"

namespace tg::models {

OutputLayer::OutputLayer(ParamBuilder& p, int64_t in, int64_t out, bool bias) {
  w_oh_ = p.output("W_oh", in, out);
  if (bias) b_o_ = p.add("b_o", {out}, init::zeros());
}

Var OutputLayer::logits(Graph& g, Var readout, Site site) const {
  Var z = ops::matmul(readout, g[w_oh_], false, false, site);
  return b_o_.index >= 0 ? ops::add(z, g[b_o_], site) : z;
}

Var predict(OutputKind kind, Var logits, Site site) {
  switch (kind) {
    case OutputKind::softmax: return ops::softmax(logits, -1, site);
    case OutputKind::logistic: return ops::logistic(logits, site);
    case OutputKind::linear: return logits;
  }
  return logits;
}

OutputKind read_output_kind(const OptionReader& o, const std::string& key) {
  return *tasks::output_kind_named(o.choice(key, {"softmax", "logistic", "linear"}));
}

}  // namespace tg::models
