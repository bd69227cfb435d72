// The pathological problems (000 §3.1) and Krueger's adding task (004 §3.3) against the seeds' rules:
// lengths, marker positions (1-based in the thesis), value ranges, targets, masks, determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "tasks/example.h"
#include "tasks/task.h"
#include "tests/tasks/util.h"

namespace tg::tasks {
namespace {


struct Sampled {
  std::unique_ptr<Task> task;
  Batch batch;
  std::vector<Example> examples;
};

Sampled draw(const std::string& name, const nlohmann::json& options, int64_t B, uint64_t seed = 7) {
  Sampled s;
  s.task = make(name, options);
  Rng rng(seed);
  s.batch = s.task->sample(B, rng);
  s.examples = split(s.batch, s.task->signature());
  return s;
}

// Outputs that answer every target step exactly (one-hot logits for softmax, +-10 logits for logistic).
std::vector<Tensor> perfect_outputs(const Batch& b, const Signature& sig) {
  std::vector<Tensor> out;
  for (int64_t t = 0; t < b.steps(); ++t) {
    Tensor y = Tensor::zeros(Shape{b.size(), sig.output_dim}, DType::f32);
    float* p = y.data<float>();
    for (int64_t s = 0; s < b.size(); ++s) {
      if (sig.output == OutputKind::softmax) {
        p[s * sig.output_dim + (*b.targets.symbols[t])[s]] = 10;
      } else {
        for (int64_t k = 0; k < sig.output_dim; ++k) {
          const float v = b.targets.dense[t].data<float>()[s * sig.output_dim + k];
          p[s * sig.output_dim + k] = sig.output == OutputKind::logistic ? (v > 0.5f ? 10 : -10) : v;
        }
      }
    }
    out.push_back(y);
  }
  return out;
}

std::vector<Tensor> constant_outputs(const Batch& b, int64_t out, double v) {
  std::vector<Tensor> y;
  for (int64_t t = 0; t < b.steps(); ++t) y.push_back(Tensor::full(Shape{b.size(), out}, v, DType::f32));
  return y;
}

bool same_batch(const Batch& a, const Batch& b) {
  if (a.steps() != b.steps() || a.size() != b.size()) return false;
  for (int64_t t = 0; t < a.steps(); ++t) {
    if (!a.inputs.symbols.empty() && *a.inputs.symbols[t] != *b.inputs.symbols[t]) return false;
    if (!a.inputs.dense.empty() && a.inputs.dense[t].to_vector() != b.inputs.dense[t].to_vector()) return false;
    if (!a.targets.symbols.empty() && *a.targets.symbols[t] != *b.targets.symbols[t]) return false;
    if (!a.targets.dense.empty() && a.targets.dense[t].to_vector() != b.targets.dense[t].to_vector()) return false;
    if (a.targets.mask[t].to_vector() != b.targets.mask[t].to_vector()) return false;
  }
  return true;
}

// cues: the "code" variant's -1 cues at p = 1 and p = L - 2 (0-based t = 0 and T' - 3)
void check_marked_pairs(const std::string& name, int64_t T, bool cues = false) {
  Sampled s = draw(name, {{"T", T}, {"cues", cues ? "code" : "none"}}, 400);
  const Signature sig = s.task->signature();
  EXPECT_FALSE(sig.symbolic_input);
  EXPECT_EQ(sig.input_dim, 2);
  EXPECT_EQ(sig.output_dim, 1);
  EXPECT_EQ(sig.output, name == "xor" ? OutputKind::logistic : OutputKind::linear);
  int64_t shortest = INT64_MAX, longest = 0;
  for (const Example& e : s.examples) {
    const int64_t L = e.length;
    shortest = std::min(shortest, L);
    longest = std::max(longest, L);
    ASSERT_GE(L, T);
    ASSERT_LE(L, 11 * T / 10);
    std::vector<int64_t> marked;  // 1-based positions
    for (int64_t p = 1; p <= L; ++p) {
      const double u = e.input_dense[2 * (p - 1)], m = e.input_dense[2 * (p - 1) + 1];
      if (name == "xor") EXPECT_TRUE(u == 0 || u == 1);
      else EXPECT_TRUE(u >= 0 && u < 1);
      if (cues && (p == 1 || p == L - 2)) EXPECT_EQ(m, -1) << "cue at step " << p;
      else EXPECT_TRUE(m == 0 || m == 1) << "step " << p;
      if (m == 1) marked.push_back(p);
      EXPECT_EQ(e.input_mask[p - 1], 1);
      EXPECT_EQ(e.loss_mask[p - 1], p == L ? 1 : 0) << "only the last step has a target";
    }
    ASSERT_EQ(marked.size(), 2u);
    EXPECT_GE(marked[0], cues ? 2 : 1);
    EXPECT_LE(marked[0], L / 10);
    EXPECT_GE(marked[1], L / 10);
    EXPECT_LE(marked[1], L / 2);
    const double a = e.input_dense[2 * (marked[0] - 1)], b = e.input_dense[2 * (marked[1] - 1)];
    const double want = name == "addition" ? (a + b) / 2 : name == "multiplication" ? a * b : double((a == 1) != (b == 1));
    EXPECT_FLOAT_EQ(e.target_dense[L - 1], want) << "batches are float32";
  }
  EXPECT_EQ(shortest, T) << "lengths should cover i[T, 11T/10]";
  EXPECT_EQ(longest, 11 * T / 10);
  // Padding: input and loss masks 0 after each sequence's own end, and the batch is as long as the longest.
  EXPECT_EQ(s.batch.steps(), longest);
  ASSERT_EQ(static_cast<int64_t>(s.batch.inputs.mask.size()), longest);
  for (int64_t i = 0; i < s.batch.size(); ++i) {
    const int64_t L = s.examples[i].length;
    for (int64_t t = 0; t < longest; ++t) {
      EXPECT_EQ(s.batch.inputs.mask[t].at(i), t < L ? 1 : 0);
      EXPECT_EQ(s.batch.targets.mask[t].at(i), t == L - 1 ? 1 : 0);
    }
  }
}

TEST(Pathological, AdditionFollowsTheThesisRules) { check_marked_pairs("addition", 50); }
TEST(Pathological, MultiplicationFollowsTheThesisRules) { check_marked_pairs("multiplication", 30); }
TEST(Pathological, XorFollowsTheThesisRules) { check_marked_pairs("xor", 40); }
TEST(Pathological, AdditionWithTheReleasedCodesCues) { check_marked_pairs("addition", 80, /*cues=*/true); }
TEST(Pathological, CuesNeedRoomBeforeTheFirstMarker) {
  EXPECT_THROW(make("addition", {{"T", 19}, {"cues", "code"}}), Error);
  EXPECT_THROW(make("addition", {{"cues", "start"}}), Error);
}

TEST(Pathological, ContinuousErrorUsesTheTolerance) {
  Sampled s = draw("addition", {{"T", 20}}, 50);
  const Signature sig = s.task->signature();
  std::vector<Tensor> y = perfect_outputs(s.batch, sig);
  EXPECT_EQ(s.task->error_rate(s.batch, y), 0.0);
  for (Tensor& t : y)
    for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] += 0.035f;
  EXPECT_EQ(s.task->error_rate(s.batch, y), 0.0) << "0.035 is within 0.04";
  for (Tensor& t : y)
    for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] += 0.01f;
  EXPECT_EQ(s.task->error_rate(s.batch, y), 1.0) << "0.045 is not";
  EXPECT_EQ(s.task->success_threshold(), 0.01);
}

TEST(Pathological, ChanceLevelsMatchConstantPredictors) {
  for (auto [name, best_constant] : {std::pair{"addition", 0.5}, std::pair{"multiplication", 0.04}}) {
    Sampled s = draw(name, {{"T", 10}}, 20000, 3);
    const double err = s.task->error_rate(s.batch, constant_outputs(s.batch, 1, best_constant));
    EXPECT_NEAR(err, s.task->chance_level(), 0.012) << name;
  }
  EXPECT_NEAR(make("addition", {})->chance_level(), 0.8464, 1e-9);
  EXPECT_NEAR(make("multiplication", {})->chance_level(), 1 - (0.08 - 0.08 * std::log(0.08)), 1e-12);
  EXPECT_EQ(make("xor", {})->chance_level(), 0.5);
}

TEST(Pathological, TemporalOrderTwoAndThreeBits) {
  for (int bits : {2, 3}) {
    const int64_t T = 100;
    Sampled s = draw("temporal_order", {{"T", T}, {"bits", bits}}, 300);
    const Signature sig = s.task->signature();
    EXPECT_TRUE(sig.symbolic_input);
    EXPECT_EQ(sig.input_dim, 6);
    EXPECT_EQ(sig.output_dim, bits == 2 ? 4 : 8);
    EXPECT_TRUE(s.batch.inputs.mask.empty()) << "fixed length: no input masks";
    const std::vector<std::pair<int64_t, int64_t>> ranges =
        bits == 2 ? std::vector<std::pair<int64_t, int64_t>>{{10, 20}, {50, 60}}
                  : std::vector<std::pair<int64_t, int64_t>>{{10, 20}, {30, 40}, {60, 70}};
    std::vector<int> seen_class(sig.output_dim, 0);
    for (const Example& e : s.examples) {
      ASSERT_EQ(e.length, T);
      std::vector<int64_t> special;
      int32_t cls = 0;
      for (int64_t p = 1; p <= T; ++p) {
        const int32_t v = e.input_symbols[p - 1];  // symbol v + 1
        EXPECT_TRUE(v >= 0 && v <= 5);
        if (v <= 1) {
          special.push_back(p);
          cls = cls * 2 + v;
        }
        EXPECT_EQ(e.loss_mask[p - 1], p == T ? 1 : 0);
      }
      ASSERT_EQ(special.size(), ranges.size());
      for (size_t k = 0; k < ranges.size(); ++k) {
        EXPECT_GE(special[k], ranges[k].first);
        EXPECT_LE(special[k], ranges[k].second);
      }
      EXPECT_EQ(e.target_symbols[T - 1], cls);
      ++seen_class[cls];
    }
    for (int c : seen_class) EXPECT_GT(c, 0) << "every class occurs";
    EXPECT_EQ(s.task->error_rate(s.batch, perfect_outputs(s.batch, sig)), 0.0);
    EXPECT_DOUBLE_EQ(s.task->chance_level(), bits == 2 ? 0.75 : 0.875);
  }
}

TEST(Pathological, RandomPermutation) {
  const int64_t T = 30;
  Sampled s = draw("random_permutation", {{"T", T}}, 200);
  const Signature sig = s.task->signature();
  EXPECT_EQ(sig.input_dim, 100);
  EXPECT_EQ(sig.output_dim, 100);
  for (const Example& e : s.examples) {
    ASSERT_EQ(e.length, T - 1);  // inputs v_1..v_{T-1}, targets v_2..v_T
    EXPECT_TRUE(e.input_symbols[0] == 0 || e.input_symbols[0] == 1);
    for (int64_t t = 1; t < T - 1; ++t) EXPECT_TRUE(e.input_symbols[t] >= 2 && e.input_symbols[t] <= 99);
    for (int64_t t = 0; t + 1 < T - 1; ++t) EXPECT_EQ(e.target_symbols[t], e.input_symbols[t + 1]);
    EXPECT_EQ(e.target_symbols[T - 2], e.input_symbols[0]) << "the last symbol equals the first";
    for (uint8_t m : e.loss_mask) EXPECT_EQ(m, 1) << "a target at every step";
  }
  // Only the last step is scored: perfect there and wrong elsewhere is a success.
  std::vector<Tensor> y = perfect_outputs(s.batch, sig);
  for (int64_t t = 0; t + 1 < s.batch.steps(); ++t) y[t].fill(0);  // argmax 0: wrong at most steps
  EXPECT_EQ(s.task->error_rate(s.batch, y), 0.0);
  y.back().fill(0);
  EXPECT_GT(s.task->error_rate(s.batch, y), 0.3);
}

TEST(Pathological, MemorizationFiveAndTwentyBits) {
  for (int bits : {5, 20}) {
    const int64_t T = 30, L = bits == 5 ? 5 : 10, K = bits == 5 ? 2 : 5;
    Sampled s = draw("memorization", {{"T", T}, {"bits", bits}}, 100);
    const Signature sig = s.task->signature();
    EXPECT_EQ(sig.input_dim, K + 2);   // values 1..K, constant K+1, trigger K+2
    EXPECT_EQ(sig.output_dim, K + 1);  // values and the constant
    for (const Example& e : s.examples) {
      ASSERT_EQ(e.length, T + 2 * L);
      for (int64_t p = 1; p <= T + 2 * L; ++p) {
        const int32_t v = e.input_symbols[p - 1] + 1, y = e.target_symbols[p - 1] + 1;
        if (p <= L) EXPECT_TRUE(v >= 1 && v <= K);
        else if (p == T + L) EXPECT_EQ(v, K + 2) << "the trigger";
        else EXPECT_EQ(v, K + 1) << "the constant input";
        if (p <= T + L) EXPECT_EQ(y, K + 1);
        else EXPECT_EQ(y, e.input_symbols[p - T - L - 1] + 1) << "recall of v_" << p - T - L;
        EXPECT_EQ(e.loss_mask[p - 1], 1);
      }
    }
  }
  // The two metrics: one wrong recall step per sequence.
  for (const char* metric : {"sequence", "timestep"}) {
    Sampled s = draw("memorization", {{"T", 20}, {"metric", metric}}, 40);
    std::vector<Tensor> y = perfect_outputs(s.batch, s.task->signature());
    EXPECT_EQ(s.task->error_rate(s.batch, y), 0.0);
    Tensor& last = y.back();
    for (int64_t i = 0; i < s.batch.size(); ++i) {
      const int32_t target = (*s.batch.targets.symbols.back())[i];
      last.data<float>()[i * 3 + target] = -10;
    }
    EXPECT_DOUBLE_EQ(s.task->error_rate(s.batch, y), std::string(metric) == "sequence" ? 1.0 : 1.0 / 5);
  }
}

// blank "zero": the same draws as dense one-hot inputs, the constant steps' input the zero vector.
TEST(Pathological, MemorizationWithZeroBlankInputs) {
  for (int bits : {5, 20}) {
    const int64_t T = 30, L = bits == 5 ? 5 : 10, K = bits == 5 ? 2 : 5;
    Sampled sym = draw("memorization", {{"T", T}, {"bits", bits}}, 50);
    Sampled zero = draw("memorization", {{"T", T}, {"bits", bits}, {"blank", "zero"}}, 50);
    const Signature sig = zero.task->signature();
    EXPECT_FALSE(sig.symbolic_input);
    EXPECT_EQ(sig.input_dim, K + 2);
    EXPECT_EQ(sig.output, OutputKind::softmax);
    EXPECT_EQ(sig.output_dim, K + 1);
    ASSERT_EQ(zero.examples.size(), sym.examples.size());
    for (size_t i = 0; i < sym.examples.size(); ++i) {
      const Example &a = sym.examples[i], &z = zero.examples[i];
      ASSERT_EQ(z.length, T + 2 * L);
      EXPECT_EQ(z.target_symbols, a.target_symbols) << "the same targets from the same draws";
      for (int64_t t = 0; t < z.length; ++t) {
        const int32_t v = a.input_symbols[t];
        for (int64_t k = 0; k < K + 2; ++k) {
          const double want = v != K && k == v ? 1.0 : 0.0;  // symbol K (0-based) is the constant: no input
          EXPECT_EQ(z.input_dense[t * (K + 2) + k], want) << "step " << t << ", coordinate " << k;
        }
      }
    }
  }
  EXPECT_THROW(make("memorization", {{"blank", "none"}}), Error);
}

TEST(Krueger, AddingTaskAtT400) {
  Sampled s = draw("adding", {}, 300);
  EXPECT_EQ(s.batch.steps(), 400);
  EXPECT_TRUE(s.batch.inputs.mask.empty());
  int64_t wrong_half = 0;
  for (const Example& e : s.examples) {
    ASSERT_EQ(e.length, 400);
    std::vector<int64_t> marked;
    for (int64_t t = 0; t < 400; ++t) {
      EXPECT_TRUE(e.input_dense[2 * t] >= 0 && e.input_dense[2 * t] < 1);
      if (e.input_dense[2 * t + 1] == 1) marked.push_back(t);
      EXPECT_EQ(e.loss_mask[t], t == 399 ? 1 : 0);
    }
    ASSERT_EQ(marked.size(), 2u);
    wrong_half += !(marked[0] < 200 && marked[1] >= 200);
    EXPECT_FLOAT_EQ(e.target_dense[399], e.input_dense[2 * marked[0]] + e.input_dense[2 * marked[1]]) << "the plain sum";
  }
  EXPECT_EQ(wrong_half, 0);
  // Error measure: MSE. The constant 1 scores about 1/6 (chance); 1/12 is the success threshold.
  Sampled big = draw("adding", {{"T", 20}}, 20000);
  EXPECT_NEAR(big.task->error_rate(big.batch, constant_outputs(big.batch, 1, 1.0)), 1.0 / 6, 0.006);
  EXPECT_DOUBLE_EQ(big.task->success_threshold(), 1.0 / 12);
  EXPECT_EQ(big.task->error_rate(big.batch, perfect_outputs(big.batch, big.task->signature())), 0.0);
  // Uniform placement: distinct positions anywhere.
  Sampled u = draw("adding", {{"T", 10}, {"placement", "uniform"}}, 500);
  int64_t both_first_half = 0;
  for (const Example& e : u.examples) {
    int64_t n = 0, first_half = 0;
    for (int64_t t = 0; t < 10; ++t)
      if (e.input_dense[2 * t + 1] == 1) ++n, first_half += t < 5;
    EXPECT_EQ(n, 2);
    both_first_half += first_half == 2;
  }
  EXPECT_GT(both_first_half, 0);
}

TEST(Generators, DeterministicBySeed) {
  for (const char* name : {"addition", "xor", "temporal_order", "random_permutation", "memorization", "adding"}) {
    const nlohmann::json opt = {{"T", 20}};
    EXPECT_TRUE(same_batch(draw(name, opt, 8, 11).batch, draw(name, opt, 8, 11).batch)) << name;
    EXPECT_FALSE(same_batch(draw(name, opt, 8, 11).batch, draw(name, opt, 8, 12).batch)) << name;
  }
  // Two draws of 4 equal one draw of 8: a batch is a run of independent sequences.
  auto task = make("addition", {{"T", 20}});
  Rng a(5), b(5);
  Batch first = task->sample(4, a), second = task->sample(4, a), both = task->sample(8, b);
  std::vector<Example> ex1 = split(first, task->signature()), ex2 = split(second, task->signature()),
                       all = split(both, task->signature());
  ex1.insert(ex1.end(), ex2.begin(), ex2.end());
  ASSERT_EQ(ex1.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(ex1[i].input_dense, all[i].input_dense);
}

}  // namespace
}  // namespace tg::tasks
