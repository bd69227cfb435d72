// Hand-computed forward steps of the multiplicative RNN, tensor RNN and stacked mRNN (000 §1.6,
// 001 §1.5-1.6) against the builders.
#include <gtest/gtest.h>

#include "tests/models/reference.h"

namespace tg::reference {
namespace {

TEST(MrnnForward, FactoredRecurrence) {
  auto m = make("mrnn", {{"vocab", 4}, {"hidden", 3}, {"factors", 5}, {"learned_h0", true}});
  models::Sequence xs = symbols({{1, 3}, {0, 2}, {2, 2}});
  const Mat w_fx = param(*m, "mrnn/W_fx"), w_fh = param(*m, "mrnn/W_fh"), w_hf = param(*m, "mrnn/W_hf"),
            w_hx = param(*m, "mrnn/W_hx"), w_oh = param(*m, "mrnn/W_oh");
  const Vec b_h = vec(*m, "mrnn/b_h"), b_o = vec(*m, "mrnn/b_o"), h0 = vec(*m, "mrnn/h0");
  EXPECT_EQ(w_fx.cols, 5);
  expect_matches(*m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = h0;
    for (int64_t t = 0; t < xs.T; ++t) {
      const int32_t x = (*xs.symbols[t])[b];
      Vec f = mul(w_fx.row(x), vecmat(h, w_fh));  // f = diag(W_fx x) W_fh h
      Vec u = add(add(vecmat(f, w_hf), w_hx.row(x)), b_h);
      h = tanh(u);
      r.push_back({u, h, add(vecmat(h, w_oh), b_o)});
    }
    return r;
  });
}

TEST(TensorRnnForward, OneRecurrentMatrixPerSymbol) {
  auto m = make("tensor_rnn", {{"vocab", 3}, {"hidden", 2}, {"learned_h0", true}});
  models::Sequence xs = symbols({{1, 2}, {0, 1}, {2, 2}});
  const Mat w_hx = param(*m, "tensor_rnn/W_hx"), w_hh = param(*m, "tensor_rnn/W_hh"), w_oh = param(*m, "tensor_rnn/W_oh");
  const Vec b_h = vec(*m, "tensor_rnn/b_h"), b_o = vec(*m, "tensor_rnn/b_o"), h0 = vec(*m, "tensor_rnn/h0");
  expect_matches(*m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = h0;
    for (int64_t t = 0; t < xs.T; ++t) {
      const int32_t x = (*xs.symbols[t])[b];
      Mat w_x{2, 2, w_hh.row(x)};  // W_hh^(x), [from, to]
      Vec u = add(add(w_hx.row(x), vecmat(h, w_x)), b_h);
      h = tanh(u);
      r.push_back({u, h, add(vecmat(h, w_oh), b_o)});
    }
    return r;
  });
}

TEST(StackedMrnnForward, LayersReadInputBelowAndFeedTheOutput) {
  auto m = make("stacked_mrnn", {{"vocab", 4}, {"layers", {3, 2}}, {"learned_h0", true}, {"output_bias", false}});
  models::Sequence xs = symbols({{1, 3}, {0, 2}});
  struct Layer {
    Mat w_fx, w_fh, w_hf, w_hx;
    Vec b_h, h0;
  };
  std::vector<Layer> layers;
  for (const char* l : {"l1", "l2"}) {
    auto p = [&](const char* n) { return param(*m, std::string("stacked_mrnn/") + l + "/" + n); };
    layers.push_back({p("W_fx"), p("W_fh"), p("W_hf"), p("W_hx"), p("b_h").v, p("h0").v});
  }
  const Mat w_hb = param(*m, "stacked_mrnn/l2/W_hb"), w_oh = param(*m, "stacked_mrnn/W_oh");
  EXPECT_EQ(w_oh.rows, 5);  // [h1 h2] -> out: Σ_l W_oh_l h_l
  expect_matches(*m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h1 = layers[0].h0, h2 = layers[1].h0;
    for (int64_t t = 0; t < xs.T; ++t) {
      const int32_t x = (*xs.symbols[t])[b];
      auto u_of = [&](const Layer& L, const Vec& h_prev) {
        return add(add(vecmat(mul(L.w_fx.row(x), vecmat(h_prev, L.w_fh)), L.w_hf), L.w_hx.row(x)), L.b_h);
      };
      Vec u1 = u_of(layers[0], h1);
      h1 = tanh(u1);
      Vec u2 = add(u_of(layers[1], h2), vecmat(h1, w_hb));  // the lower layer at the same step
      h2 = tanh(u2);
      r.push_back({cat(u1, u2), cat(h1, h2), vecmat(cat(h1, h2), w_oh)});
    }
    return r;
  });
}

}  // namespace
}  // namespace tg::reference
