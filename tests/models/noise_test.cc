// Dropout on non-recurrent connections and additive weight noise: what the masks are, that they act
// on the inputs and on the output layer's input only, that they travel with a batch's slices, that
// weight noise is an evaluation at θ + ε, that runs without noise draw no random numbers, and float64
// gradient checks with masks attached.
#include <gtest/gtest.h>

#include "core/ad.h"
#include "models/loss.h"
#include "models/objective.h"
#include "tests/harness/error_of.h"
#include "gradcheck/model_specs.h"

namespace tg::models {
namespace {

std::unique_ptr<Model> tiny(const std::string& model, const nlohmann::json& opts, uint64_t seed = 1) {
  return check::make_model(check::ModelSpec{model, model, opts}, seed);
}
const nlohmann::json kDense = {{"vocab", 0}, {"in", 4}, {"out", 2}, {"hidden", 3}, {"output", "linear"}};
const nlohmann::json kSymbolic = {{"vocab", 5}, {"hidden", 3}};

tasks::Batch batch_of(const Model& m, int64_t T = 4, int64_t B = 3, uint64_t seed = 7) {
  check::TinyBatch tb = check::tiny_batch(m, T, B, seed);
  return tasks::Batch{tb.xs, tb.ys, {}, nullptr};
}

TEST(Dropout, MasksAreBernoulliScaledAndReproducible) {
  auto m = tiny("rnn", kDense);
  tasks::Batch b = batch_of(*m, 5, 400);
  NoiseOptions o{.input_dropout = 0.3, .output_dropout = 0.5};
  Rng r1(42), r2(42);
  tasks::Batch b1 = b, b2 = b;
  draw_noise(b1, o, *m, r1);
  draw_noise(b2, o, *m, r2);
  ASSERT_EQ(b1.inputs.input_keep.size(), 5u);
  ASSERT_EQ(b1.inputs.readout_keep.size(), 5u);
  EXPECT_EQ(b1.inputs.input_keep[0].shape(), (Shape{400, 4}));
  EXPECT_EQ(b1.inputs.readout_keep[0].shape(), (Shape{400, 3}));
  for (auto [masks, p] : {std::pair{&b1.inputs.input_keep, 0.3}, std::pair{&b1.inputs.readout_keep, 0.5}}) {
    double zeros = 0, n = 0, sum = 0;
    for (const Tensor& k : *masks)
      for (int64_t i = 0; i < k.size(); ++i) {
        const double v = k.at(i);
        EXPECT_TRUE(v == 0 || v == 1 / (1 - p)) << v;
        zeros += v == 0;
        sum += v;
        ++n;
      }
    std::printf("p = %.1f: dropped fraction %.4f, mean factor %.4f over %.0f units\n", p, zeros / n, sum / n, n);
    EXPECT_NEAR(zeros / n, p, 0.03);
    EXPECT_NEAR(sum / n, 1.0, 0.06);
  }
  for (size_t t = 0; t < 5; ++t) EXPECT_EQ(b1.inputs.input_keep[t].to_vector(), b2.inputs.input_keep[t].to_vector());
  // symbolic inputs: one factor per sequence and step
  auto s = tiny("rnn", kSymbolic);
  tasks::Batch bs = batch_of(*s);
  Rng r3(1);
  draw_noise(bs, {.input_dropout = 0.2}, *s, r3);
  EXPECT_EQ(bs.inputs.input_keep[0].shape(), (Shape{3}));
}

TEST(Dropout, NoNoiseDrawsNoRandomNumbers) {
  auto m = tiny("rnn", kDense);
  tasks::Batch b = batch_of(*m);
  Rng r(5), fresh(5);
  draw_noise(b, {}, *m, r);
  EXPECT_EQ(r, fresh);
  EXPECT_TRUE(b.inputs.input_keep.empty() && b.inputs.readout_keep.empty() && !b.weight_noise);
}

// The objective's loss on b at a fresh tiny model's parameters (optionally edited).
double value(const std::string& model, const nlohmann::json& opts, const tasks::Batch& b,
             const std::function<void(ParamSet&)>& edit = {}) {
  auto m = tiny(model, opts);
  if (edit) edit(m->params());
  ParamVec theta = m->params().values().clone();
  ModelObjective obj(std::move(m));
  return obj.value(theta, b);
}

TEST(Dropout, AllOnesMasksChangeNothing) {
  for (const auto& opts : {kDense, kSymbolic}) {
    auto m = tiny("lstm", opts);
    tasks::Batch b = batch_of(*m), k = b;
    const int64_t in = m->io().symbolic() ? 1 : m->io().in;
    for (int64_t t = 0; t < b.steps(); ++t) {
      k.inputs.input_keep.push_back(in == 1 ? Tensor::full({3}, 1.0, DType::f64) : Tensor::full({3, in}, 1.0, DType::f64));
      k.inputs.readout_keep.push_back(Tensor::full({3, 3}, 1.0, DType::f64));
    }
    EXPECT_EQ(value("lstm", opts, b), value("lstm", opts, k));
  }
}

TEST(Dropout, InputMaskIsTheInputTimesTheFactor) {
  auto m = tiny("rnn", kDense);
  tasks::Batch b = batch_of(*m);
  Rng r(9);
  draw_noise(b, {.input_dropout = 0.5}, *m, r);
  tasks::Batch manual = b;  // the same inputs multiplied by the factors, no masks
  manual.inputs.input_keep.clear();
  for (int64_t t = 0; t < b.steps(); ++t) {
    Tensor x = b.inputs.dense[t].clone();
    for (int64_t i = 0; i < x.size(); ++i) x.data<double>()[i] *= b.inputs.input_keep[t].at(i);
    manual.inputs.dense[t] = x;
  }
  const double masked = value("rnn", kDense, b), by_hand = value("rnn", kDense, manual);
  EXPECT_NEAR(masked, by_hand, 1e-15 * std::abs(by_hand));
  EXPECT_NE(masked, value("rnn", kDense, batch_of(*m)));
}

TEST(Dropout, DroppedSymbolsAndReadoutsLeaveOnlyWhatIsNotDropped) {
  auto m = tiny("gru", kSymbolic);
  tasks::Batch b = batch_of(*m);
  // every input symbol dropped: the loss no longer depends on which symbols they were
  tasks::Batch all = b, other = b;
  for (int64_t t = 0; t < b.steps(); ++t) all.inputs.input_keep.push_back(Tensor::zeros({3}, DType::f64));
  other.inputs.input_keep = all.inputs.input_keep;
  for (auto& s : other.inputs.symbols) {
    std::vector<int32_t> v(s->begin(), s->end());
    for (int32_t& x : v) x = (x + 1) % 5;
    s = ops::make_index(std::move(v));
  }
  EXPECT_EQ(value("gru", kSymbolic, all), value("gru", kSymbolic, other));
  tasks::Batch other_unmasked = other;  // without dropout the symbols do matter
  other_unmasked.inputs.input_keep.clear();
  EXPECT_NE(value("gru", kSymbolic, b), value("gru", kSymbolic, other_unmasked));
  // every readout unit dropped: the logits are the output bias alone, as with W_oh = 0
  tasks::Batch r = b;
  for (int64_t t = 0; t < b.steps(); ++t) r.inputs.readout_keep.push_back(Tensor::zeros({3, 3}, DType::f64));
  auto zero_w_oh = [](ParamSet& ps) { ps.value(*ps.find("gru/W_oh")).fill(0); };
  EXPECT_EQ(value("gru", kSymbolic, r), value("gru", kSymbolic, b, zero_w_oh));
  EXPECT_NE(value("gru", kSymbolic, r), value("gru", kSymbolic, b));
}

TEST(Dropout, MasksAndWeightNoiseTravelWithSlices) {
  auto m = tiny("rnn", kDense);
  tasks::Batch b = batch_of(*m, 3, 5);
  Rng r(3);
  draw_noise(b, {.input_dropout = 0.4, .output_dropout = 0.4, .weight_noise = 0.1}, *m, r);
  tasks::Batch s = tasks::slice(b, 2, 2);
  EXPECT_EQ(s.weight_noise.get(), b.weight_noise.get());
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t i = 0; i < 2 * 4; ++i) EXPECT_EQ(s.inputs.input_keep[t].at(i), b.inputs.input_keep[t].at(2 * 4 + i));
    for (int64_t i = 0; i < 2 * 3; ++i) EXPECT_EQ(s.inputs.readout_keep[t].at(i), b.inputs.readout_keep[t].at(2 * 3 + i));
  }
  // the slice's loss is the loss of those sequences with those masks: sequence by sequence it adds up
  auto m2 = tiny("rnn", kDense);
  ParamVec theta = m2->params().values().clone();
  ModelObjective obj(std::move(m2));
  double total = 0, w = 0;
  for (int64_t n = 0; n < 5; ++n) {
    tasks::Batch one = tasks::slice(b, n, 1);
    total += obj.weight(one) * obj.value(theta, one);
    w += obj.weight(one);
  }
  EXPECT_NEAR(total / w, obj.value(theta, b), 1e-14);
}

TEST(WeightNoise, IsAnEvaluationAtThetaPlusEpsilon) {
  auto m = tiny("lstm", kSymbolic);
  tasks::Batch b = batch_of(*m);
  Rng r(11);
  draw_noise(b, {.weight_noise = 0.05}, *m, r);
  ASSERT_TRUE(b.weight_noise);
  EXPECT_NEAR(b.weight_noise->norm() / std::sqrt(static_cast<double>(b.weight_noise->size())), 0.05, 0.02);
  ParamVec theta = m->params().values().clone();
  ModelObjective obj(std::move(m));
  tasks::Batch clean = b;
  clean.weight_noise = nullptr;
  auto noisy = obj.evaluate(theta, b);
  auto shifted = obj.evaluate(theta.clone().axpy(1.0, *b.weight_noise), clean);
  EXPECT_EQ(noisy->value(), shifted->value());
  EXPECT_EQ(noisy->grad().flat().to_vector(), shifted->grad().flat().to_vector());
  EXPECT_NE(noisy->value(), obj.value(theta, clean));
}

TEST(Dropout, GradientChecksWithMasks) {
  for (const auto& [model, opts] : {std::pair{"lstm", kDense}, std::pair{"rnn", kSymbolic}}) {
    SCOPED_TRACE(model);
    auto m = tiny(model, opts);
    check::TinyBatch tb = check::tiny_batch(*m);
    tasks::Batch b{tb.xs, tb.ys, {}, nullptr};
    Rng r(2);
    draw_noise(b, {.input_dropout = 0.3, .output_dropout = 0.3}, *m, r);
    tb.xs = b.inputs;
    check::Report rep = check::check_fn(check::model_loss_fn(*m, tb), ad::unpack(m->params().values()));
    EXPECT_TRUE(rep.ok) << rep.failure;
  }
}

TEST(Dropout, BadOptionsAndUnsupportedModelsAreClearErrors) {
  using check::contains;
  using check::error_of;
  EXPECT_TRUE(contains(error_of([] { objective_options_from_json({{"input_dropout", 1.0}}); }), "input_dropout must be in [0, 1)"));
  EXPECT_TRUE(contains(error_of([] { objective_options_from_json({{"output_dropout", -0.1}}); }), "output_dropout"));
  EXPECT_TRUE(contains(error_of([] { objective_options_from_json({{"weight_noise", -1}}); }), "weight_noise must be >= 0"));
  auto m = tiny("gated_feedback", {{"vocab", 5}, {"layers", {3, 2}}});
  tasks::Batch b = batch_of(*m);
  Rng r(1);
  EXPECT_TRUE(contains(error_of([&] { draw_noise(b, {.output_dropout = 0.5}, *m, r); }), "does not support"));
}

}  // namespace
}  // namespace tg::models
