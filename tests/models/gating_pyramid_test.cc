// The gated autoencoders and pyramids (models/gating_pyramid.h, models/pair_autoencoder.h,
// models/gating_pyramid_objective.h): the gradient-check and Gauss-Newton rows, the closed-loop rule
// (predictions read the seed frames only), the batch layout, the options, and that a one-layer pyramid
// learns to apply a transformation it infers from two frames to the next.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "gradcheck/gated_specs.h"
#include "models/gating_pyramid_objective.h"
#include "optim/first_order.h"
#include "tasks/random.h"

namespace tg::models {
namespace {

// B sequences of `frames` frames of D standard-normal units, each frame the previous one cyclically
// shifted by the sequence's s ∈ {-1, +1}; the targets of steps before seed - 1 are unscored.
tasks::Batch shift_batch(int64_t B, int64_t D, int64_t frames, int64_t seed, Rng& rng) {
  std::vector<std::vector<double>> f(static_cast<size_t>(frames), std::vector<double>(static_cast<size_t>(B * D)));
  for (int64_t b = 0; b < B; ++b) {
    const int64_t s = tasks::uniform01(rng) < 0.5 ? 1 : D - 1;
    for (int64_t i = 0; i < D; ++i) f[0][b * D + i] = tasks::standard_normal(rng);
    for (int64_t t = 1; t < frames; ++t)
      for (int64_t i = 0; i < D; ++i) f[t][b * D + i] = f[t - 1][b * D + (i + s) % D];
  }
  tasks::Batch batch;
  batch.inputs.T = frames - 1, batch.inputs.B = B;
  for (int64_t t = 0; t + 1 < frames; ++t) {
    batch.inputs.dense.push_back(Tensor::from({B, D}, f[t], DType::f32));
    batch.targets.dense.push_back(Tensor::from({B, D}, f[t + 1], DType::f32));
    batch.targets.mask.push_back(Tensor::full({B}, t + 1 >= seed ? 1.0 : 0.0, DType::f32));
  }
  return batch;
}

GatingPyramidOptions pyramid(const std::string& kind, int layers, int64_t frame, int64_t cond = 0) {
  GatingPyramidOptions o;
  o.kind = kind;
  o.frame = frame;
  o.cond = cond;
  o.factors.assign(static_cast<size_t>(layers), 16);
  o.mappings.assign(static_cast<size_t>(layers), 6);
  return o;
}

TEST(GatedModels, RowsPassTheGradientCheckAtOrderTwoAndGaussNewton) {
  ASSERT_GE(check::gated_specs().size(), 9u);
  for (const check::GatedSpec& spec : check::gated_specs()) {
    const check::Report r = check::check_gated(spec), gn = check::check_gated_gauss_newton(spec);
    std::printf("%s: worst %.1e (fd %.1e dot %.1e fd2 %.1e dot2 %.1e), G v %.1e\n", spec.name.c_str(), r.worst, r.fd1,
                r.dot1, r.fd2, r.dot2, gn.worst);
    EXPECT_TRUE(r.ok) << spec.name << ": " << r.failure;
    EXPECT_TRUE(gn.ok) << spec.name << ": " << gn.failure;
  }
}

// Closed loop: the prediction of frame t >= seed reads frames 0 .. seed-1 only, whatever the later
// frames hold; and a different seed changes it.
TEST(GatedModels, PredictionsReadOnlyTheSeedFrames) {
  for (int layers = 1; layers <= 3; ++layers) {
    Rng init(1), data(2);
    GatedObjective obj(GatingPyramid(pyramid("pgp", layers, 6), DType::f64, init));
    tasks::Batch b = shift_batch(3, 6, 8, layers + 1, data);
    const std::vector<Tensor> before = obj.evaluate(obj.params().values(), b)->output_values();
    tasks::Batch later = b;  // frames after the seed replaced
    for (int64_t t = layers + 1; t < b.steps(); ++t) later.inputs.dense[t] = Tensor::full({3, 6}, 7.0, DType::f32);
    for (int64_t t = layers; t < b.steps(); ++t) later.targets.dense[t] = Tensor::full({3, 6}, 7.0, DType::f32);
    const std::vector<Tensor> after = obj.evaluate(obj.params().values(), later)->output_values();
    ASSERT_EQ(before.size(), after.size());
    for (size_t t = 0; t < before.size(); ++t)
      for (int64_t i = 0; i < before[t].size(); ++i) ASSERT_EQ(before[t].at(i), after[t].at(i)) << layers << " " << t;
    tasks::Batch other = b;
    other.inputs.dense[0] = Tensor::full({3, 6}, -1.0, DType::f32);
    const std::vector<Tensor> moved = obj.evaluate(obj.params().values(), other)->output_values();
    EXPECT_NE(moved.back().at(0), before.back().at(0)) << "the seed frames drive the predictions";
  }
}

// The CPGP's inputs at a step act on that step's prediction (not on earlier ones), in both readings, which
// differ.
TEST(GatedModels, ConditionalPyramidPredictionsFollowItsInputs) {
  std::vector<std::vector<Tensor>> by_mode;
  for (const char* mode : {"add", "preact"}) {
    Rng init(3), data(4);
    GatingPyramidOptions o = pyramid("cpgp", 3, 5, 2);
    o.cond_mode = mode;
    GatedObjective obj(GatingPyramid(o, DType::f64, init));
    const tasks::Batch plain = shift_batch(2, 5, 7, 4, data);
    tasks::Batch b = plain;  // inputs: the frame, then 2 conditioning values
    for (int64_t t = 0; t < b.steps(); ++t) {
      std::vector<double> in;
      for (int64_t r = 0; r < 2; ++r) {
        for (int64_t i = 0; i < 5; ++i) in.push_back(plain.inputs.dense[t].at(r * 5 + i));
        in.push_back(0.5), in.push_back(0.25 * static_cast<double>(t));
      }
      b.inputs.dense[t] = Tensor::from({2, 7}, in, DType::f32);
    }
    const std::vector<Tensor> base = obj.evaluate(obj.params().values(), b)->output_values();
    tasks::Batch other = b;
    other.inputs.dense[3] = Tensor::full({2, 7}, 0.9, DType::f32);  // the first predicted step's inputs
    const std::vector<Tensor> moved = obj.evaluate(obj.params().values(), other)->output_values();
    for (size_t t = 0; t < 3; ++t)
      for (int64_t i = 0; i < base[t].size(); ++i) ASSERT_EQ(base[t].at(i), moved[t].at(i)) << mode << " step " << t;
    double change = 0, size = 0;
    for (int64_t i = 0; i < base[3].size(); ++i) change += std::abs(base[3].at(i) - moved[3].at(i)), size += std::abs(base[3].at(i));
    EXPECT_GT(change, 1e-3 * size) << mode << ": a step's inputs act on its prediction";
    by_mode.push_back(base);
  }
  EXPECT_NE(by_mode[0][3].at(0), by_mode[1][3].at(0)) << "add and preact are different readings";
}

TEST(GatedModels, BatchSplitsFramesConditionsAndSeed) {
  Rng data(4);
  const tasks::Batch b = shift_batch(2, 5, 6, 3, data);
  const GatedBatch g = gated_batch(b, 5, 0, DType::f64);
  ASSERT_EQ(g.frames.size(), 6u);
  EXPECT_EQ(g.seed, 3);
  EXPECT_TRUE(g.conds.empty());
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(g.frames[0].at(i), b.inputs.dense[0].at(i));
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(g.frames[5].at(i), b.targets.dense[4].at(i));
  // 5 units of inputs read as a frame of 3 and 2 conditioning inputs: the targets' width is checked
  EXPECT_THROW(gated_batch(b, 3, 2, DType::f64), ShapeError);
}

TEST(GatedModels, OptionsAreCheckedWithClearErrors) {
  EXPECT_THROW(resolve_gating_pyramid_options("pgp", {{"layers", 3}, {"factors", {10, 10}}}), Error);
  EXPECT_THROW(resolve_gating_pyramid_options("pgp", {{"hidden", 3}}), Error);
  EXPECT_THROW(resolve_gating_pyramid_options("cpgp", {{"cond_mode", "both"}}), Error);
  EXPECT_THROW(resolve_gating_pyramid_options("fgae", {{"corruption", 1.0}}), Error);
  const nlohmann::json r = resolve_gating_pyramid_options("pgp", {{"layers", 3}, {"factors", 30}});
  EXPECT_EQ(gating_pyramid_options("pgp", r).factors, (std::vector<int64_t>{30, 30, 30}));
  Rng rng(1);
  EXPECT_THROW(GatingPyramid(pyramid("pgp", 2, 4, 3), DType::f32, rng), Error) << "pgp reads no conditions";
  EXPECT_THROW(GatingPyramid(pyramid("cpgp", 2, 4, 0), DType::f32, rng), Error) << "cpgp needs them";
  // two layers need three seed frames
  GatedObjective obj(GatingPyramid(pyramid("pgp", 2, 4), DType::f32, rng));
  Rng data(2);
  EXPECT_THROW(obj.evaluate(obj.params().values(), shift_batch(2, 4, 5, 2, data)), Error);
}

TEST(GatedModels, BaselineMatchesTheParameterCount) {
  for (auto [in, f, h] : {std::tuple{169, 200, 100}, std::tuple{10, 200, 100}, std::tuple{784, 256, 128}}) {
    const int64_t hid = pair_autoencoder_hidden(in, f, h);
    const double fgae = 2.0 * f * in + f * h + h + in, ae = 4.0 * in * hid + hid + 2.0 * in;
    EXPECT_LE(std::abs(ae - fgae), 4.0 * in + 1) << in;
  }
}

// One layer infers the shift from two frames and applies it to the second: the third and fourth frames
// (closed loop) come out far better than repeating the last frame (squared error 2 per unit here).
TEST(GatedModels, OneLayerPyramidLearnsToApplyAnInferredShift) {
  Rng init(7), data(8);
  GatingPyramidOptions o = pyramid("pgp", 1, 8);
  o.factors = {32};
  o.mappings = {8};
  GatedObjective obj(GatingPyramid(o, DType::f32, init));
  auto adam = optim::make_first_order("adam", {{"lr", 0.01}});
  ParamVec theta = obj.params().values().clone();
  const tasks::Batch test = shift_batch(500, 8, 4, 2, data);
  const double before = obj.value(theta, test);
  for (int i = 0; i < 400; ++i) {
    tasks::Batch b = shift_batch(50, 8, 4, 2, data);
    adam->step(obj, theta, b);
  }
  const double after = obj.value(theta, test);  // ½ squared error per unit
  std::printf("1-layer PGP on cyclic shifts: loss %.4f -> %.4f (copying the last frame: 1.0)\n", before, after);
  EXPECT_LT(after, 0.1);
}

}  // namespace
}  // namespace tg::models
