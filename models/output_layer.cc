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

std::vector<Var> OutputLayer::logits_of_steps(Graph& g, std::span<const Var> readouts, const std::string& step_scope,
                                               int64_t first, Site site, Var* all_out) const {
  if (all_out) *all_out = Var{};
  if (readouts.empty()) return {};
  if (readouts.size() == 1) {
    ScopeGuard scope(g, step_scope, static_cast<long>(first));
    return {logits(g, readouts[0], site)};
  }
  const int64_t B = readouts[0].shape()[0];
  // A fused recurrence's states (ops/scan.cc) are read as the block they are, not copied back together: in
  // such a graph nothing takes adjoints at per-step states (GraphOptions::fuse_recurrences)
  Var rows = g.options().fuse_recurrences ? ops::rejoined_slices(readouts, 0, site) : Var();
  if (rows.empty()) rows = ops::concat(readouts, 0, site);
  const Var all = logits(g, rows, site);
  if (all_out) *all_out = all;
  std::vector<Var> z;
  z.reserve(readouts.size());
  for (size_t i = 0; i < readouts.size(); ++i) {
    ScopeGuard scope(g, step_scope, static_cast<long>(first + static_cast<int64_t>(i)));
    const int64_t r = static_cast<int64_t>(i) * B;
    z.push_back(ops::slice(all, 0, r, r + B, site));
  }
  return z;
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
