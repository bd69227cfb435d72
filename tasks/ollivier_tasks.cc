#include "tasks/ollivier_tasks.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "tasks/families.h"
#include "tasks/generated.h"
#include "core/options.h"
#include "tasks/random.h"

namespace tg::tasks::ollivier {

const char* const kAlphabetSymbols = "\n()0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ[]abcdefghijklmnopqrstuvwxyz";
const char* const kMusicSymbols = "\n .248abcdefg|";
const char* const kXorSymbols = "\n 01=X";
const char* const kAnbnSymbols = "\nab";

// Alphabet with insertions (003 §7.2): each line is a..z then "\n"; after each letter, with
// probability 1/26, a sub-block "(0123456789)"; after each digit of a sub-block, with probability
// 1/5, a sub-sub-block "[" + 9 uniform letters A-Z + "]". The bits are those of the generator's
// choices, which the text reveals one by one.
GeneratedText alphabet_lines(Rng& rng, int64_t lines) {
  GeneratedText g;
  const double ins = std::log2(26.0), no_ins = std::log2(26.0 / 25.0);
  const double sub = std::log2(5.0), no_sub = std::log2(5.0 / 4.0), letter = std::log2(26.0);
  for (int64_t l = 0; l < lines; ++l) {
    for (char c = 'a'; c <= 'z'; ++c) {
      g.text += c;
      if (!bernoulli(rng, 1, 26)) {
        g.true_bits += no_ins;
        continue;
      }
      g.true_bits += ins;
      g.text += '(';
      for (char d = '0'; d <= '9'; ++d) {
        g.text += d;
        if (!bernoulli(rng, 1, 5)) {
          g.true_bits += no_sub;
          continue;
        }
        g.true_bits += sub;
        g.text += '[';
        for (int k = 0; k < 9; ++k) g.text += static_cast<char>('A' + uniform_int(rng, 0, 25));
        g.true_bits += 9 * letter;
        g.text += ']';
      }
      g.text += ')';
    }
    g.text += '\n';
  }
  return g;
}

// Synthetic music (003 §7.3): bar k has the harmony cycle[k mod 8] of I-IV-I-V-I-IV-V-I (the first
// bar is the cycle's first: the seed leaves the phase open, a fixed phase keeps the true model's
// bits exact), a rhythm uniform over the 5 waltz patterns, and each pitch uniform over the chord
// (I: c e g, IV: c f a, V: g b d). Notes are separated by spaces; a bar ends with " |\n".
GeneratedText music_bars(Rng& rng, int64_t bars) {
  static const std::array<std::vector<const char*>, 5> rhythms = {{
      {"4", "4", "4"}, {"2", "4"}, {"4.", "8", "4"}, {"2."}, {"4", "4", "8", "8"}}};
  static const std::array<const char*, 8> cycle = {"ceg", "cfa", "ceg", "gbd", "ceg", "cfa", "gbd", "ceg"};
  GeneratedText g;
  for (int64_t k = 0; k < bars; ++k) {
    const char* chord = cycle[k % 8];
    const auto& rhythm = rhythms[uniform_int(rng, 0, 4)];
    g.true_bits += std::log2(5.0);
    for (size_t i = 0; i < rhythm.size(); ++i) {
      if (i) g.text += ' ';
      g.text += chord[uniform_int(rng, 0, 2)];
      g.true_bits += std::log2(3.0);
      g.text += rhythm[i];
    }
    g.text += " |\n";
  }
  return g;
}

// Distant XOR (003 §7.4): a line is T' ~ i[T, 11T/10] random bits, each preceded by a space, except
// two preceded by "X" at bit positions p ~ [0, T'/10) and q ~ [T'/10, T'/2) (0-based; the OCR's
// "[[" is "["), then "=" and the XOR of the two marked bits, then "\n". Only that bit is predicted,
// and it is determined by the past: the true model spends 0 bits on it.
GeneratedText distant_xor_lines(Rng& rng, int64_t T, int64_t lines) {
  GeneratedText g;
  for (int64_t l = 0; l < lines; ++l) {
    const int64_t n = uniform_int(rng, T, 11 * T / 10);
    const int64_t tenth = (n + 9) / 10, half = (n + 1) / 2;  // ceil: p < n/10 <=> p <= ceil(n/10) - 1
    const int64_t p = uniform_int(rng, 0, tenth - 1), q = uniform_int(rng, tenth, half - 1);
    int x = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int bit = static_cast<int>(uniform_int(rng, 0, 1));
      const bool marked = i == p || i == q;
      if (marked) x ^= bit;
      g.text += marked ? 'X' : ' ';
      g.text += static_cast<char>('0' + bit);
    }
    g.text += '=';
    g.text += static_cast<char>('0' + x);
    g.text += '\n';
  }
  return g;
}

// a^n b^n (003 §7.5): for each pair, n ~ i[n_min, n_max], a line of n "a" then a line of n "b". The
// a-block's length costs log2(n_max - n_min + 1) bits; the b-block is then determined.
GeneratedText anbn_pairs(Rng& rng, int64_t pairs, int64_t n_min, int64_t n_max) {
  GeneratedText g;
  for (int64_t k = 0; k < pairs; ++k) {
    const int64_t n = uniform_int(rng, n_min, n_max);
    g.text.append(static_cast<size_t>(n), 'a');
    g.text += '\n';
    g.text.append(static_cast<size_t>(n), 'b');
    g.text += '\n';
    g.true_bits += std::log2(static_cast<double>(n_max - n_min + 1));
  }
  return g;
}

double cumulative_regret(const Batch& b, const std::vector<Tensor>& logits, bool smooth) {
  if (static_cast<int64_t>(b.true_bits.size()) != b.size())
    throw Error("cumulative regret needs the true generator's bits of every sequence (Ollivier's tasks carry them)");
  const std::vector<double> model = model_bits(b, logits, smooth);
  return std::accumulate(model.begin(), model.end(), 0.0) - std::accumulate(b.true_bits.begin(), b.true_bits.end(), 0.0);
}

namespace {


Signature text_signature(const char* symbols) {
  Signature s;
  s.symbolic_input = true;
  s.input_dim = s.output_dim = static_cast<int64_t>(std::string(symbols).size());
  s.output = OutputKind::softmax;
  for (const char* c = symbols; *c; ++c) s.alphabet.emplace_back(1, *c);
  return s;
}

// The four tasks share everything but the generator and the scoring: a sequence of `units` lines
// (bars, pairs) read after a virtual "\n", every next character predicted, except for distant XOR.
class OllivierTask : public GeneratedTask {
 public:
  struct Spec {
    std::string name;
    const char* symbols;
    std::function<GeneratedText(Rng&)> generate;
    int64_t units;              // lines, bars or pairs per sequence
    bool xor_only;              // distant XOR: only the bit after "=" is predicted and scored
    double best_regret;         // the paper's best regret per unit (Table 1), the success threshold
    double uniform_regret;      // expected regret per unit of the uniform predictor
    std::string unit;
  };

  explicit OllivierTask(Spec spec) : GeneratedTask(spec.name, text_signature(spec.symbols)), spec_(std::move(spec)) {
    for (int i = 0; spec_.symbols[i]; ++i) index_[static_cast<unsigned char>(spec_.symbols[i])] = i;
  }

  Example generate(Rng& rng) const override {
    const GeneratedText g = spec_.generate(rng);
    const int64_t n = static_cast<int64_t>(g.text.size());
    Example e = blank_example(sig_, n);
    for (int64_t t = 0; t < n; ++t) {
      const char prev = t ? g.text[t - 1] : '\n';
      e.input_symbols[t] = index_[static_cast<unsigned char>(prev)];
      e.target_symbols[t] = index_[static_cast<unsigned char>(g.text[t])];
      e.loss_mask[t] = spec_.xor_only ? prev == '=' : 1;  // Ollivier's chi_t
    }
    e.true_bits = g.true_bits;
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, sig_.output_dim, name_);
    if (spec_.xor_only) return xor_error(b, outputs);
    const double units = static_cast<double>(b.size() * spec_.units);
    return cumulative_regret(b, outputs, true) / units;
  }
  std::string success_criterion() const override {
    if (spec_.xor_only) return "< 1% of lines whose XOR bit gets probability <= 1/2";
    return fmt::format("regret <= {:.3g} bits per {} (the paper's best, Table 1), with 1/(t+2) uniform mixing",
                       spec_.best_regret, spec_.unit);
  }
  double success_threshold() const override { return spec_.best_regret; }
  double chance_level() const override { return spec_.uniform_regret; }

 private:
  // Ollivier's classification error: a line is wrong unless the right bit gets probability > 1/2.
  static double xor_error(const Batch& b, const std::vector<Tensor>& logits) {
    int64_t wrong = 0, total = 0;
    for (int64_t t = 0; t < b.steps(); ++t) {
      const int64_t V = logits[t].shape()[1];
      for (int64_t s = 0; s < b.size(); ++s) {
        if (b.targets.mask[t].at(s) == 0) continue;
        double top = -INFINITY, z = 0;
        for (int64_t k = 0; k < V; ++k) top = std::max(top, logits[t].at(s * V + k));
        for (int64_t k = 0; k < V; ++k) z += std::exp(logits[t].at(s * V + k) - top);
        const double p = std::exp(logits[t].at(s * V + (*b.targets.symbols[t])[s]) - top) / z;
        wrong += !(p > 0.5);
        ++total;
      }
    }
    return total ? static_cast<double>(wrong) / static_cast<double>(total) : 0.0;
  }

  Spec spec_;
  std::array<int32_t, 256> index_{};
};

double entropy2(double p) { return -(p * std::log2(p) + (1 - p) * std::log2(1 - p)); }

}  // namespace
}  // namespace tg::tasks::ollivier

namespace tg::tasks {

void register_ollivier(std::vector<TaskInfo>& r) {
  using ollivier::OllivierTask;
  using ollivier::entropy2;
  r.push_back({"alphabet", "Ollivier's alphabet with insertions: a..z lines with (0-9) and [9 random A-Z] insertions",
               "003 §7.2", {{"lines", 1000}}, [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'alphabet'", cfg);
                 const int64_t lines = o.integer("lines", 1, 100'000'000);
                 // Per line: 61 characters on average (27 + one sub-block of 12 + two sub-sub-blocks of 11),
                 // and 26 H(1/26) + 10 H(1/5) + 2 * 9 log2 26 = 97.9 true bits.
                 const double true_bits = 26 * entropy2(1.0 / 26) + 10 * entropy2(0.2) + 2 * 9 * std::log2(26.0);
                 return std::make_unique<OllivierTask>(OllivierTask::Spec{
                     "alphabet", ollivier::kAlphabetSymbols,
                     [lines](Rng& rng) { return ollivier::alphabet_lines(rng, lines); }, lines, false, 644.2 / 1000,
                     61 * std::log2(67.0) - true_bits, "line"});
               }});
  r.push_back({"music", "Ollivier's synthetic music: waltz bars, harmony cycle I-IV-I-V-I-IV-V-I, 5 rhythms",
               "003 §7.3", {{"bars", 2700}}, [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'music'", cfg);
                 const int64_t bars = o.integer("bars", 1, 100'000'000);
                 // Per bar: (11 + 8 + 12 + 6 + 14) / 5 = 10.2 characters and log2 5 + 2.6 log2 3 true bits.
                 return std::make_unique<OllivierTask>(OllivierTask::Spec{
                     "music", ollivier::kMusicSymbols, [bars](Rng& rng) { return ollivier::music_bars(rng, bars); },
                     bars, false, 1055.9 / 2700, 10.2 * std::log2(14.0) - (std::log2(5.0) + 2.6 * std::log2(3.0)),
                     "bar"});
               }});
  r.push_back({"distant_xor", "Ollivier's distant XOR: lines of T..1.1T bits, two marked by X, then = and their XOR",
               "003 §7.4", {{"T", 100}, {"lines", 10000}}, [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'distant_xor'", cfg);
                 const int64_t T = o.integer("T", 10, 10'000'000);
                 const int64_t lines = o.integer("lines", 1, 100'000'000);
                 return std::make_unique<OllivierTask>(OllivierTask::Spec{
                     "distant_xor", ollivier::kXorSymbols,
                     [T, lines](Rng& rng) { return ollivier::distant_xor_lines(rng, T, lines); }, lines, true, 0.01,
                     0.5, "line"});
               }});
  r.push_back({"anbn", "Ollivier's a^n b^n: pairs of lines of n a's then n b's, n ~ i[1024, 2048]", "003 §7.5",
               {{"pairs", 10}, {"n_min", 1024}, {"n_max", 2048}}, [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'anbn'", cfg);
                 const int64_t pairs = o.integer("pairs", 1, 100'000'000);
                 const int64_t n_min = o.integer("n_min", 1, 100'000'000);
                 const int64_t n_max = o.integer("n_max", 1, 100'000'000);
                 if (n_max < n_min) o.fail("n_max", fmt::format("must be >= n_min = {} (got {})", n_min, n_max));
                 // Per pair: n_min + n_max + 2 characters on average; log2(n_max - n_min + 1) true bits.
                 const double bits = std::log2(static_cast<double>(n_max - n_min + 1));
                 return std::make_unique<OllivierTask>(OllivierTask::Spec{
                     "anbn", ollivier::kAnbnSymbols,
                     [pairs, n_min, n_max](Rng& rng) { return ollivier::anbn_pairs(rng, pairs, n_min, n_max); }, pairs,
                     false, 29.7 / 10, static_cast<double>(n_min + n_max + 2) * std::log2(3.0) - bits, "pair"});
               }});
}

}  // namespace tg::tasks
