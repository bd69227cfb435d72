// Ollivier's four problems (003 §7): each generated text parsed back against the rules, the true
// generator's bits recomputed from the text, the task's batches (virtual "\n" first, shifted targets,
// chi masks), and cumulative regret with and without the 1/(t+2) mixing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tasks/example.h"
#include "tasks/ollivier_tasks.h"
#include "tests/tasks/util.h"

namespace tg::tasks {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n') << "every line ends with a newline";
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Parses one alphabet line; returns its true bits, or -1 if the line breaks the grammar.
double parse_alphabet_line(const std::string& s) {
  double bits = 0;
  size_t i = 0;
  for (char letter = 'a'; letter <= 'z'; ++letter) {
    if (i >= s.size() || s[i] != letter) return -1;
    ++i;
    if (i < s.size() && s[i] == '(') {
      bits += std::log2(26.0);
      ++i;
      for (char d = '0'; d <= '9'; ++d) {
        if (i >= s.size() || s[i] != d) return -1;
        ++i;
        if (i < s.size() && s[i] == '[') {
          bits += std::log2(5.0) + 9 * std::log2(26.0);
          for (int k = 1; k <= 9; ++k)
            if (i + k >= s.size() || s[i + k] < 'A' || s[i + k] > 'Z') return -1;
          if (i + 10 >= s.size() || s[i + 10] != ']') return -1;
          i += 11;
        } else {
          bits += std::log2(5.0 / 4);
        }
      }
      if (i >= s.size() || s[i] != ')') return -1;
      ++i;
    } else {
      bits += std::log2(26.0 / 25);
    }
  }
  return i == s.size() ? bits : -1;
}

TEST(Ollivier, AlphabetWithInsertions) {
  Rng rng(1);
  const ollivier::GeneratedText g = ollivier::alphabet_lines(rng, 3000);
  const std::vector<std::string> lines = lines_of(g.text);
  ASSERT_EQ(lines.size(), 3000u);
  double bits = 0, subs = 0;
  for (const std::string& l : lines) {
    const double b = parse_alphabet_line(l);
    ASSERT_GE(b, 0) << "bad line: " << l;
    bits += b;
    subs += static_cast<double>(std::count(l.begin(), l.end(), '('));
  }
  EXPECT_NEAR(bits, g.true_bits, 1e-6 * bits);
  // Expected per line: 1 sub-block, 61 characters, 97.9 bits (003 §7.2's [DERIVED] figure).
  EXPECT_NEAR(subs / 3000, 1.0, 0.06);
  EXPECT_NEAR(static_cast<double>(g.text.size()) / 3000, 61.0, 1.5);
  EXPECT_NEAR(g.true_bits / 3000, 97.9, 3.5);
}

TEST(Ollivier, SyntheticMusic) {
  const std::vector<std::string> chords = {"ceg", "cfa", "ceg", "gbd", "ceg", "cfa", "gbd", "ceg"};
  const std::vector<std::string> rhythms = {"4 4 4", "2 4", "4. 8 4", "2.", "4 4 8 8"};
  Rng rng(2);
  const ollivier::GeneratedText g = ollivier::music_bars(rng, 2000);
  const std::vector<std::string> bars = lines_of(g.text);
  ASSERT_EQ(bars.size(), 2000u);
  double bits = 0;
  std::vector<int> rhythm_count(5, 0);
  for (size_t k = 0; k < bars.size(); ++k) {
    const std::string& bar = bars[k];
    ASSERT_GE(bar.size(), 3u);
    ASSERT_EQ(bar.substr(bar.size() - 2), " |") << bar;
    std::istringstream notes(bar.substr(0, bar.size() - 2));
    std::string note, durations;
    int n = 0;
    while (notes >> note) {
      EXPECT_NE(chords[k % 8].find(note[0]), std::string::npos) << "pitch " << note[0] << " outside the chord of bar " << k;
      if (n++) durations += ' ';
      durations += note.substr(1);
    }
    const auto r = std::find(rhythms.begin(), rhythms.end(), durations);
    ASSERT_NE(r, rhythms.end()) << "unknown rhythm " << durations;
    ++rhythm_count[r - rhythms.begin()];
    bits += std::log2(5.0) + n * std::log2(3.0);
  }
  EXPECT_NEAR(bits, g.true_bits, 1e-9 * bits);
  for (int c : rhythm_count) EXPECT_NEAR(c, 400, 80);
  for (char c : g.text) EXPECT_NE(std::string(ollivier::kMusicSymbols).find(c), std::string::npos);
}

TEST(Ollivier, DistantXor) {
  const int64_t T = 100;
  Rng rng(3);
  const ollivier::GeneratedText g = ollivier::distant_xor_lines(rng, T, 500);
  EXPECT_EQ(g.true_bits, 0.0);
  int64_t shortest = INT64_MAX, longest = 0;
  for (const std::string& line : lines_of(g.text)) {
    ASSERT_GE(line.size(), 4u);
    const int64_t n = static_cast<int64_t>(line.size() - 2) / 2;  // n separator-bit pairs, then "=b"
    ASSERT_EQ(static_cast<int64_t>(line.size()), 2 * n + 2);
    shortest = std::min(shortest, n), longest = std::max(longest, n);
    std::vector<int64_t> marks;
    int x = 0;
    for (int64_t i = 0; i < n; ++i) {
      const char sep = line[2 * i], bit = line[2 * i + 1];
      ASSERT_TRUE(sep == ' ' || sep == 'X');
      ASSERT_TRUE(bit == '0' || bit == '1');
      if (sep == 'X') marks.push_back(i), x ^= bit - '0';
    }
    ASSERT_EQ(marks.size(), 2u);
    EXPECT_LT(static_cast<double>(marks[0]), n / 10.0) << "first mark in [0, T'/10)";
    EXPECT_GE(static_cast<double>(marks[1]), n / 10.0) << "second mark in [T'/10, T'/2)";
    EXPECT_LT(static_cast<double>(marks[1]), n / 2.0);
    EXPECT_EQ(line[2 * n], '=');
    EXPECT_EQ(line[2 * n + 1] - '0', x);
  }
  EXPECT_EQ(shortest, T);
  EXPECT_EQ(longest, 11 * T / 10);

  // As a task: the loss mask (chi) is 1 exactly on the bit after "=".
  auto task = make("distant_xor", {{"T", 20}, {"lines", 6}});
  Rng r2(4);
  Batch b = task->sample(3, r2);
  const Signature sig = task->signature();
  for (const Example& e : split(b, sig)) {
    int64_t targets = 0;
    for (int64_t t = 0; t < e.length; ++t) {
      const bool after_eq = sig.alphabet[e.input_symbols[t]] == "=";
      EXPECT_EQ(e.loss_mask[t], after_eq ? 1 : 0);
      targets += e.loss_mask[t];
    }
    EXPECT_EQ(targets, 6);
    EXPECT_EQ(*e.true_bits, 0.0);
  }
  // Perfect logits: no error; uniform logits: every line wrong (p = 1/6 <= 1/2).
  std::vector<Tensor> perfect, uniform;
  for (int64_t t = 0; t < b.steps(); ++t) {
    Tensor y = Tensor::zeros(Shape{b.size(), 6}, DType::f32);
    for (int64_t s = 0; s < b.size(); ++s) y.data<float>()[s * 6 + (*b.targets.symbols[t])[s]] = 10;
    perfect.push_back(y);
    uniform.push_back(Tensor::zeros(Shape{b.size(), 6}, DType::f32));
  }
  EXPECT_EQ(task->error_rate(b, perfect), 0.0);
  EXPECT_EQ(task->error_rate(b, uniform), 1.0);
  EXPECT_EQ(task->chance_level(), 0.5);
}

TEST(Ollivier, AnBn) {
  Rng rng(5);
  const ollivier::GeneratedText g = ollivier::anbn_pairs(rng, 200, 1024, 2048);
  const std::vector<std::string> lines = lines_of(g.text);
  ASSERT_EQ(lines.size(), 400u);
  int64_t lo = INT64_MAX, hi = 0;
  for (size_t k = 0; k < lines.size(); k += 2) {
    const std::string& a = lines[k];
    const std::string& b = lines[k + 1];
    ASSERT_EQ(a, std::string(a.size(), 'a'));
    ASSERT_EQ(b, std::string(a.size(), 'b')) << "b-block as long as the a-block before it";
    lo = std::min<int64_t>(lo, a.size()), hi = std::max<int64_t>(hi, a.size());
  }
  EXPECT_GE(lo, 1024);
  EXPECT_LE(hi, 2048);
  EXPECT_NEAR(g.true_bits, 200 * std::log2(1025.0), 1e-9);  // ~10 bits per pair, the paper's "100 bits" for 10
}

// The true model's next-symbol law for a^n b^n, from the text so far: the exact predictor has zero
// regret, which checks model_bits, true_bits and cumulative_regret against each other.
TEST(Ollivier, TrueModelHasZeroRegret) {
  const int64_t n_min = 3, n_max = 6;
  auto task = make("anbn", {{"pairs", 4}, {"n_min", n_min}, {"n_max", n_max}});
  const Signature sig = task->signature();  // "\n", "a", "b"
  Rng rng(6);
  Batch b = task->sample(5, rng);
  std::vector<Tensor> exact, uniform;
  for (int64_t t = 0; t < b.steps(); ++t) {
    exact.push_back(Tensor::full(Shape{b.size(), 3}, -1e30, DType::f64));
    uniform.push_back(Tensor::zeros(Shape{b.size(), 3}, DType::f64));
  }
  int64_t total_len = 0;
  for (int64_t s = 0; s < b.size(); ++s) {
    int64_t as = 0, bs_left = 0;  // a's so far in the current a-block; b's still due
    bool in_a = true;
    for (int64_t t = 0; t < b.steps() && b.targets.mask[t].at(s) != 0; ++t, ++total_len) {
      double* row = exact[t].data<double>() + s * 3;
      if (in_a) {
        if (as < n_min) row[1] = 0;  // certainly another a
        else {
          row[0] = std::log(1.0 / static_cast<double>(n_max - as + 1));  // stop now
          if (as < n_max) row[1] = std::log(1 - 1.0 / static_cast<double>(n_max - as + 1));
        }
      } else {
        row[bs_left ? 2 : 0] = 0;
      }
      const int32_t y = (*b.targets.symbols[t])[s];
      if (in_a) {
        if (y == 1) ++as;
        else in_a = false, bs_left = as, as = 0;
      } else {
        if (y == 2) --bs_left;
        else in_a = true;
      }
    }
  }
  EXPECT_NEAR(ollivier::cumulative_regret(b, exact, false), 0.0, 1e-9);
  EXPECT_GT(ollivier::cumulative_regret(b, exact, true), 0.0) << "mixing in the uniform law costs a little";
  double true_total = 0;
  for (double x : b.true_bits) true_total += x;
  EXPECT_NEAR(true_total, 5 * 4 * std::log2(4.0), 1e-9);
  EXPECT_NEAR(ollivier::cumulative_regret(b, uniform, true), total_len * std::log2(3.0) - true_total, 1e-6);
  // error_rate: regret per pair, with the mixing.
  EXPECT_NEAR(task->error_rate(b, uniform), (total_len * std::log2(3.0) - true_total) / 20, 1e-6);
}

TEST(Ollivier, MixingIsOneOverTPlusTwo) {
  // One sequence, two steps, V = 3, target 0 predicted with probability ~1: bits -log2(1 - m + m/3), m = 1/(t+2).
  Batch b;
  b.inputs.T = 2;
  b.inputs.B = 1;
  for (int t = 0; t < 2; ++t) {
    b.inputs.symbols.push_back(ops::make_index({0}));
    b.targets.symbols.push_back(ops::make_index({0}));
    b.targets.mask.push_back(Tensor::full(Shape{1}, 1, DType::f32));
  }
  const std::vector<Tensor> sure = {Tensor::from(Shape{1, 3}, std::vector<double>{100, 0, 0}, DType::f64),
                                    Tensor::from(Shape{1, 3}, std::vector<double>{100, 0, 0}, DType::f64)};
  const double expect = -std::log2(0.5 + 0.5 / 3) - std::log2(2.0 / 3 + 1.0 / 9);
  EXPECT_NEAR(model_bits(b, sure, true)[0], expect, 1e-12);
  EXPECT_NEAR(model_bits(b, sure, false)[0], 0.0, 1e-12);
}

TEST(Ollivier, TaskBatchesReadANewlineFirst) {
  for (auto [name, opt] : {std::pair<std::string, nlohmann::json>{"alphabet", {{"lines", 3}}},
                           std::pair<std::string, nlohmann::json>{"music", {{"bars", 9}}},
                           std::pair<std::string, nlohmann::json>{"anbn", {{"pairs", 2}, {"n_min", 5}, {"n_max", 9}}}}) {
    auto task = make(name, opt);
    const Signature sig = task->signature();
    EXPECT_TRUE(std::is_sorted(sig.alphabet.begin(), sig.alphabet.end())) << name;
    Rng rng(8);
    Batch b = task->sample(4, rng);
    ASSERT_EQ(b.true_bits.size(), 4u);
    for (const Example& e : split(b, sig)) {
      EXPECT_EQ(sig.alphabet[e.input_symbols[0]], "\n");
      for (int64_t t = 1; t < e.length; ++t) EXPECT_EQ(e.input_symbols[t], e.target_symbols[t - 1]);
      EXPECT_EQ(sig.alphabet[e.target_symbols[e.length - 1]], "\n");
      for (uint8_t m : e.loss_mask) EXPECT_EQ(m, 1);
      EXPECT_GT(*e.true_bits, 0);
    }
  }
  EXPECT_EQ(make("alphabet", {})->signature().input_dim, 67);
  EXPECT_EQ(make("music", {})->signature().input_dim, 14);
  EXPECT_EQ(make("distant_xor", {})->signature().input_dim, 6);
  EXPECT_EQ(make("anbn", {})->signature().input_dim, 3);
}

}  // namespace
}  // namespace tg::tasks
