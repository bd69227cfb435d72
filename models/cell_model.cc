#include "models/cell_model.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::models {

CommonOptions CommonOptions::read(const OptionReader& o) {
  CommonOptions c;
  c.io = read_io_sizes(o);
  c.output = read_output_kind(o, "output");
  c.output_bias = o.flag("output_bias");
  c.learned_h0 = o.flag("learned_h0");
  c.init = init::InitOptions::read(o);
  return c;
}

nlohmann::json cell_model_defaults(const nlohmann::json& own, bool square_recurrent) {
  nlohmann::json d = {{"vocab", 50},         {"in", 0},           {"out", 0},
                      {"output", "softmax"}, {"output_bias", true}, {"learned_h0", false}};
  d.update(init::init_defaults(square_recurrent));
  d.update(own);
  return d;
}

CellModel::CellModel(std::string kind, const nlohmann::json& cfg, DType dt, Rng& rng, const MakeCell& make_cell)
    : Model(dt), kind_(std::move(kind)) {
  OptionReader o(fmt::format("model '{}'", kind_), cfg);
  CommonOptions c = CommonOptions::read(o);
  io_ = c.io;
  output_ = c.output;
  ParamBuilder p(params_, kind_, c.init, rng);
  cell_ = make_cell(p, c, o);
  head_ = OutputLayer(p, cell_->readout_size(), c.io.out, c.output_bias);
}

Outputs CellModel::unroll(Graph& g, const Sequence& xs) const {
  g.bind(params_);
  return unroll_cell(g, *cell_, head_, xs, io_, kind_);
}

Outputs CellModel::unroll_steps(Graph& g, const Sequence& xs, int64_t begin, int64_t end,
                                std::vector<Var>& state) const {
  g.bind(params_);
  return unroll_cell_steps(g, *cell_, head_, xs, io_, kind_, begin, end, state);
}

ModelInfo cell_model_info(std::string name, std::string description, std::string seed,
                          const nlohmann::json& own_defaults, bool square_recurrent, MakeCell make_cell) {
  ModelInfo info;
  info.name = name;
  info.description = std::move(description);
  info.seed = std::move(seed);
  info.defaults = cell_model_defaults(own_defaults, square_recurrent);
  info.make = [name, make_cell](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
    return std::make_unique<CellModel>(name, cfg, dt, rng, make_cell);
  };
  return info;
}

void check_sequence(const Sequence& xs, const IoSizes& io, const std::string& model) {
  auto fail = [&](const std::string& what) { throw Error(fmt::format("model '{}': {}", model, what)); };
  if (xs.T < 1 || xs.B < 1) fail(fmt::format("a batch needs T >= 1 and B >= 1 (got T={} B={})", xs.T, xs.B));
  const size_t T = static_cast<size_t>(xs.T);
  if (io.symbolic()) {
    if (xs.symbols.size() != T) fail(fmt::format("needs {} steps of input symbols, got {}", T, xs.symbols.size()));
    for (size_t t = 0; t < T; ++t) {
      if (!xs.symbols[t] || static_cast<int64_t>(xs.symbols[t]->size()) != xs.B)
        fail(fmt::format("step {} needs {} input symbols", t, xs.B));
      for (int32_t s : *xs.symbols[t])
        if (s < 0 || s >= io.vocab) fail(fmt::format("input symbol {} at step {} is outside [0, {})", s, t, io.vocab));
    }
  } else {
    if (xs.dense.size() != T) fail(fmt::format("needs {} steps of dense inputs, got {}", T, xs.dense.size()));
    for (size_t t = 0; t < T; ++t)
      if (xs.dense[t].shape() != Shape{xs.B, io.in})
        fail(fmt::format("dense input {} at step {} should be [{},{}]", xs.dense[t].shape().str(), t, xs.B, io.in));
  }
  const int64_t per_row = io.symbolic() ? 1 : io.in;
  if (!xs.input_keep.empty() && xs.input_keep.size() != T)
    fail(fmt::format("{} input-dropout masks for {} steps", xs.input_keep.size(), T));
  for (const Tensor& k : xs.input_keep)
    if (k.size() != xs.B * per_row) fail(fmt::format("input-dropout mask {} should have {}x{} entries", k.shape().str(), xs.B, per_row));
  if (!xs.readout_keep.empty() && xs.readout_keep.size() != T)
    fail(fmt::format("{} output-dropout masks for {} steps", xs.readout_keep.size(), T));
  if (!xs.mask.empty()) {
    if (xs.mask.size() != T) fail(fmt::format("{} input masks for {} steps", xs.mask.size(), T));
    for (size_t t = 0; t < T; ++t)
      if (xs.mask[t].size() != xs.B)
        fail(fmt::format("input mask {} at step {} should be [{}]", xs.mask[t].shape().str(), t, xs.B));
  }
}

Outputs unroll_cell(Graph& g, const Cell& cell, const OutputLayer& head, const Sequence& xs, const IoSizes& io,
                    const std::string& scope) {
  State s;
  return unroll_cell_steps(g, cell, head, xs, io, scope, 0, xs.T, s);
}

Outputs unroll_cell_steps(Graph& g, const Cell& cell, const OutputLayer& head, const Sequence& xs, const IoSizes& io,
                          const std::string& scope, int64_t begin, int64_t end, State& s) {
  check_sequence(xs, io, scope);
  if (!g.params()) throw Error(fmt::format("model '{}': unroll needs the model's parameters bound (g.bind)", scope));
  if (begin < 0 || end > xs.T || begin >= end)
    throw Error(fmt::format("model '{}': steps [{}, {}) of a {}-step batch", scope, begin, end, xs.T));
  const DType dt = g.params()->dtype();
  Outputs out;
  if (s.empty()) s = cell.initial(g, xs.B);
  out.initial = cell.readout(s);  // the state before step `begin` (h_0 for a whole unroll)
  out.initial_memory = cell.memory(s);
  auto keep = [&](const std::vector<Tensor>& k, int64_t t, Shape shape) {
    return g.input(k[static_cast<size_t>(t)].astype(dt).clone().reshaped(shape));
  };
  const std::vector<StepInput> x = step_inputs(g, xs, begin, end, dt);
  std::vector<Var> preact, hidden, reads;  // per step: what Outputs records, what the output layer reads
  // the whole recurrence as one node where the graph allows it and the cell has one (a padded step must
  // carry the state over)
  const bool fuse = g.options().fuse_recurrences && xs.mask.empty();
  const std::vector<Step> fused = fuse ? cell.steps(g, x, s) : std::vector<Step>{};
  for (int64_t t = begin; t < end; ++t) {
    ScopeGuard step_scope(g, scope + "/t", static_cast<long>(t));
    Step next = fused.empty() ? cell.step(g, x[static_cast<size_t>(t - begin)], s) : fused[static_cast<size_t>(t - begin)];
    s = xs.mask.empty() ? next.state : carry_over(g, next.state, s, xs.mask[t]);
    Var h = cell.readout(s);
    preact.push_back(next.preact);
    hidden.push_back(h);
    if (Var c = cell.memory(s); !c.empty()) out.memory.push_back(c);
    // dropout on the output layer's input only: the state itself (the recurrent path) is untouched
    reads.push_back(xs.readout_keep.empty() ? h : ops::mul(h, keep(xs.readout_keep, t, h.shape())));
  }
  const std::vector<Var> z = head.logits_of_steps(g, reads, scope + "/t", begin, Site::current(), &out.logits_all);
  for (size_t i = 0; i < z.size(); ++i) out.record(g, preact[i], hidden[i], z[i]);
  return out;
}

}  // namespace tg::models
