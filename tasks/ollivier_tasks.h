// Ollivier's symbolic sequence problems (003 §7): alphabet with insertions, synthetic music, distant
// XOR and a^n b^n. Each sequence is a text of whole lines (bars, pairs) over a small alphabet; a
// model reads "\n" then the text shifted by one and predicts every next character (distant XOR: only
// the bit after "="). The generator knows the probability of each of its choices, so each sequence
// carries the bits the true model spends on its targets (Batch::true_bits), and
//   cumulative regret = model bits - true bits = LL_true - LL_model   (003 §7.1, Table 1).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace tg::tasks::ollivier {

// One generated text and the true generator's bits for its predicted characters.
struct GeneratedText {
  std::string text;
  double true_bits = 0;
};

// The generators (the rules are in the .cc and in docs/tasks.md).
GeneratedText alphabet_lines(Rng& rng, int64_t lines);
GeneratedText music_bars(Rng& rng, int64_t bars);
GeneratedText distant_xor_lines(Rng& rng, int64_t T, int64_t lines);  // true_bits: 0, the XOR bit is determined
GeneratedText anbn_pairs(Rng& rng, int64_t pairs, int64_t n_min, int64_t n_max);

// The alphabets, in code-point order; a symbol's index is its position.
extern const char* const kAlphabetSymbols;  // "\n()0-9A-Z[]a-z": 67
extern const char* const kMusicSymbols;     // "\n .248abcdefg|": 14
extern const char* const kXorSymbols;       // "\n 01=X": 6
extern const char* const kAnbnSymbols;      // "\nab": 3

// Summed over the batch: model bits (with Ollivier's 1/(t+2) uniform mixing when smooth, as he
// scores validation sequences) minus Batch::true_bits. Throws tg::Error if the batch has no true bits.
double cumulative_regret(const Batch& b, const std::vector<Tensor>& logits, bool smooth = true);

}  // namespace tg::tasks::ollivier
