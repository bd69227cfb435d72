// The initializers of models/init.h and the init options every model reads.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "models/init.h"
#include "tests/models/reference.h"

namespace tg::models {
namespace {

Tensor filled(const Shape& s, const Init& init, uint64_t seed = 1) {
  Tensor t = Tensor::empty(s, DType::f64);
  Rng rng(seed);
  init(t, rng);
  return t;
}

TEST(ModelInit, SparseGivesEachUnitKIncomingWeights) {
  Tensor w = filled({40, 7}, init::sparse(15, 1.0));
  for (int64_t j = 0; j < 7; ++j) {
    int nonzero = 0;
    for (int64_t i = 0; i < 40; ++i) nonzero += w.at(i * 7 + j) != 0;
    EXPECT_EQ(nonzero, 15) << "unit " << j;
  }
  Tensor narrow = filled({4, 3}, init::sparse(15, 1.0));  // fan-in below k: all connections
  for (int64_t i = 0; i < narrow.size(); ++i) EXPECT_NE(narrow.at(i), 0);
}

TEST(ModelInit, SpectralRadiusOfKnownMatrices) {
  EXPECT_NEAR(init::spectral_radius(Tensor::from({2, 2}, std::vector<double>{0, 1, -1, 0}, DType::f64)), 1, 1e-12);
  EXPECT_NEAR(init::spectral_radius(Tensor::from({2, 2}, std::vector<double>{2, 5, 0, -3}, DType::f64)), 3, 1e-12);
}

TEST(ModelInit, RescalesToASpectralRadius) {
  Tensor w = filled({30, 30}, init::with_spectral_radius(init::sparse(15, 1.0), 1.2));
  EXPECT_NEAR(init::spectral_radius(w), 1.2, 1e-9);
}

TEST(ModelInit, IdentityGlorotAndBlockwise) {
  Tensor i = filled({3, 3}, init::identity(0.5));
  for (int64_t k = 0; k < 9; ++k) EXPECT_EQ(i.at(k), k % 4 == 0 ? 0.5 : 0.0);
  Tensor g = filled({20, 30}, init::glorot());
  const double a = std::sqrt(6.0 / 50);
  double mx = 0;
  for (int64_t k = 0; k < g.size(); ++k) mx = std::max(mx, std::abs(g.at(k)));
  EXPECT_LE(mx, a);
  EXPECT_GT(mx, 0.9 * a);
  Tensor b = filled({3, 6}, init::blockwise(2, init::identity(2.0)));
  EXPECT_EQ(b.to_vector(), (std::vector<double>{2, 0, 0, 2, 0, 0, 0, 2, 0, 0, 2, 0, 0, 0, 2, 0, 0, 2}));
  EXPECT_THROW(filled({3, 4}, init::identity()), Error);
}

TEST(ModelInit, ModelOptionsPickSchemesByRole) {
  // Sutskever's Ch 7 recipe: sparse N(0,1), recurrent matrices at spectral radius 1.2, inputs × 0.02.
  const ModelInfo& info = find("rnn");
  Rng rng(2);
  auto s = info.make(resolve(info, {{"vocab", 20}, {"hidden", 30}, {"init", "sparse"}, {"init_scale", 1.0},
                                    {"spectral_radius", 1.2}, {"input_scale", 0.02}}),
                     DType::f64, rng);
  EXPECT_NEAR(init::spectral_radius(s->params().value(*s->params().find("rnn/W_hh"))), 1.2, 1e-9);
  const Tensor w_hx = s->params().value(*s->params().find("rnn/W_hx"));
  double mx = 0;
  for (int64_t k = 0; k < w_hx.size(); ++k) mx = std::max(mx, std::abs(w_hx.at(k)));
  EXPECT_LT(mx, 0.02 * 6);  // N(0,1) draws times 0.02

  // Each gate block of a fused LSTM recurrent matrix is rescaled on its own.
  Rng rng2(3);
  const ModelInfo& lstm = find("lstm");
  auto l = lstm.make(resolve(lstm, {{"vocab", 5}, {"hidden", 8}, {"spectral_radius", 0.9}}), DType::f64, rng2);
  const Tensor w_gh = l->params().value(*l->params().find("lstm/W_gh"));
  for (int64_t blk = 0; blk < 4; ++blk) {
    Tensor block = Tensor::empty({8, 8}, DType::f64);
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 8; ++j) block.data<double>()[i * 8 + j] = w_gh.at(i * 32 + blk * 8 + j);
    EXPECT_NEAR(init::spectral_radius(block), 0.9, 1e-9) << "gate block " << blk;
  }

  // IRNN-style identity recurrence; the dense default is N(0, 0.1²).
  Rng rng3(4);
  auto irnn = info.make(resolve(info, {{"vocab", 5}, {"hidden", 3}, {"recurrent_init", "identity"}}), DType::f64, rng3);
  EXPECT_EQ(irnn->params().value(*irnn->params().find("rnn/W_hh")).to_vector(),
            (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_THROW(resolve(find("mrnn"), {{"spectral_radius", 1.0}}), Error) << "mRNN has no square recurrent matrix";
}

TEST(ModelInit, RnnHiddenBiasScale) {
  // zeros by default; bias_scale s draws b_h from N(0, s²) (the thesis's ch. 4 sparse init draws biases too)
  const ModelInfo& info = find("rnn");
  Rng rng(5);
  auto zero = info.make(resolve(info, {{"vocab", 5}, {"hidden", 400}}), DType::f64, rng);
  for (double b : zero->params().value(*zero->params().find("rnn/b_h")).to_vector()) EXPECT_EQ(b, 0);
  auto drawn = info.make(resolve(info, {{"vocab", 5}, {"hidden", 400}, {"bias_scale", 0.25}}), DType::f64, rng);
  const std::vector<double> b = drawn->params().value(*drawn->params().find("rnn/b_h")).to_vector();
  double sq = 0;
  for (double x : b) sq += x * x;
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(b.size())), 0.25, 0.03);
  EXPECT_THROW(info.make(resolve(info, {{"vocab", 5}, {"bias_scale", -1.0}}), DType::f64, rng), Error);
}

TEST(ModelInit, OutputScaleMultipliesTheSameDrawsOfTheOutputWeights) {
  // output_scale s gives s times the output weights of the default init (same seed), 0 gives zeros;
  // every other parameter is unchanged.
  const ModelInfo& info = find("rnn");
  const nlohmann::json base = {{"vocab", 0}, {"in", 2}, {"out", 1}, {"hidden", 20}, {"init", "sparse"},
                               {"init_scale", 1.0}, {"spectral_radius", 1.2}};
  auto make = [&](double s) {
    nlohmann::json o = base;
    o["output_scale"] = s;
    Rng rng(6);
    return info.make(resolve(info, o), DType::f64, rng);
  };
  auto one = make(1.0), half = make(0.5), zero = make(0.0);
  const std::vector<double> w1 = one->params().value(*one->params().find("rnn/W_oh")).to_vector();
  const std::vector<double> wh = half->params().value(*half->params().find("rnn/W_oh")).to_vector();
  const std::vector<double> w0 = zero->params().value(*zero->params().find("rnn/W_oh")).to_vector();
  int nonzero = 0;
  for (size_t k = 0; k < w1.size(); ++k) {
    nonzero += w1[k] != 0;
    EXPECT_EQ(wh[k], 0.5 * w1[k]);
    EXPECT_EQ(w0[k], 0.0);
  }
  EXPECT_EQ(nonzero, 15) << "sparse init: 15 incoming weights into the output unit";
  EXPECT_EQ(one->params().value(*one->params().find("rnn/W_hh")).to_vector(),
            zero->params().value(*zero->params().find("rnn/W_hh")).to_vector());
  Rng rng(7);
  nlohmann::json bad = base;
  bad["output_scale"] = -1.0;
  EXPECT_THROW(info.make(resolve(info, bad), DType::f64, rng), Error);
}

}  // namespace
}  // namespace tg::models
