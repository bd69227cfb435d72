// Hand-computed forward steps of the standard RNN (000 §1.1, 001 eq 2.1) against the builder.
#include <gtest/gtest.h>

#include "tests/models/reference.h"

namespace tg::reference {
namespace {

// u = x W_hx + h W_hh + b_h, h = e(u), z = h W_oh + b_o, for symbolic inputs.
void check_rnn(const nlohmann::json& opts, double (*e)(double), bool bias, bool out_bias, bool learned_h0) {
  auto m = make("rnn", opts);
  models::Sequence xs = symbols({{1, 3}, {0, 2}, {2, 2}});
  const Mat w_hx = param(*m, "rnn/W_hx"), w_hh = param(*m, "rnn/W_hh"), w_oh = param(*m, "rnn/W_oh");
  const int64_t H = w_hh.rows;
  const Vec b_h = bias ? vec(*m, "rnn/b_h") : Vec(H, 0.0);
  const Vec b_o = out_bias ? vec(*m, "rnn/b_o") : Vec(w_oh.cols, 0.0);
  const Vec h0 = learned_h0 ? vec(*m, "rnn/h0") : Vec(H, 0.0);
  expect_matches(*m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = h0;
    for (int64_t t = 0; t < xs.T; ++t) {
      Vec u = add(add(w_hx.row((*xs.symbols[t])[b]), vecmat(h, w_hh)), b_h);
      h = map(u, e);
      r.push_back({u, h, add(vecmat(h, w_oh), b_o)});
    }
    return r;
  });
}

TEST(RnnForward, TanhWithBiasesAndLearnedH0) {
  check_rnn({{"vocab", 4}, {"hidden", 3}, {"learned_h0", true}}, tanh_, true, true, true);
}
TEST(RnnForward, LogisticUnitsWithoutBiases) {
  check_rnn({{"vocab", 4}, {"hidden", 3}, {"activation", "logistic"}, {"bias", false}, {"output_bias", false}}, sigm,
            false, false, false);
}
TEST(RnnForward, ReluUnits) {
  check_rnn({{"vocab", 4}, {"hidden", 3}, {"activation", "relu"}, {"learned_h0", true}}, relu, true, true, true);
}

TEST(RnnForward, DenseInputsUseTheWeightMatrix) {
  auto m = make("rnn", {{"vocab", 0}, {"in", 3}, {"out", 2}, {"hidden", 4}});
  models::Sequence xs;
  xs.T = 2;
  xs.B = 2;
  std::vector<Vec> x = {{0.5, -1, 2, 0.25, 1, -0.5}, {-2, 0.5, 1, 1.5, -1, 0}};
  for (const Vec& v : x) xs.dense.push_back(Tensor::from({2, 3}, v, DType::f64));
  const Mat w_hx = param(*m, "rnn/W_hx"), w_hh = param(*m, "rnn/W_hh"), w_oh = param(*m, "rnn/W_oh");
  const Vec b_h = vec(*m, "rnn/b_h"), b_o = vec(*m, "rnn/b_o");
  expect_matches(*m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h(4, 0.0);
    for (int64_t t = 0; t < xs.T; ++t) {
      Vec u = add(add(vecmat(slice(x[t], b * 3, 3), w_hx), vecmat(h, w_hh)), b_h);
      h = tanh(u);
      r.push_back({u, h, add(vecmat(h, w_oh), b_o)});
    }
    return r;
  });
}

}  // namespace
}  // namespace tg::reference
