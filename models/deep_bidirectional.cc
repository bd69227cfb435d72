// The deep bidirectional network as Graves builds it (Graves, Mohamed & Hinton 2013; Krueger's TIMIT
// models, seed 004 §3.2): at every layer a forward and a backward cell, and layer l + 1 reads both
// directions of layer l at the same step, [h→_t, h←_t] (the `bidirectional` wrapper instead runs two
// separate stacks, each reading only its own direction below). The output layer reads the top layer's
// two directions. On padded steps (trailing padding: variable lengths) every cell carries its state, so
// each backward pass starts at its sequence's last real step from its initial state, and the inputs a
// layer reads at a padded step are carried over too: padding never changes an output. Dropout
// (output_dropout, Krueger's "up the stack only") masks every layer's output on its way up, to the
// next layer or the output layer, never the recurrent path; input_dropout masks the inputs. The
// norm-stabilizer reads every layer's two directions, each its own sequence of norms.
#include <fmt/format.h>

#include "core/error.h"
#include "models/cell_model.h"
#include "models/more_models.h"
#include "models/wrappers.h"

namespace tg::models {

namespace {

// Columns [first, first + width) of a [B, n] dropout mask (n: every layer's units side by side).
Tensor mask_columns(const Tensor& mask, int64_t B, int64_t first, int64_t width) {
  const int64_t n = mask.size() / B;
  if (mask.size() != B * n || first + width > n)
    throw Error(fmt::format("deep_blstm: a dropout mask of {} entries has no columns [{}, {}) for {} sequences",
                            mask.size(), first, first + width, B));
  const std::vector<double> all = mask.to_vector();
  std::vector<double> part(static_cast<size_t>(B * width));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < width; ++j) part[b * width + j] = all[b * n + first + j];
  return Tensor::from({B, width}, part, DType::f64);
}

class DeepBidirectional final : public Model {
 public:
  DeepBidirectional(const nlohmann::json& cfg, DType dt, Rng& rng) : Model(dt), kind_("deep_blstm") {
    OptionReader o(fmt::format("model '{}'", kind_), cfg);
    CommonOptions c = CommonOptions::read(o);
    io_ = c.io;
    output_ = c.output;
    ParamBuilder p(params_, kind_, c.init, rng);
    const std::string type = o.choice("cell", {"rnn", "irnn", "lstm", "gru", "scrn"});
    InputShape in = c.input();
    for (int64_t width : o.sizes("layers")) {
      const size_t l = fwd_.size() + 1;
      ParamBuilder pf = p.scoped(fmt::format("l{}/fwd", l)), pb = p.scoped(fmt::format("l{}/bwd", l));
      fwd_.push_back(make_named_cell(type, pf, in, width, c.learned_h0, o));
      bwd_.push_back(make_named_cell(type, pb, in, width, c.learned_h0, o));
      in = InputShape{fwd_.back()->readout_size() + bwd_.back()->readout_size(), false};
    }
    head_ = OutputLayer(p, in.size, c.io.out, c.output_bias);
  }
  const std::string& kind() const override { return kind_; }
  OutputKind output_kind() const override { return output_; }
  int64_t readout_size() const override { return fwd_.back()->readout_size() + bwd_.back()->readout_size(); }
  bool supports_dropout() const override { return true; }
  int64_t dropout_units() const override {
    int64_t n = 0;
    for (size_t l = 0; l < fwd_.size(); ++l) n += fwd_[l]->readout_size() + bwd_[l]->readout_size();
    return n;
  }

  Outputs unroll(Graph& g, const Sequence& xs) const override {
    check_sequence(xs, io_, kind_);
    g.bind(params_);
    std::vector<StepInput> x = step_inputs(g, xs, 0, xs.T, params_.dtype());
    std::vector<std::vector<Var>> preacts(static_cast<size_t>(xs.T));
    std::vector<Var> top(static_cast<size_t>(xs.T));
    if (!xs.readout_keep.empty() && xs.readout_keep.size() != static_cast<size_t>(xs.T))
      throw Error(fmt::format("model '{}': {} dropout masks for {} steps", kind_, xs.readout_keep.size(), xs.T));
    for (const Tensor& k : xs.readout_keep)
      if (k.size() != xs.B * dropout_units())
        throw Error(fmt::format("model '{}': a dropout mask {} should have {}x{} entries (every layer's units)", kind_,
                                k.shape().str(), xs.B, dropout_units()));
    int64_t mask_column = 0;  // the first column of this layer's units in the dropout masks
    std::vector<std::vector<Var>> states;  // each direction of each layer, for the norm-stabilizer
    for (size_t l = 0; l < fwd_.size(); ++l) {
      const DirectionPass f = run_direction(g, *fwd_[l], x, xs, true, fmt::format("{}/l{}/fwd/t", kind_, l + 1));
      const DirectionPass b = run_direction(g, *bwd_[l], x, xs, false, fmt::format("{}/l{}/bwd/t", kind_, l + 1));
      for (int64_t t = 0; t < xs.T; ++t) {
        const Var both[] = {f.readout[t], b.readout[t]};
        top[t] = ops::concat(both, 1);
        if (!xs.readout_keep.empty())
          top[t] = ops::mul(top[t], g.input(mask_columns(xs.readout_keep[t], xs.B, mask_column, top[t].shape()[1])
                                                .astype(params_.dtype())));
        preacts[t].push_back(f.preact[t]);
        preacts[t].push_back(b.preact[t]);
      }
      if (l + 1 < fwd_.size()) x = stacked_step_inputs(top);  // layer l + 1's input projections: one GEMM per direction
      mask_column += fwd_[l]->readout_size() + bwd_[l]->readout_size();
      states.push_back(f.readout);
      states.push_back(b.readout);
    }
    Outputs out;
    out.layer_states = std::move(states);
    std::vector<Var> preact, hidden;
    for (int64_t t = 0; t < xs.T; ++t) {
      ScopeGuard scope(g, kind_ + "/out/t", static_cast<long>(t));
      Var h = top[t];
      if (t > 0 && !xs.mask.empty()) h = carry_over(g, {h}, {hidden.back()}, xs.mask[t])[0];
      preact.push_back(preacts[t].size() == 1 ? preacts[t][0] : ops::concat(preacts[t], 1));
      hidden.push_back(h);
    }
    ScopeGuard scope(g, kind_ + "/out");
    const std::vector<Var> z = head_.logits_of_steps(g, hidden, "t", 0, Site::current(), &out.logits_all);
    for (size_t t = 0; t < z.size(); ++t) out.record(g, preact[t], hidden[t], z[t]);
    return out;
  }

 private:
  std::string kind_;
  OutputKind output_ = OutputKind::softmax;
  std::vector<std::unique_ptr<Cell>> fwd_, bwd_;  // per layer
  OutputLayer head_;
};

}  // namespace

void register_deep_bidirectional(std::vector<ModelInfo>& r) {
  ModelInfo m;
  m.name = "deep_blstm";
  m.description = "deep bidirectional network as Graves builds it: layer l+1 reads both directions of layer l";
  m.seed = "004";
  m.defaults = cell_model_defaults({{"cell", "lstm"}, {"layers", {250, 250, 250}}, {"activation", "tanh"},
                                    {"forget_bias", 1.0}, {"context", 0}, {"alpha", 0.95}},
                                   true);
  m.make = [](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
    return std::make_unique<DeepBidirectional>(cfg, dt, rng);
  };
  r.push_back(m);
}

}  // namespace tg::models
