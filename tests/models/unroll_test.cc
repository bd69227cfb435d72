// The unrolling every core model shares (models/cell_model.h): input masks carry the state over,
// variable-length sequences share a batch, zero or learned initial state, float32 and float64,
// scopes and tags, the matching losses with loss masks, and one clear error per bad input or option.
#include <gtest/gtest.h>

#include "core/ad.h"
#include "core/error.h"
#include "models/loss.h"
#include "gradcheck/model_specs.h"
#include "tests/models/reference.h"

namespace tg::reference {
namespace {

std::vector<double> row(Var v, int64_t b) {
  const int64_t n = v.shape()[1];
  std::vector<double> r(n);
  for (int64_t j = 0; j < n; ++j) r[j] = v.value().at(b * n + j);
  return r;
}

void expect_rows_near(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], tol) << what << " j=" << j;
}

// Every core model: a padded step leaves the state (and so the readout and logits) unchanged, and a
// short sequence in a batch gives the outputs it gives alone.
class MaskedUnroll : public ::testing::TestWithParam<check::ModelSpec> {};

TEST_P(MaskedUnroll, PaddingCarriesTheStateAndSequencesAreIndependent) {
  auto m = check::make_model(GetParam());
  check::TinyBatch batch = check::tiny_batch(*m, 4, 2);
  models::Sequence xs = batch.xs;
  for (Tensor& mask : xs.mask) mask = Tensor::full({2}, 1.0, DType::f64);
  xs.mask[1].data<double>()[1] = 0;  // sequence 1: steps 0, 2, 3 are real; step 1 is a gap
  xs.mask[3].data<double>()[1] = 0;  // and its last step is padding
  Graph g;
  models::Outputs out = m->unroll(g, xs);
  expect_rows_near(row(out.hidden[1], 1), row(out.hidden[0], 1), 0, "gap step keeps h");
  expect_rows_near(row(out.logits[1], 1), row(out.logits[0], 1), 0, "gap step keeps z");
  expect_rows_near(row(out.hidden[3], 1), row(out.hidden[2], 1), 0, "padding keeps h");

  // Sequence 0 alone (B = 1) gives the same outputs as inside the batch.
  models::Sequence alone;
  alone.T = 4;
  alone.B = 1;
  for (int64_t t = 0; t < 4; ++t) {
    if (m->io().symbolic())
      alone.symbols.push_back(ops::make_index({(*xs.symbols[t])[0]}));
    else
      alone.dense.push_back(xs.dense[t].view(0, {1, m->io().in}).clone());
  }
  Graph g1;
  models::Outputs one = m->unroll(g1, alone);
  for (int64_t t = 0; t < 4; ++t) expect_rows_near(row(one.logits[t], 0), row(out.logits[t], 0), 1e-14, "batch independence");
}

std::string row_name(const ::testing::TestParamInfo<check::ModelSpec>& info) {
  std::string s = info.param.name;
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}
INSTANTIATE_TEST_SUITE_P(Zoo, MaskedUnroll, ::testing::ValuesIn(check::model_specs()), row_name);

TEST(Unroll, LearnedInitialStateIsAParameterBroadcastOverTheBatch) {
  auto zero = make("lstm", {{"vocab", 4}, {"hidden", 3}});
  EXPECT_FALSE(zero->params().find("lstm/h0"));
  auto learned = make("lstm", {{"vocab", 4}, {"hidden", 3}, {"learned_h0", true}});
  ASSERT_TRUE(learned->params().find("lstm/h0"));
  ASSERT_TRUE(learned->params().find("lstm/c0"));
  // With h0 = c0 = 0 the learned-state model is the zero-state model.
  for (const char* p : {"lstm/h0", "lstm/c0"}) learned->params().value(*learned->params().find(p)).fill(0);
  for (const auto& e : zero->params().layout()->entries) {
    Tensor src = zero->params().value(*zero->params().find(e.name));
    Tensor dst = learned->params().value(*learned->params().find(e.name));
    std::copy(src.data<double>(), src.data<double>() + src.size(), dst.data<double>());
  }
  models::Sequence xs = symbols({{1, 3}, {0, 2}});
  Graph g0, g1;
  models::Outputs a = zero->unroll(g0, xs), b = learned->unroll(g1, xs);
  for (int64_t t = 0; t < 2; ++t)
    for (int64_t i = 0; i < 2; ++i) expect_rows_near(row(a.logits[t], i), row(b.logits[t], i), 0, "h0 = 0");
}

TEST(Unroll, Float32MatchesFloat64) {
  for (const char* name : {"rnn", "mrnn", "lstm", "lstm_krause", "mlstm", "gru", "lstm_sutskever", "stacked_mrnn"}) {
    const models::ModelInfo& info = models::find(name);
    const nlohmann::json cfg = models::resolve(info, {{"vocab", 6}, {"out", 6}});
    Rng r1(3), r2(3);
    auto m64 = info.make(cfg, DType::f64, r1);
    auto m32 = info.make(cfg, DType::f32, r2);
    m32->params().set_values(m64->params().cast(DType::f32).values());
    models::Sequence xs = symbols({{1, 5}, {0, 2}, {4, 4}});
    xs.mask = {Tensor::full({2}, 1.0, DType::f64), Tensor::from({2}, std::vector<double>{1, 0}, DType::f64),
               Tensor::full({2}, 1.0, DType::f32)};
    Graph g64, g32;
    models::Outputs a = m64->unroll(g64, xs), b = m32->unroll(g32, xs);
    EXPECT_EQ(b.logits[2].dtype(), DType::f32) << name;
    for (int64_t t = 0; t < 3; ++t)
      for (int64_t i = 0; i < 2; ++i)
        expect_rows_near(row(a.logits[t], i), row(b.logits[t], i), 1e-5, std::string(name) + " f32");
  }
}

TEST(Unroll, NodesAreNamedByModelAndStep) {
  auto m = make("lstm", {{"vocab", 4}, {"hidden", 3}});
  Graph g;
  models::Outputs out = m->unroll(g, symbols({{1, 3}, {0, 2}, {2, 2}}));
  EXPECT_NE(g.describe(out.logits[2].id()).find("lstm/t=2"), std::string::npos) << g.describe(out.logits[2].id());
  EXPECT_NE(g.describe(out.preact[1].id()).find("lstm/t=1"), std::string::npos);
}

TEST(Unroll, GradientInFloat32) {
  auto info = models::find("mlstm");
  Rng rng(1);
  auto m = info.make(models::resolve(info, {{"vocab", 5}, {"hidden", 4}}), DType::f32, rng);
  check::TinyBatch batch = check::tiny_batch(*m);
  Graph g;
  models::Outputs out = m->unroll(g, batch.xs);
  Var loss = models::matching_loss(m->output_kind(), out.logits, batch.ys);
  auto [value, grad] = ad::value_and_grad(loss);
  EXPECT_NEAR(value, std::log(5.0), 0.2);  // small weights: close to uniform predictions
  EXPECT_EQ(grad.size(), m->params().numel());
  EXPECT_TRUE(grad.all_finite());
  EXPECT_GT(grad.norm(), 0);
}

TEST(MatchingLoss, LossMaskSelectsSteps) {
  auto m = make("rnn", {{"vocab", 4}, {"hidden", 3}});
  models::Sequence xs = symbols({{1, 3}, {0, 2}, {2, 2}});
  Graph g;
  models::Outputs out = m->unroll(g, xs);
  models::Targets ys;
  for (int t = 0; t < 3; ++t) ys.symbols.push_back(ops::make_index({t, 3 - t}));
  ys.mask = {Tensor::full({2}, 0.0, DType::f64), Tensor::full({2}, 0.0, DType::f64),
             Tensor::from({2}, std::vector<double>{1, 0}, DType::f64)};  // only sequence 0 at the last step
  const double got = models::matching_loss(models::OutputKind::softmax, out.logits, ys).value().item();
  const std::vector<double> z = row(out.logits[2], 0);
  double lse = 0;
  for (double v : z) lse += std::exp(v);
  EXPECT_NEAR(got, std::log(lse) - z[2], 1e-12);
  ys.mask[2].fill(0);
  EXPECT_THROW(models::matching_loss(models::OutputKind::softmax, out.logits, ys), Error);
}

TEST(MatchingLoss, DenseKindsAverageOverUnmaskedElements) {
  auto m = make("rnn", {{"vocab", 0}, {"in", 2}, {"out", 3}, {"hidden", 2}, {"output", "linear"}});
  models::Sequence xs;
  xs.T = 2;
  xs.B = 2;
  for (int t = 0; t < 2; ++t) xs.dense.push_back(Tensor::full({2, 2}, 0.5 * t, DType::f64));
  Graph g;
  models::Outputs out = m->unroll(g, xs);
  models::Targets ys;
  ys.dense = {Tensor::full({2, 3}, 1.0, DType::f64), Tensor::full({2, 3}, -1.0, DType::f64)};
  ys.mask = {Tensor::from({2}, std::vector<double>{1, 0}, DType::f64), Tensor::full({2}, 0.0, DType::f64)};
  double want = 0;
  for (double v : row(out.logits[0], 0)) want += 0.5 * (v - 1) * (v - 1) / 3;
  EXPECT_NEAR(models::matching_loss(models::OutputKind::linear, out.logits, ys).value().item(), want, 1e-12);
}

TEST(ModelErrors, OneClearLinePerBadOptionOrInput) {
  auto message = [](auto f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Rng rng(1);
  auto build = [&](const std::string& name, const nlohmann::json& o) {
    const models::ModelInfo& info = models::find(name);
    return info.make(models::resolve(info, o), DType::f32, rng);
  };
  EXPECT_NE(message([&] { models::find("lstm2"); }).find("unknown model 'lstm2'"), std::string::npos);
  EXPECT_NE(message([&] { build("rnn", {{"hiden", 3}}); }).find("unknown option 'hiden'"), std::string::npos);
  EXPECT_NE(message([&] { build("rnn", {{"activation", "sigmoid"}}); }).find("'activation' must be one of"),
            std::string::npos);
  EXPECT_NE(message([&] { build("rnn", {{"hidden", "abc"}}); }).find("'hidden' must be a positive integer"),
            std::string::npos);
  EXPECT_NE(message([&] { build("rnn", {{"in", 3}}); }).find("exactly one of 'vocab'"), std::string::npos);
  EXPECT_NE(message([&] { build("stacked_mrnn", {{"layers", {3, 0}}}); }).find("'layers'"), std::string::npos);
  EXPECT_NE(message([&] { build("rnn", {{"init", "xavier"}}); }).find("'init' must be one of"), std::string::npos);

  auto m = build("rnn", {{"vocab", 4}, {"hidden", 2}});
  Graph g;
  EXPECT_NE(message([&] { m->unroll(g, symbols({{1, 4}})); }).find("outside [0, 4)"), std::string::npos);
  models::Sequence dense;
  dense.T = 1;
  dense.B = 1;
  dense.dense.push_back(Tensor::zeros({1, 4}, DType::f32));
  EXPECT_NE(message([&] { m->unroll(g, dense); }).find("input symbols"), std::string::npos);
}

}  // namespace
}  // namespace tg::reference
