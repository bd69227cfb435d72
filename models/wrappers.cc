#include "models/wrappers.h"

#include <fmt/format.h>

#include "core/error.h"
#include "models/cell_model.h"
#include "models/gru.h"
#include "models/lstm.h"
#include "models/more_models.h"
#include "models/rnn.h"
#include "models/scrn.h"

namespace tg::models {

const std::vector<std::string>& wrapper_cell_types() {
  static const std::vector<std::string> t = {"rnn", "irnn", "lstm", "gru", "scrn"};
  return t;
}

std::unique_ptr<Cell> make_named_cell(const std::string& type, ParamBuilder& p, InputShape in, int64_t hidden,
                                      bool learned_h0, const OptionReader& o) {
  if (type == "rnn") {
    Activation a = o.has("activation") ? read_activation(o, "activation") : Activation::tanh;
    return std::make_unique<RnnCell>(p, in, RnnOptions{hidden, a, true, learned_h0});
  }
  if (type == "irnn") {  // relu units, identity-initialised recurrence (models/irnn.cc)
    init::InitOptions io = p.options();
    io.recurrent = "identity";
    io.spectral_radius = 0;
    ParamBuilder q(p.params(), p.scope(), io, p.rng());
    return std::make_unique<RnnCell>(q, in, RnnOptions{hidden, Activation::relu, true, learned_h0});
  }
  if (type == "lstm") {
    LstmOptions l;
    l.hidden = hidden;
    l.learned_h0 = learned_h0;
    if (o.has("forget_bias")) l.forget_bias = o.number("forget_bias");
    return std::make_unique<LstmCell>(p, in, l);
  }
  if (type == "gru") return std::make_unique<GruCell>(p, in, GruOptions{hidden, true, learned_h0, Activation::tanh});
  if (type == "scrn") {
    ScrnOptions s;
    s.hidden = hidden;
    s.context = o.has("context") && o.count("context") > 0 ? o.count("context") : std::max<int64_t>(1, hidden / 4);
    if (o.has("alpha")) s.alpha = o.number("alpha");
    s.learned_h0 = learned_h0;
    return std::make_unique<ScrnCell>(p, in, s);
  }
  std::string known;
  for (const std::string& t : wrapper_cell_types()) known += (known.empty() ? "" : ", ") + t;
  o.fail(fmt::format("cell '{}' is not one of {}", type, known));
}

DirectionPass run_direction(Graph& g, const Cell& cell, const std::vector<StepInput>& x, const Sequence& xs,
                            bool forward, const std::string& scope) {
  DirectionPass p{std::vector<Var>(static_cast<size_t>(xs.T)), std::vector<Var>(static_cast<size_t>(xs.T))};
  State s = cell.initial(g, xs.B);
  for (int64_t k = 0; k < xs.T; ++k) {
    const int64_t t = forward ? k : xs.T - 1 - k;
    ScopeGuard guard(g, scope, static_cast<long>(t));
    const Step st = cell.step(g, x[t], s);
    s = xs.mask.empty() ? st.state : carry_over(g, st.state, s, xs.mask[t]);
    p.readout[t] = cell.readout(s);
    p.preact[t] = st.preact;
  }
  return p;
}

// ---- StackedCell ----------------------------------------------------------------------------------

StackedCell::StackedCell(const std::string& type, ParamBuilder& p, InputShape in, const std::vector<int64_t>& sizes,
                         bool learned_h0, bool readout_all, const OptionReader& o)
    : readout_all_(readout_all) {
  if (sizes.empty()) o.fail("a stack needs at least one layer");
  InputShape x = in;
  for (size_t l = 0; l < sizes.size(); ++l) {
    ParamBuilder pl = p.scoped(fmt::format("l{}", l + 1));
    layers_.push_back(make_named_cell(type, pl, x, sizes[l], learned_h0, o));
    x = InputShape{layers_.back()->readout_size(), false};
  }
  // The state layout: how many parts each layer's state has (LSTM 2, SCRN 2, RNN and GRU 1).
  Graph scratch;
  scratch.bind(p.params());
  offset_.push_back(0);
  for (const auto& c : layers_) offset_.push_back(offset_.back() + c->initial(scratch, 1).size());
}

State StackedCell::initial(Graph& g, int64_t batch) const {
  State s;
  for (const auto& c : layers_) {
    State part = c->initial(g, batch);
    s.insert(s.end(), part.begin(), part.end());
  }
  return s;
}

State StackedCell::part(const State& s, size_t l) const {
  TG_ASSERT(offset_.size() == layers_.size() + 1 && s.size() == offset_.back(), "stacked state of {} parts", s.size());
  return State(s.begin() + static_cast<long>(offset_[l]), s.begin() + static_cast<long>(offset_[l + 1]));
}

Step StackedCell::step(Graph& g, const StepInput& x, const State& s) const {
  State next;
  std::vector<Var> pre;
  StepInput in = x;
  for (size_t l = 0; l < layers_.size(); ++l) {
    ScopeGuard scope(g, fmt::format("l{}", l + 1));
    Step st = layers_[l]->step(g, in, part(s, l));
    next.insert(next.end(), st.state.begin(), st.state.end());
    pre.push_back(st.preact);
    in = StepInput();
    in.dense = layers_[l]->readout(st.state);
  }
  return {next, pre.size() == 1 ? pre[0] : ops::concat(pre, 1)};
}

Var StackedCell::readout(const State& s) const {
  if (!readout_all_) return layers_.back()->readout(part(s, layers_.size() - 1));
  std::vector<Var> r;
  for (size_t l = 0; l < layers_.size(); ++l) r.push_back(layers_[l]->readout(part(s, l)));
  return r.size() == 1 ? r[0] : ops::concat(r, 1);
}

int64_t StackedCell::readout_size() const {
  if (!readout_all_) return layers_.back()->readout_size();
  int64_t n = 0;
  for (const auto& c : layers_) n += c->readout_size();
  return n;
}

// ---- Bidirectional ------------------------------------------------------------------------------

namespace {

nlohmann::json wrapper_defaults() {
  return {{"cell", "lstm"}, {"layers", {100}}, {"readout", "top"}, {"activation", "tanh"},
          {"forget_bias", 1.0}, {"context", 0}, {"alpha", 0.95}};
}

std::unique_ptr<Cell> make_stack(ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
  return std::make_unique<StackedCell>(o.choice("cell", {"rnn", "irnn", "lstm", "gru", "scrn"}), p, c.input(),
                                       o.sizes("layers"), c.learned_h0,
                                       o.choice("readout", {"top", "all"}) == "all", o);
}

class Bidirectional final : public Model {
 public:
  Bidirectional(const nlohmann::json& cfg, DType dt, Rng& rng) : Model(dt), kind_("bidirectional") {
    OptionReader o(fmt::format("model '{}'", kind_), cfg);
    CommonOptions c = CommonOptions::read(o);
    io_ = c.io;
    output_ = c.output;
    ParamBuilder p(params_, kind_, c.init, rng);
    ParamBuilder pf = p.scoped("fwd"), pb = p.scoped("bwd");
    fwd_ = make_stack(pf, c, o);
    bwd_ = make_stack(pb, c, o);
    head_ = OutputLayer(p, fwd_->readout_size() + bwd_->readout_size(), c.io.out, c.output_bias);
  }
  const std::string& kind() const override { return kind_; }
  OutputKind output_kind() const override { return output_; }

  Outputs unroll(Graph& g, const Sequence& xs) const override {
    check_sequence(xs, io_, kind_);
    g.bind(params_);
    const std::vector<StepInput> x = step_inputs(g, xs, 0, xs.T, params_.dtype());
    const DirectionPass f = run_direction(g, *fwd_, x, xs, true, kind_ + "/fwd/t");
    const DirectionPass k = run_direction(g, *bwd_, x, xs, false, kind_ + "/bwd/t");
    std::vector<Var> preact, hidden;
    for (int64_t t = 0; t < xs.T; ++t) {
      ScopeGuard scope(g, kind_ + "/out/t", static_cast<long>(t));
      Var rr[] = {f.readout[t], k.readout[t]}, uu[] = {f.preact[t], k.preact[t]};
      Var h = ops::concat(rr, 1);
      // On a padded step the readout [h_fwd, h_bwd] is carried over as a whole (as every causal
      // model's state is), so padding never changes an output.
      if (t > 0 && !xs.mask.empty()) h = carry_over(g, {h}, {hidden.back()}, xs.mask[t])[0];
      preact.push_back(ops::concat(uu, 1));
      hidden.push_back(h);
    }
    ScopeGuard scope(g, kind_ + "/out");
    Outputs out;
    const std::vector<Var> z = head_.logits_of_steps(g, hidden, "t", 0, Site::current(), &out.logits_all);
    for (size_t t = 0; t < z.size(); ++t) out.record(g, preact[t], hidden[t], z[t]);
    return out;
  }

 private:
  std::string kind_;
  OutputKind output_ = OutputKind::softmax;
  std::unique_ptr<Cell> fwd_, bwd_;
  OutputLayer head_;
};

}  // namespace

void register_wrappers(std::vector<ModelInfo>& r) {
  r.push_back(cell_model_info("stacked",
                              "stacked layers of any cell (rnn, irnn, lstm, gru, scrn): layer l reads layer l-1 at the same step",
                              "002, 004", wrapper_defaults(), true, make_stack));
  ModelInfo bi;
  bi.name = "bidirectional";
  bi.description = "bidirectional wrapper: a forward and a backward cell (or stack); the output reads both";
  bi.seed = "004";
  bi.defaults = cell_model_defaults(wrapper_defaults(), true);
  bi.make = [](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
    return std::make_unique<Bidirectional>(cfg, dt, rng);
  };
  r.push_back(bi);
}

}  // namespace tg::models
