// Dropout in the deep bidirectional net (Krueger's "up the stack only"): output_dropout's mask has a
// column for every unit of every layer, layer by layer ([fwd, bwd] of layer 1, then of layer 2, ...);
// each layer's part masks that layer's output on its way up, never its recurrence.
#include <gtest/gtest.h>

#include "core/error.h"
#include "gradcheck/model_specs.h"
#include "models/model.h"

namespace tg::models {
namespace {

Sequence dense_batch(int64_t T, int64_t B, uint64_t seed) {
  Sequence xs;
  xs.T = T;
  xs.B = B;
  Rng rng(seed);
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> x(static_cast<size_t>(B * 2));
    for (double& v : x) v = std::normal_distribution<double>(0, 1)(rng);
    xs.dense.push_back(Tensor::from({B, 2}, x, DType::f64));
  }
  return xs;
}

// T masks [B, 10] (layer 1: 3 + 3 units, layer 2: 2 + 2), column j set to value(j).
template <class F>
std::vector<Tensor> masks(int64_t T, int64_t B, F value) {
  std::vector<Tensor> out;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> v(static_cast<size_t>(B * 10));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < 10; ++j) v[b * 10 + j] = value(j);
    out.push_back(Tensor::from({B, 10}, v, DType::f64));
  }
  return out;
}

std::vector<std::vector<double>> logits(const Model& m, const Sequence& xs) {
  Graph g;
  std::vector<std::vector<double>> out;
  for (const Var& z : m.unroll(g, xs).logits) out.push_back(z.value().to_vector());
  return out;
}

TEST(DeepBlstmDropout, MaskColumnsReachTheirLayers) {
  auto m = check::make_model(
      check::ModelSpec{"deep_blstm", "deep_blstm", {{"vocab", 0}, {"in", 2}, {"out", 3}, {"layers", {3, 2}}}}, 2);
  ASSERT_TRUE(m->supports_dropout());
  ASSERT_EQ(m->dropout_units(), 10);
  const int64_t T = 4, B = 2;
  Sequence xs = dense_batch(T, B, 9);
  const auto plain = logits(*m, xs);
  xs.readout_keep = masks(T, B, [](int64_t) { return 1.0; });
  EXPECT_EQ(logits(*m, xs), plain);  // keeping every unit changes nothing
  // dropping all of layer 2 leaves the output layer its bias only, whatever layer 1 does
  xs.readout_keep = masks(T, B, [](int64_t j) { return j < 6 ? 1.0 : 0.0; });
  const auto top_dropped = logits(*m, xs);
  xs.readout_keep = masks(T, B, [](int64_t j) { return j < 6 ? 2.0 : 0.0; });
  EXPECT_EQ(logits(*m, xs), top_dropped);
  for (size_t t = 1; t < top_dropped.size(); ++t) EXPECT_EQ(top_dropped[t], top_dropped[0]);
  // dropping all of layer 1 changes the output (layer 2 then reads zeros), and scaling layer 2's
  // units by 2 is not the plain output either: each part reaches its own layer
  xs.readout_keep = masks(T, B, [](int64_t j) { return j < 6 ? 0.0 : 1.0; });
  EXPECT_NE(logits(*m, xs), plain);
  xs.readout_keep = masks(T, B, [](int64_t j) { return j < 6 ? 1.0 : 2.0; });
  EXPECT_NE(logits(*m, xs), plain);
}

TEST(DeepBlstmDropout, InputMasksReachTheFrames) {
  auto m = check::make_model(
      check::ModelSpec{"deep_blstm", "deep_blstm", {{"vocab", 0}, {"in", 2}, {"out", 3}, {"layers", {3, 2}}}}, 2);
  const int64_t T = 4, B = 2;
  Sequence xs = dense_batch(T, B, 9);
  const auto plain = logits(*m, xs);
  auto input_masks = [&](double keep) {
    std::vector<Tensor> k;
    for (int64_t t = 0; t < T; ++t) k.push_back(Tensor::from({B, 2}, std::vector<double>(B * 2, keep), DType::f64));
    return k;
  };
  xs.input_keep = input_masks(1.0);
  EXPECT_EQ(logits(*m, xs), plain);
  xs.input_keep = input_masks(0.0);  // every frame dropped: the net sees zeros
  const auto dropped = logits(*m, xs);
  Sequence zeros = dense_batch(T, B, 9);
  for (Tensor& x : zeros.dense) x = Tensor::from({B, 2}, std::vector<double>(B * 2, 0.0), DType::f64);
  EXPECT_EQ(dropped, logits(*m, zeros));
  EXPECT_NE(dropped, plain);
  // a mask of another width is refused
  xs.input_keep.clear();
  xs.readout_keep = masks(T, B, [](int64_t) { return 1.0; });
  xs.readout_keep[0] = Tensor::from({B, 9}, std::vector<double>(B * 9, 1.0), DType::f64);
  Graph g;
  EXPECT_THROW(m->unroll(g, xs), Error);
}

}  // namespace
}  // namespace tg::models
