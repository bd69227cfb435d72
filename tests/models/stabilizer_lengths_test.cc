// The norm-stabilizer over sequences of different lengths (trailing padding): each sequence's terms on
// its real steps, over its own length, and a deep bidirectional net's penalty (every layer and
// direction) unchanged by padding; the masked penalty's gradient checks.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "gradcheck/gradcheck.h"
#include "gradcheck/model_specs.h"
#include "models/model.h"
#include "models/regularizers.h"

namespace tg::models {
namespace {

const nlohmann::json kDeep = {{"vocab", 0}, {"in", 2}, {"out", 3}, {"layers", {3, 2}}};

// B sequences of dense inputs, sequence b with lengths[b] real steps, the rest padding.
Sequence padded(const std::vector<int64_t>& lengths, int64_t T, uint64_t seed) {
  Sequence xs;
  xs.T = T;
  xs.B = static_cast<int64_t>(lengths.size());
  Rng rng(seed);
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> x(static_cast<size_t>(xs.B * 2)), m(static_cast<size_t>(xs.B));
    for (double& v : x) v = std::normal_distribution<double>(0, 1)(rng);
    for (int64_t b = 0; b < xs.B; ++b) m[b] = t < lengths[b] ? 1.0 : 0.0;
    xs.dense.push_back(Tensor::from({xs.B, 2}, x, DType::f64));
    xs.mask.push_back(Tensor::from({xs.B}, m, DType::f64));
  }
  return xs;
}

// Sequence b of xs alone, its real steps only.
Sequence alone(const Sequence& xs, int64_t b, int64_t length) {
  Sequence one;
  one.T = length;
  one.B = 1;
  for (int64_t t = 0; t < length; ++t) {
    const std::vector<double> x = xs.dense[t].to_vector();
    const std::vector<double> row = {x[b * 2], x[b * 2 + 1]};
    one.dense.push_back(Tensor::from({1, 2}, row, DType::f64));
  }
  return one;
}

double penalty(const Model& m, const Sequence& xs, const StabilityPenalty& p) {
  Graph g;
  Outputs out = m.unroll(g, xs);
  double total = 0;
  for (const std::vector<Var>& states : out.layer_states) {
    Var r = stability_penalty(states, Var(), p, xs.mask);
    if (!r.empty()) total += r.value().item();
  }
  return total;
}

TEST(StabilizerLengths, DeepBidirectionalPenaltyIsUnchangedByPadding) {
  auto m = check::make_model(check::ModelSpec{"deep_blstm", "deep_blstm", kDeep}, 3);
  const std::vector<int64_t> lengths = {6, 4, 2};
  const Sequence xs = padded(lengths, 6, 11);
  Graph g;
  EXPECT_EQ(m->unroll(g, xs).layer_states.size(), 4u);  // two layers, two directions each
  for (const char* kind : {"norm", "state_diff", "target_norm"}) {
    SCOPED_TRACE(kind);
    const StabilityPenalty p{.kind = kind, .beta = 2.5, .target = 0.3};
    double want = 0;
    for (size_t b = 0; b < lengths.size(); ++b)
      want += penalty(*m, alone(xs, static_cast<int64_t>(b), lengths[b]), p) / static_cast<double>(lengths.size());
    EXPECT_GT(want, 0);
    EXPECT_NEAR(penalty(*m, xs, p), want, 1e-13 * want);
  }
}

TEST(StabilizerLengths, AllRealStepsGiveTheUnmaskedPenalty) {
  auto m = check::make_model(check::ModelSpec{"rnn", "rnn", {{"vocab", 0}, {"in", 2}, {"hidden", 3}, {"out", 2}}}, 5);
  Sequence xs = padded({5, 5}, 5, 7);
  Graph g;
  Outputs out = m->unroll(g, xs);
  for (bool skip_first : {true, false}) {
    const StabilityPenalty p{.kind = "norm", .beta = 1.5, .skip_first = skip_first};
    const double plain = stability_penalty(out.hidden, out.initial, p).value().item();
    const double masked = stability_penalty(out.hidden, out.initial, p, xs.mask).value().item();
    EXPECT_NEAR(masked, plain, 1e-14 * plain);
  }
}

TEST(StabilizerLengths, MaskedPenaltyGradientChecks) {
  auto m = check::make_model(check::ModelSpec{"deep_blstm", "deep_blstm", kDeep}, 3);
  const Sequence xs = padded({5, 3}, 5, 13);
  const StabilityPenalty p{.kind = "norm", .beta = 2.0};
  check::Fn f = [&](Graph& g, std::span<const Var> theta) {
    g.bind(m->params(), theta);
    Outputs o = m->unroll(g, xs);
    Var total;
    for (const std::vector<Var>& states : o.layer_states) total = ops::add(total, stability_penalty(states, Var(), p, xs.mask));
    return std::vector<Var>{total};
  };
  check::Report rep = check::check_fn(f, ad::unpack(m->params().values()));
  EXPECT_TRUE(rep.ok) << rep.failure << " fd " << rep.fd1 << " dot " << rep.dot1 << " fd2 " << rep.fd2;
}

}  // namespace
}  // namespace tg::models
