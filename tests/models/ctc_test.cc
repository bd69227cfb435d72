// CTC as a graph (models/ctc.h), its decoders (tasks/ctc_decode.h) and the label error rate
// (tasks/edit_distance.h): the loss equals a brute-force sum over every alignment, passes the gradient
// check at order 2 with variable lengths and repeated labels, stays finite and agrees across dtypes at
// T = 1000; the decoders find what they should on hand-made outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "core/error.h"
#include "core/ad.h"
#include "gradcheck/gradcheck.h"
#include "models/ctc.h"
#include "tasks/ctc_decode.h"
#include "ops/ops.h"
#include "tasks/edit_distance.h"
#include "tasks/random.h"

namespace tg::models {
namespace {

std::vector<Tensor> random_logits(int64_t T, int64_t B, int64_t C, double scale, uint64_t seed, DType dt) {
  Rng rng(seed);
  std::vector<Tensor> z;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> v(static_cast<size_t>(B * C));
    for (double& x : v) x = scale * tasks::standard_normal(rng);
    z.push_back(Tensor::from({B, C}, v, dt));
  }
  return z;
}

// -log Σ over every path π in C^len that collapses to `labels` of Π_t softmax(z_t)[π_t], for row b.
double brute_force(const std::vector<Tensor>& z, int64_t b, int64_t len, const std::vector<int32_t>& labels,
                   int32_t blank) {
  const int64_t C = z[0].shape()[1];
  std::vector<std::vector<double>> p;
  for (int64_t t = 0; t < len; ++t) {
    std::vector<double> row(static_cast<size_t>(C));
    double sum = 0;
    for (int64_t c = 0; c < C; ++c) sum += row[static_cast<size_t>(c)] = std::exp(z[t].at(b * C + c));
    for (double& x : row) x /= sum;
    p.push_back(row);
  }
  double total = 0;
  std::vector<int32_t> path(static_cast<size_t>(len), 0);
  std::function<void(int64_t, double)> walk = [&](int64_t t, double prob) {
    if (t == len) {
      std::vector<int32_t> collapsed;
      int32_t previous = -1;
      for (int32_t c : path) {
        if (c != blank && c != previous) collapsed.push_back(c);
        previous = c;
      }
      if (collapsed == labels) total += prob;
      return;
    }
    for (int32_t c = 0; c < C; ++c) {
      path[static_cast<size_t>(t)] = c;
      walk(t + 1, prob * p[static_cast<size_t>(t)][static_cast<size_t>(c)]);
    }
  };
  walk(0, 1.0);
  return -std::log(total);
}

std::vector<double> loss_values(const std::vector<Tensor>& z, const CtcBatch& batch) {
  Graph g;
  std::vector<Var> logits;
  for (const Tensor& t : z) logits.push_back(g.input(t));
  return ctc_neg_log_likelihood(g, logits, batch).value().to_vector();
}

TEST(Ctc, EqualsTheSumOverEveryAlignment) {
  // labels with repeats (a a needs a blank between), an empty labelling, a blank that is not class 0
  const std::vector<std::vector<int32_t>> labels = {{1, 2}, {1, 1}, {}, {2, 1, 2}, {1}};
  int compared = 0;
  for (int32_t blank : {0, 2}) {
    for (int64_t T : {1, 3, 5}) {
      const auto z = random_logits(T, 5, 3, 1.5, 11 + static_cast<uint64_t>(T), DType::f64);
      CtcBatch batch{.labels = {}, .lengths = {}, .blank = blank};
      std::vector<int64_t> rows;
      for (int64_t b = 0; b < 5; ++b) {
        std::vector<int32_t> l = labels[static_cast<size_t>(b)];
        for (int32_t& c : l) c = blank == 2 ? c - 1 : c;  // classes 0, 1 when 2 is the blank
        const int64_t len = std::max<int64_t>(1, T - b % 2);  // some sequences shorter than the batch
        if (ctc_min_steps(l) > len) continue;
        batch.labels.push_back(l);
        batch.lengths.push_back(len);
        rows.push_back(b);
      }
      if (rows.empty()) continue;
      std::vector<Tensor> zb;  // the kept rows only
      for (const Tensor& t : z) {
        std::vector<double> v;
        for (int64_t b : rows)
          for (int64_t c = 0; c < 3; ++c) v.push_back(t.at(b * 3 + c));
        zb.push_back(Tensor::from({static_cast<int64_t>(rows.size()), 3}, v, DType::f64));
      }
      const std::vector<double> got = loss_values(zb, batch);
      for (size_t i = 0; i < rows.size(); ++i) {
        const double want = brute_force(zb, static_cast<int64_t>(i), batch.lengths[i], batch.labels[i], blank);
        EXPECT_NEAR(got[i], want, 1e-12 * std::max(1.0, std::abs(want))) << "T " << T << " row " << rows[i];
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 20);
}

TEST(Ctc, PassesTheGradientCheckAtOrderTwo) {
  const CtcBatch batch{.labels = {{1, 1, 2}, {2}, {}}, .lengths = {5, 3, 4}, .blank = 0};
  const check::Fn f = [&](Graph& g, std::span<const Var> in) {
    const Var loss = ctc_neg_log_likelihood(g, in, batch);
    return std::vector<Var>{loss, ops::sum(loss)};
  };
  const check::Report r = check::check_fn(f, random_logits(5, 3, 3, 1.0, 5, DType::f64), {});
  std::printf("ctc: worst %.1e (fd %.1e dot %.1e fd2 %.1e dot2 %.1e)\n", r.worst, r.fd1, r.dot1, r.fd2, r.dot2);
  EXPECT_TRUE(r.ok) << r.failure;
}

// T = 1000 with confident outputs: the log-space recursion keeps the loss and its gradient finite, and
// float32 agrees with float64.
TEST(Ctc, StaysFiniteAndAccurateAtALengthOfOneThousand) {
  const int64_t T = 1000, B = 2, C = 12;
  Rng rng(9);
  CtcBatch batch{.labels = {{}, {}}, .lengths = {T, 700}, .blank = 0};
  for (auto& l : batch.labels)
    for (int i = 0; i < 120; ++i) l.push_back(static_cast<int32_t>(tasks::uniform_int(rng, 1, C - 1)));
  double loss64 = 0;
  for (DType dt : {DType::f64, DType::f32}) {
    const auto z = random_logits(T, B, C, 6.0, 3, dt);
    Graph g;
    std::vector<Var> logits;
    for (const Tensor& t : z) logits.push_back(g.input(t));
    const Var loss = ops::sum(ctc_neg_log_likelihood(g, logits, batch));
    const auto grads = ad::grad(loss, logits);
    double norm = 0;
    for (const Var& d : grads)
      for (double x : d.value().to_vector()) norm += x * x;
    const double value = loss.value().item();
    std::printf("ctc T=1000 %s: loss %.6f, |grad| %.4f\n", dt == DType::f64 ? "f64" : "f32", value, std::sqrt(norm));
    EXPECT_TRUE(std::isfinite(value) && std::isfinite(norm));
    if (dt == DType::f64) loss64 = value;
    else EXPECT_NEAR(value, loss64, 1e-4 * loss64);
  }
}

TEST(Ctc, ImpossibleOrBadLabelsAreErrors) {
  Graph g;
  std::vector<Var> logits;
  for (const Tensor& t : random_logits(2, 1, 3, 1, 1, DType::f64)) logits.push_back(g.input(t));
  EXPECT_THROW(ctc_neg_log_likelihood(g, logits, {.labels = {{1, 1}}, .lengths = {2}, .blank = 0}), Error);
  EXPECT_THROW(ctc_neg_log_likelihood(g, logits, {.labels = {{0}}, .lengths = {2}, .blank = 0}), Error);
  EXPECT_THROW(ctc_neg_log_likelihood(g, logits, {.labels = {{3}}, .lengths = {2}, .blank = 0}), Error);
  EXPECT_THROW(ctc_neg_log_likelihood(g, logits, {.labels = {{1}}, .lengths = {3}, .blank = 0}), Error);
}

// Best path and best labelling differ: two steps of P(blank) = 0.6, P(a) = 0.4. The best path (blank,
// blank) emits nothing (0.36), but "a" has 0.16 + 0.24 + 0.24 = 0.64: greedy finds "", the beam "a".
TEST(CtcDecode, BeamFindsTheLabellingThatGreedyMisses) {
  const double lb = std::log(0.6), la = std::log(0.4);
  const std::vector<Tensor> z(2, Tensor::from({1, 2}, std::vector<double>{lb, la}, DType::f64));
  EXPECT_EQ(tasks::ctc_greedy_decode(z, {2}, 0), (std::vector<std::vector<int32_t>>{{}}));
  EXPECT_EQ(tasks::ctc_prefix_beam_decode(z, {2}, 0, 4), (std::vector<std::vector<int32_t>>{{1}}));
}

TEST(CtcDecode, GreedyMergesRepeatsAndDropsBlanks) {
  // argmax per step: 1 1 0 1 2 2 0 (blank 0), then padding past the length
  const std::vector<int32_t> best = {1, 1, 0, 1, 2, 2, 0, 2};
  std::vector<Tensor> z;
  for (int32_t c : best) {
    std::vector<double> v(3, 0.0);
    v[static_cast<size_t>(c)] = 5;
    z.push_back(Tensor::from({1, 3}, v, DType::f64));
  }
  EXPECT_EQ(tasks::ctc_greedy_decode(z, {7}, 0), (std::vector<std::vector<int32_t>>{{1, 1, 2}}));
  EXPECT_EQ(tasks::ctc_prefix_beam_decode(z, {7}, 0, 8), (std::vector<std::vector<int32_t>>{{1, 1, 2}}));
}

TEST(EditDistance, CountsSubstitutionsInsertionsAndDeletions) {
  EXPECT_EQ(tasks::edit_distance({1, 2, 3}, {1, 2, 3}), 0);
  EXPECT_EQ(tasks::edit_distance({1, 2, 3}, {1, 3}), 1);
  EXPECT_EQ(tasks::edit_distance({1, 2, 3}, {1, 4, 3}), 1);
  EXPECT_EQ(tasks::edit_distance({}, {1, 2}), 2);
  EXPECT_EQ(tasks::edit_distance({1, 2, 3, 4}, {2, 1, 4, 3}), 3);  // no transpositions: 2 swaps cost 3
  EXPECT_DOUBLE_EQ(tasks::label_error_rate({{1, 2, 3}, {4}}, {{1, 3}, {5, 6}}), 3.0 / 4.0);
  EXPECT_THROW(tasks::label_error_rate({{}}, {{1}}), Error);
}

}  // namespace
}  // namespace tg::models

#include "models/objective.h"
#include "optim/first_order.h"

namespace tg::models {
namespace {

// A toy recognition task: each sequence spells 2-4 symbols of {0, 1, 2}, each shown for 1-3 steps as a
// noisy one-hot input and followed by one step of a gap marker (the fourth input); trailing padding.
tasks::Batch spelling_batch(int64_t B, Rng& rng) {
  std::vector<std::vector<double>> frames(static_cast<size_t>(B));
  std::vector<std::vector<int32_t>> labels(static_cast<size_t>(B));
  int64_t T = 0;
  for (int64_t s = 0; s < B; ++s) {
    const int64_t n = tasks::uniform_int(rng, 2, 4);
    for (int64_t k = 0; k < n; ++k) {
      const int32_t c = static_cast<int32_t>(tasks::uniform_int(rng, 0, 2));
      labels[s].push_back(c);
      for (int64_t d = tasks::uniform_int(rng, 1, 3); d > 0; --d)
        for (int32_t i = 0; i < 4; ++i) frames[s].push_back((i == c ? 1.0 : 0.0) + 0.1 * tasks::standard_normal(rng));
      frames[s].push_back(0), frames[s].push_back(0), frames[s].push_back(0), frames[s].push_back(1);  // a gap
    }
    T = std::max<int64_t>(T, static_cast<int64_t>(frames[s].size()) / 4);
  }
  tasks::Batch b;
  b.inputs.T = T, b.inputs.B = B;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> x(static_cast<size_t>(B * 4), 0.0), m(static_cast<size_t>(B), 0.0);
    for (int64_t s = 0; s < B; ++s)
      if (t * 4 < static_cast<int64_t>(frames[s].size())) {
        m[s] = 1;
        for (int i = 0; i < 4; ++i) x[s * 4 + i] = frames[s][t * 4 + i];
      }
    b.inputs.dense.push_back(Tensor::from({B, 4}, x, DType::f32));
    b.inputs.mask.push_back(Tensor::from({B}, m, DType::f32));
  }
  b.targets.labels = labels;
  return b;
}

// The objective's CTC branch is the mean over sequences of ctc_neg_log_likelihood (blank: the last class),
// and a small deep bidirectional LSTM trained through it by Adam learns to spell.
TEST(CtcObjective, DeepBidirectionalLstmLearnsToSpell) {
  const ModelInfo& info = find("deep_blstm");
  Rng init(1), data(2);
  auto model = info.make(resolve(info, {{"vocab", 0}, {"in", 4}, {"out", 4}, {"layers", {12, 12}}}), DType::f32, init);
  ModelObjective obj(std::move(model), ObjectiveOptions{});
  const tasks::Batch test = spelling_batch(200, data);
  ParamVec theta = obj.params().values().clone();
  auto greedy_per = [&] {
    auto ev = obj.evaluate(theta, test);
    return tasks::label_error_rate(test.targets.labels,
                                   tasks::ctc_greedy_decode(ev->output_values(), tasks::sequence_lengths(test.inputs), 3));
  };
  // the loss is the CTC of the outputs, computed apart
  {
    auto ev = obj.evaluate(theta, test);
    Graph g;
    std::vector<Var> z;
    for (const Tensor& t : ev->output_values()) z.push_back(g.input(t));
    const CtcBatch c{.labels = test.targets.labels, .lengths = tasks::sequence_lengths(test.inputs), .blank = 3};
    const double apart = ops::mean(ctc_neg_log_likelihood(g, z, c)).value().item();
    EXPECT_NEAR(ev->value(), apart, 1e-4 * apart);
  }
  const double before = greedy_per();
  auto adam = optim::make_first_order("adam", {{"lr", 0.02}});
  for (int i = 0; i < 300; ++i) {
    tasks::Batch b = spelling_batch(20, data);
    adam->step(obj, theta, b);
  }
  const double after = greedy_per();
  std::printf("deep BLSTM + CTC spelling: PER %.3f -> %.3f (300 Adam steps)\n", before, after);
  EXPECT_LT(after, 0.1);
}

}  // namespace
}  // namespace tg::models
