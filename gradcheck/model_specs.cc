#include "gradcheck/model_specs.h"

#include <random>

#include "core/ad.h"
#include "ops/ops.h"

namespace tg::check {

const std::vector<ModelSpec>& model_specs() {
  // Tiny sizes: vocabulary 5, 3 hidden units; options chosen so every parameter kind exists.
  static const std::vector<ModelSpec> specs = {
      {"rnn", "rnn", {{"vocab", 5}, {"hidden", 3}, {"learned_h0", true}}},
      {"rnn/relu", "rnn", {{"vocab", 5}, {"hidden", 3}, {"activation", "relu"}, {"output_bias", false}}},
      {"rnn/dense-logistic", "rnn",
       {{"vocab", 0}, {"in", 4}, {"out", 3}, {"hidden", 3}, {"activation", "logistic"}, {"output", "logistic"}}},
      {"mrnn", "mrnn", {{"vocab", 5}, {"hidden", 3}, {"factors", 4}, {"learned_h0", true}}},
      {"mrnn/dense-linear", "mrnn",
       {{"vocab", 0}, {"in", 4}, {"out", 2}, {"hidden", 3}, {"bias", false}, {"output", "linear"}}},
      {"tensor_rnn", "tensor_rnn", {{"vocab", 4}, {"hidden", 3}, {"learned_h0", true}}},
      {"stacked_mrnn", "stacked_mrnn", {{"vocab", 5}, {"layers", {3, 2}}, {"factors", {2, 3}}, {"learned_h0", true}}},
      {"lstm", "lstm", {{"vocab", 5}, {"hidden", 3}, {"learned_h0", true}}},
      {"lstm/dense-linear", "lstm", {{"vocab", 0}, {"in", 4}, {"out", 2}, {"hidden", 3}, {"output", "linear"}}},
      {"lstm_sutskever", "lstm_sutskever", {{"vocab", 5}, {"hidden", 3}, {"cells", 2}, {"learned_h0", true}}},
      {"lstm_sutskever/bias", "lstm_sutskever", {{"vocab", 5}, {"hidden", 2}, {"cells", 3}, {"bias", true}}},
      {"lstm_krause", "lstm_krause", {{"vocab", 5}, {"hidden", 3}}},
      {"lstm1997", "lstm1997", {{"vocab", 5}, {"hidden", 3}, {"bias", true}, {"learned_h0", true}}},
      {"lstm_peephole", "lstm_peephole", {{"vocab", 5}, {"hidden", 3}, {"learned_h0", true}}},
      {"lstm_no_output_tanh", "lstm_no_output_tanh", {{"vocab", 5}, {"hidden", 3}}},
      {"mlstm", "mlstm", {{"vocab", 5}, {"hidden", 3}, {"factors", 4}, {"learned_h0", true}}},
      {"mlstm/tanh-outside-bias", "mlstm",
       {{"vocab", 5}, {"hidden", 3}, {"cell_input", "tanh"}, {"output_gate", "outside"}, {"bias", true},
        {"output", "logistic"}, {"out", 3}}},
      {"gru", "gru", {{"vocab", 5}, {"hidden", 3}, {"learned_h0", true}}},
      {"gru/dense-logistic-candidate", "gru",
       {{"vocab", 0}, {"in", 4}, {"out", 2}, {"hidden", 3}, {"candidate", "logistic"}, {"output", "linear"}}},
      // ---- part B (models/register_more.cc) ----
      {"scrn", "scrn", {{"vocab", 5}, {"hidden", 3}, {"context", 2}, {"learned_h0", true}}},
      {"scrn/tanh-dense-logistic", "scrn",
       {{"vocab", 0}, {"in", 4}, {"out", 2}, {"hidden", 3}, {"context", 2}, {"activation", "tanh"}, {"output", "logistic"}}},
      {"scrn_learned", "scrn_learned", {{"vocab", 5}, {"hidden", 3}, {"context", 2}, {"learned_h0", true}}},
      {"esn", "esn", {{"vocab", 5}, {"in", 0}, {"out", 0}, {"reservoir", 4}, {"degree", 2}, {"output", "softmax"},
                      {"learned_h0", true}}},
      {"esn/dense-linear", "esn", {{"vocab", 0}, {"in", 3}, {"out", 2}, {"reservoir", 4}, {"degree", 2}, {"bias_scale", 0.3}}},
      {"irnn", "irnn", {{"vocab", 5}, {"hidden", 3}, {"learned_h0", true}}},
      {"irnn_zero_bias", "irnn_zero_bias", {{"vocab", 0}, {"in", 4}, {"out", 2}, {"hidden", 3}, {"output", "linear"}}},
      {"glnn", "glnn", {{"vocab", 5}, {"units", 4}, {"degree", 2}, {"init", "normal"}}},
      {"glnn/full-dense", "glnn", {{"vocab", 0}, {"in", 3}, {"out", 3}, {"units", 3}, {"graph", "full"}}},
      {"glnn/in-degree-zero-state", "glnn", {{"vocab", 5}, {"units", 4}, {"degree", 2}, {"graph", "in"}, {"learned_h0", false}}},
      {"gnn", "gnn", {{"vocab", 5}, {"units", 4}, {"degree", 2}}},
      {"ollivier_rnn", "ollivier_rnn", {{"vocab", 5}, {"units", 4}, {"degree", 2}}},
      {"gated_feedback", "gated_feedback", {{"vocab", 5}, {"layers", {3, 2}}, {"learned_h0", true}}},
      {"gated_feedback/lstm", "gated_feedback", {{"vocab", 5}, {"cell", "lstm"}, {"layers", {2, 3}}, {"learned_h0", true}}},
      {"gated_feedback/gru-dense-all", "gated_feedback",
       {{"vocab", 0}, {"in", 3}, {"out", 2}, {"cell", "gru"}, {"layers", {2, 2}}, {"readout", "all"}, {"output", "linear"}}},
      {"stacked", "stacked", {{"vocab", 5}, {"cell", "lstm"}, {"layers", {3, 2}}, {"learned_h0", true}}},
      {"stacked/scrn-all", "stacked", {{"vocab", 5}, {"cell", "scrn"}, {"layers", {3, 2}}, {"context", 2}, {"readout", "all"}}},
      {"stacked/irnn-dense", "stacked",
       {{"vocab", 0}, {"in", 3}, {"out", 2}, {"cell", "irnn"}, {"layers", {3, 3}}, {"output", "linear"}}},
      {"bidirectional", "bidirectional", {{"vocab", 5}, {"cell", "gru"}, {"layers", {3}}, {"learned_h0", true}}},
      {"bidirectional/stacked-rnn", "bidirectional",
       {{"vocab", 0}, {"in", 3}, {"out", 2}, {"cell", "rnn"}, {"layers", {3, 2}}, {"output", "logistic"}}},
      {"deep_blstm", "deep_blstm", {{"vocab", 5}, {"layers", {3, 2}}, {"learned_h0", true}}},
      {"deep_blstm/3-layer-dense", "deep_blstm",
       {{"vocab", 0}, {"in", 3}, {"out", 4}, {"layers", {2, 3, 2}}, {"output", "softmax"}}},
      {"deep_blstm/gru-linear", "deep_blstm",
       {{"vocab", 0}, {"in", 3}, {"out", 2}, {"cell", "gru"}, {"layers", {3, 2}}, {"output", "linear"}}},
  };
  return specs;
}

std::unique_ptr<models::Model> make_model(const ModelSpec& spec, uint64_t seed) {
  const models::ModelInfo& info = models::find(spec.model);
  Rng rng(seed);
  std::unique_ptr<models::Model> m = info.make(models::resolve(info, spec.options), DType::f64, rng);
  std::uniform_real_distribution<double> u(spec.lo, spec.hi);
  double* p = m->params().values().flat().data<double>();
  for (int64_t i = 0; i < m->params().numel(); ++i) p[i] = u(rng);
  return m;
}

TinyBatch tiny_batch(const models::Model& m, int64_t T, int64_t B, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unit(0, 1);
  const models::IoSizes& io = m.io();
  auto symbols = [&](int64_t n) {
    std::vector<int32_t> s(B);
    for (int32_t& v : s) v = static_cast<int32_t>(std::uniform_int_distribution<int64_t>(0, n - 1)(rng));
    return ops::make_index(std::move(s));
  };
  auto dense = [&](int64_t n, bool probabilities) {
    Tensor x = Tensor::empty({B, n}, DType::f64);
    for (int64_t i = 0; i < x.size(); ++i) x.data<double>()[i] = probabilities ? unit(rng) : normal(rng);
    return x;
  };
  TinyBatch b;
  b.xs.T = T;
  b.xs.B = B;
  for (int64_t t = 0; t < T; ++t) {
    if (io.symbolic())
      b.xs.symbols.push_back(symbols(io.vocab));
    else
      b.xs.dense.push_back(dense(io.in, false));
    if (m.output_kind() == models::OutputKind::softmax)
      b.ys.symbols.push_back(symbols(io.out));
    else
      b.ys.dense.push_back(dense(io.out, m.output_kind() == models::OutputKind::logistic));
    Tensor in_mask = Tensor::full({B}, 1.0, DType::f64), loss_mask = Tensor::full({B}, t == 0 ? 0.0 : 1.0, DType::f64);
    if (t == T - 1 && B > 1) {  // the last sequence is one step shorter
      in_mask.data<double>()[B - 1] = 0;
      loss_mask.data<double>()[B - 1] = 0;
    }
    b.xs.mask.push_back(in_mask);
    b.ys.mask.push_back(loss_mask);
  }
  return b;
}

Fn model_loss_fn(const models::Model& m, const TinyBatch& batch) {
  return [&m, &batch](Graph& g, std::span<const Var> theta) {
    g.bind(m.params(), theta);
    models::Outputs out = m.unroll(g, batch.xs);
    Var loss = models::matching_loss(m.output_kind(), out.logits, batch.ys);
    return std::vector<Var>{loss, ops::concat(out.logits, 0)};
  };
}

Report check_model(const ModelSpec& spec, const Options& opt) {
  Report r;
  try {
    std::unique_ptr<models::Model> m = make_model(spec);
    TinyBatch batch = tiny_batch(*m);
    return check_fn(model_loss_fn(*m, batch), ad::unpack(m->params().values()), opt);
  } catch (const std::exception& e) {  // a model that cannot even be built fails its row
    r.ok = false;
    r.failure = std::string("exception: ") + e.what();
  }
  return r;
}

}  // namespace tg::check
