// Hand-computed forward steps of the standard RNN (000 §1.1, 001 eq 2.1) against the builder.
#include <gtest/gtest.h>

#include <string>

#include "core/ad.h"
#include "tests/models/reference.h"

namespace tg::reference {
namespace {

// u = x W_hx + h W_hh + b_h, h = e(u), z = h W_oh + b_o, for symbolic inputs.
void expect_rnn_matches(const models::Model& m, const models::Sequence& xs, double (*e)(double), bool bias,
                        bool out_bias, bool learned_h0, double tol = 1e-12) {
  const Mat w_hx = param(m, "rnn/W_hx"), w_hh = param(m, "rnn/W_hh"), w_oh = param(m, "rnn/W_oh");
  const int64_t H = w_hh.rows;
  const Vec b_h = bias ? vec(m, "rnn/b_h") : Vec(H, 0.0);
  const Vec b_o = out_bias ? vec(m, "rnn/b_o") : Vec(w_oh.cols, 0.0);
  const Vec h0 = learned_h0 ? vec(m, "rnn/h0") : Vec(H, 0.0);
  expect_matches(m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = h0;
    for (int64_t t = 0; t < xs.T; ++t) {
      Vec u = add(add(w_hx.row((*xs.symbols[t])[b]), vecmat(h, w_hh)), b_h);
      h = map(u, e);
      r.push_back({u, h, add(vecmat(h, w_oh), b_o)});
    }
    return r;
  }, tol);
}
void check_rnn(const nlohmann::json& opts, double (*e)(double), bool bias, bool out_bias, bool learned_h0) {
  auto m = make("rnn", opts);
  expect_rnn_matches(*m, symbols({{1, 3}, {0, 2}, {2, 2}}), e, bias, out_bias, learned_h0);
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

// Wide enough that the steps' lookups are not stacked (B T H = 4 x 60 x 300 > 2^16): the bias is then
// added once to W_hx's rows (x W + b = x (W + b) for a one-hot x) instead of to every step's lookup.
// Forward against the hand computation; gradient with respect to b_h and W_hx against central differences.
TEST(RnnForward, WideSymbolInputsFoldTheBiasIntoTheLookup) {
  auto m = make("rnn", {{"vocab", 4}, {"hidden", 300}, {"out", 3}});
  // a contractive recurrence (U[-0.012, 0.012] at H = 300), so that rounding does not grow over 60 steps
  Tensor w_hh_values = m->params().value(*m->params().find("rnn/W_hh"));
  for (int64_t i = 0; i < w_hh_values.size(); ++i) w_hh_values.data<double>()[i] *= 0.02;
  std::vector<std::vector<int32_t>> steps;
  for (int32_t t = 0; t < 60; ++t) steps.push_back({t % 4, (t * 3 + 1) % 4, (t / 2) % 4, 2});
  const models::Sequence xs = symbols(steps);
  // sums of 300 products in another order than the reference's: ~1e-12 apart
  expect_rnn_matches(*m, xs, tanh_, true, true, false, 1e-11);

  const ParamId wid = *m->params().find("rnn/W_hx"), bid = *m->params().find("rnn/b_h");
  auto loss_of = [&](Graph& g) {
    g.bind(m->params());
    models::Outputs out = m->unroll(g, xs);
    Var loss;
    for (const Var& z : out.logits) loss = ops::add(loss, ops::sum(ops::square(ops::tanh(z))));
    return loss;
  };
  Graph g;
  Var loss = loss_of(g);
  int folded = 0;
  for (int32_t id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    folded += std::string(n.prim->name) == "add" && n.in.size() == 2 && n.in[0] == g[wid].id() && n.in[1] == g[bid].id();
  }
  EXPECT_EQ(folded, 1) << "W_hx + b_h once";
  const std::vector<Var> grads = ad::grad(loss, std::vector<Var>{g[wid], g[bid]});
  const ParamId ids[] = {wid, bid};
  for (int which = 0; which < 2; ++which) {
    Tensor part = m->params().value(ids[which]);  // shares θ's storage
    double* theta = part.data<double>();
    const int64_t n = grads[which].value().size();
    double predicted = 0;
    for (int64_t i = 0; i < n; ++i) predicted += grads[which].value().at(i) * std::sin(1.0 + 0.7 * i);
    auto at = [&](double eps) {
      for (int64_t i = 0; i < n; ++i) theta[i] += eps * std::sin(1.0 + 0.7 * i);
      Graph h;
      const double v = loss_of(h).value().at(0);
      for (int64_t i = 0; i < n; ++i) theta[i] -= eps * std::sin(1.0 + 0.7 * i);
      return v;
    };
    const double eps = 1e-6, measured = (at(eps) - at(-eps)) / (2 * eps);
    EXPECT_NEAR(predicted, measured, 1e-6 * (1 + std::abs(measured))) << (which ? "b_h" : "W_hx");
  }
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
