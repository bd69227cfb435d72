// Gated-feedback RNN (Chung et al. 2015, as in Galvan, seed 002 §2.1.4). L stacked layers; every
// layer's previous state h^i_{t-1} feeds every layer j, scaled by a scalar global reset gate
//   g^{i->j} = logistic(h^{j-1}_t · w_g^{i->j} + h*_{t-1} · u_g^{i->j})      (2.16)
// with h^0_t = x_t and h*_{t-1} = [h^1_{t-1}, ..., h^L_{t-1}]. All gates of layer j at once:
// G_j = logistic(h^{j-1}_t Wg_j + h*_{t-1} Ug_j) [B, L], and the gated feedback
// f_j = [g^{1->j} h^1_{t-1}, ..., g^{L->j} h^L_{t-1}] U_j  (U_j [Σ n_i, n_j] stacks the U^{i->j}).
// Layer updates (Chung et al.; the seed leaves them out):
//   tanh: h^j_t = tanh(h^{j-1}_t W_j + f_j + b_j)
//   lstm: i, f, o from h^{j-1}_t and the layer's own h^j_{t-1} as usual; only the cell input reads the
//         gated feedback: c~ = tanh(h^{j-1}_t W_c + f_j + b_c); c = f⊙c + i⊙c~, h = o⊙tanh(c)
//   gru:  z, r from h^{j-1}_t and h^j_{t-1} as usual; h~ = tanh(h^{j-1}_t W + r ⊙ f_j + b);
//         h = z⊙h_{t-1} + (1-z)⊙h~ (Cho's convention, as models/gru.h)
// The output layer reads the top layer (readout = "all": every layer). preact = the layers'
// pre-activations side by side (tanh: the argument of tanh; lstm: c_t; gru: the candidate's argument).
#include <fmt/format.h>

#include "core/error.h"
#include "models/cell_model.h"
#include "models/lstm.h"
#include "models/more_models.h"

namespace tg::models {

namespace {
const char* kName = "gated_feedback";

struct Layer {
  int64_t n = 0;
  ParamId Wx, b, Uself, Uf, Wg, Ug;  // Uself: lstm [n,3n] (i,f,o), gru [n,2n] (z,r); Uf: gated feedback
  InitialState init;
};

class GatedFeedback final : public Model {
 public:
  GatedFeedback(const nlohmann::json& cfg, DType dt, Rng& rng) : Model(dt), kind_(kName) {
    OptionReader o(fmt::format("model '{}'", kind_), cfg);
    CommonOptions c = CommonOptions::read(o);
    io_ = c.io;
    output_ = c.output;
    type_ = o.choice("cell", {"tanh", "lstm", "gru"});
    readout_all_ = o.choice("readout", {"top", "all"}) == "all";
    std::vector<int64_t> sizes = o.sizes("layers");
    const int64_t L = static_cast<int64_t>(sizes.size());
    for (int64_t n : sizes) total_ += n;
    ParamBuilder p(params_, kind_, c.init, rng);
    int64_t in = c.io.input_size();
    LstmVariant v;
    for (int64_t j = 0; j < L; ++j) {
      ParamBuilder q = p.scoped(fmt::format("l{}", j + 1));
      Layer l;
      const int64_t n = l.n = sizes[j];
      const int64_t G = type_ == "tanh" ? 1 : type_ == "lstm" ? 4 : 3;
      l.Wx = j == 0 ? q.input("W_x", in, G * n, G) : q.weight("W_x", in, G * n, G);
      l.b = q.add("b", {G * n}, type_ == "lstm" ? lstm_bias_init(v, n, o.number("forget_bias")) : init::zeros());
      if (type_ == "lstm") l.Uself = q.recurrent("U_self", n, 3 * n, 3);
      if (type_ == "gru") l.Uself = q.recurrent("U_self", n, 2 * n, 2);
      l.Uf = q.weight("U_f", total_, n);
      l.Wg = j == 0 ? q.input("W_g", in, L) : q.weight("W_g", in, L);
      l.Ug = q.weight("U_g", total_, L);
      if (type_ == "lstm") l.init = InitialState(q, {{"h0", n}, {"c0", n}}, c.learned_h0);
      else l.init = InitialState(q, {{"h0", n}}, c.learned_h0);
      layers_.push_back(std::move(l));
      in = n;
    }
    head_ = OutputLayer(p, readout_all_ ? total_ : sizes.back(), c.io.out, c.output_bias);
  }
  const std::string& kind() const override { return kind_; }
  OutputKind output_kind() const override { return output_; }

  Outputs unroll(Graph& g, const Sequence& xs) const override {
    check_sequence(xs, io_, kind_);
    g.bind(params_);
    const DType dt = params_.dtype();
    const size_t L = layers_.size();
    const size_t parts = type_ == "lstm" ? 2 : 1;  // state parts per layer: {h} or {h, c}
    State s;
    for (const Layer& l : layers_) {
      State p = l.init.make(g, xs.B);
      s.insert(s.end(), p.begin(), p.end());
    }
    Outputs out;
    for (int64_t t = 0; t < xs.T; ++t) {
      ScopeGuard scope(g, kind_ + "/t", static_cast<long>(t));
      StepInput x;
      if (io_.symbolic()) x.symbols = xs.symbols[t];
      else x.dense = g.input(xs.dense[t].astype(dt).clone());
      std::vector<Var> hprev(L);
      for (size_t j = 0; j < L; ++j) hprev[j] = s[j * parts];
      Var hstar = L == 1 ? hprev[0] : ops::concat(hprev, 1);  // h*_{t-1}
      State next;
      std::vector<Var> pre;
      for (size_t j = 0; j < L; ++j) {
        ScopeGuard ls(g, fmt::format("l{}", j + 1));
        const Layer& l = layers_[j];
        auto from_below = [&](ParamId w) { return j == 0 ? project(g, x, w) : ops::matmul(next[(j - 1) * parts], g[w]); };
        Var gates = ops::logistic(from_below(l.Wg) + ops::matmul(hstar, g[l.Ug]));  // [B, L]: g^{i->j}
        std::vector<Var> gated(L);
        for (size_t i = 0; i < L; ++i) gated[i] = ops::slice(gates, 1, static_cast<int64_t>(i), static_cast<int64_t>(i) + 1) * hprev[i];
        Var fb = ops::matmul(L == 1 ? gated[0] : ops::concat(gated, 1), g[l.Uf]);  // Σ_i g^{i->j} h^i_{t-1} U^{i->j}
        Var a = from_below(l.Wx) + g[l.b];
        if (type_ == "tanh") {
          Var u = a + fb;
          next.push_back(ops::tanh(u));
          pre.push_back(u);
        } else if (type_ == "lstm") {
          std::vector<Var> ax = ops::split(a, 1, 4);                                          // i, f, o, c~
          std::vector<Var> ah = ops::split(ops::matmul(hprev[j], g[l.Uself]), 1, 3);         // i, f, o
          Var gate_in[] = {ax[0] + ah[0], ax[1] + ah[1], ax[2] + ah[2], ax[3] + fb};
          LstmMemory m = lstm_memory(LstmVariant{}, gate_in, s[j * parts + 1]);
          next.push_back(m.h);
          next.push_back(m.c);
          pre.push_back(m.preact);
        } else {  // gru
          std::vector<Var> ax = ops::split(a, 1, 3);                                          // z, r, h~
          std::vector<Var> ah = ops::split(ops::matmul(hprev[j], g[l.Uself]), 1, 2);         // z, r
          Var z = ops::logistic(ax[0] + ah[0]), r = ops::logistic(ax[1] + ah[1]);
          Var u = ax[2] + r * fb;
          next.push_back(z * hprev[j] + (1.0 - z) * ops::tanh(u));
          pre.push_back(u);
        }
      }
      s = xs.mask.empty() ? next : carry_over(g, next, s, xs.mask[t]);
      Var h;
      if (readout_all_) {
        std::vector<Var> hs;
        for (size_t j = 0; j < L; ++j) hs.push_back(s[j * parts]);
        h = L == 1 ? hs[0] : ops::concat(hs, 1);
      } else {
        h = s[(L - 1) * parts];
      }
      Var u = pre.size() == 1 ? pre[0] : ops::concat(pre, 1);
      Var z = head_.logits(g, h);
      out.record(g, u, h, z);
    }
    return out;
  }

 private:
  std::string kind_;
  OutputKind output_ = OutputKind::softmax;
  std::string type_;
  bool readout_all_ = false;
  int64_t total_ = 0;
  std::vector<Layer> layers_;
  OutputLayer head_;
};
}  // namespace

void register_gated_feedback(std::vector<ModelInfo>& r) {
  ModelInfo m;
  m.name = kName;
  m.description = "gated-feedback RNN: stacked tanh / LSTM / GRU layers, every layer's past state fed to every layer "
                  "through scalar reset gates";
  m.seed = "002";
  m.defaults = cell_model_defaults(
      {{"cell", "tanh"}, {"layers", {100, 100, 100}}, {"readout", "top"}, {"forget_bias", 1.0}}, false);
  m.make = [](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
    return std::make_unique<GatedFeedback>(cfg, dt, rng);
  };
  r.push_back(m);
}

}  // namespace tg::models
