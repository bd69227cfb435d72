// Character-level text: any UTF-8 file, read as Unicode code points; a vocabulary of the training
// split's characters (sorted by code point) plus one unknown symbol; train / valid / test split by
// fractions of one file or given as separate files; non-overlapping length-T sequences (inputs
// chars[kT, kT+T), targets chars[kT+1, kT+T]); random batches; bits per character.
// The task "text" wraps all of this so training code treats text like any other task.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tasks/task.h"

namespace tg::tasks::text {

// ---- UTF-8 ----------------------------------------------------------------------------------------
// The code points of a file. Throws tg::Error naming the file when it is missing, unreadable, a
// directory, empty, binary (a NUL byte) or not valid UTF-8 (with the line and byte offset). A leading
// byte-order mark is dropped.
std::u32string read_utf8_file(const std::string& path);
// Strict decoding (no overlong forms, surrogates or values above U+10FFFF); `name` goes in errors.
std::u32string decode_utf8(std::string_view bytes, const std::string& name);
std::string encode_utf8(char32_t c);
std::string encode_utf8(std::u32string_view s);

// ---- vocabulary -----------------------------------------------------------------------------------
class Vocabulary {
 public:
  Vocabulary() = default;
  static Vocabulary from_text(std::u32string_view training);  // its distinct characters, sorted
  // JSON: {"format": "tapegrad-vocab", "version": 1, "symbols": ["\n", " ", "A", ...], "unknown_index": N}
  static Vocabulary load(const std::string& path);  // validates; errors name the file
  void save(const std::string& path) const;         // atomically
  nlohmann::json to_json() const;
  static Vocabulary from_json(const nlohmann::json& j, const std::string& name);

  int64_t size() const { return static_cast<int64_t>(chars_.size()) + 1; }  // characters + unknown
  int32_t unknown() const { return static_cast<int32_t>(chars_.size()); }  // the last index
  int32_t index(char32_t c) const;  // unknown() for a character outside the vocabulary
  std::vector<int32_t> encode(std::u32string_view s) const;
  std::string decode(int32_t index) const;  // UTF-8; the unknown symbol is U+FFFD
  const std::u32string& chars() const { return chars_; }
  std::vector<std::string> alphabet() const;  // decode(i) for every index
  bool operator==(const Vocabulary& o) const { return chars_ == o.chars_; }

 private:
  std::u32string chars_;  // sorted, distinct
};

// ---- corpus ---------------------------------------------------------------------------------------
enum class Part { train, valid, test };
const char* part_name(Part p);

extern const char* const kDefaultCorpus;  // "data/kjv.txt" (scripts/corpus.sh writes it)

struct Sources {
  std::string file;                              // one file, split by fractions (default: kDefaultCorpus)
  std::array<double, 3> split{0.9, 0.05, 0.05};  // train, valid, test; in file order
  std::string train_file, valid_file, test_file; // or separate files (valid and test may be omitted)
  std::string vocab_file;                        // a saved vocabulary instead of the training split's
};

class Corpus {
 public:
  static Corpus load(const Sources& src);
  // load(src), shared with every other caller holding a corpus of the same sources, as long as one
  // does; the files' sizes and modification times are part of the key. The text task uses this, so a
  // run's train, valid and test parts hold one copy (docs/tasks.md: memory per MB of text).
  static std::shared_ptr<const Corpus> shared(const Sources& src);
  const Vocabulary& vocab() const { return vocab_; }
  const std::vector<int32_t>& ids(Part p) const { return ids_[static_cast<int>(p)]; }
  const std::string& source(Part p) const { return source_[static_cast<int>(p)]; }  // for messages

 private:
  Vocabulary vocab_;
  std::array<std::vector<int32_t>, 3> ids_;
  std::array<std::string, 3> source_;
};

// ---- sequences and batches ------------------------------------------------------------------------
// How many non-overlapping length-T sequences a text of n characters holds: (n - 1) / T.
int64_t num_sequences(int64_t characters, int64_t T);
// Sequence k has inputs ids[kT, kT+T) and targets ids[kT+1, kT+T]; the first `warmup` steps of each
// have loss mask 0 (context only, as 000 §3.3 predicts only the last 200 of 250).
Batch make_batch(const std::vector<int32_t>& ids, int64_t T, std::span<const int64_t> which, int64_t warmup = 0);

// Bits per character from a cross-entropy summed over `characters` predictions, in nats.
double bits_per_char(double nats, int64_t characters);
// Bits per character of softmax logits against the batch's loss-masked targets.
double bits_per_char(const Batch& b, const std::vector<Tensor>& logits);

// The text task's resolved options with every file (the corpus, split files, a saved vocabulary) as
// an absolute path; the default corpus is written out when no file is named.
nlohmann::json with_absolute_paths(nlohmann::json resolved);

// ---- the task -------------------------------------------------------------------------------------
class TextTask : public Task {
 public:
  TextTask(std::shared_ptr<const Corpus> corpus, Part part, int64_t T, int64_t warmup, double target_bpc);
  const std::string& name() const override { return name_; }
  Signature signature() const override;
  Batch sample(int64_t batch, Rng& rng) const override;  // B sequences drawn uniformly (with replacement)
  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override;  // bits per character
  std::string success_criterion() const override;
  double success_threshold() const override { return target_bpc_; }
  double chance_level() const override { return unigram_bits_; }  // the training split's unigram entropy
  int64_t num_sequences() const override;
  Batch sequences(int64_t first, int64_t count) const override;

  const Corpus& corpus() const { return *corpus_; }
  Part part() const { return part_; }

 private:
  std::string name_ = "text";
  std::shared_ptr<const Corpus> corpus_;
  Part part_;
  int64_t T_, warmup_;
  double target_bpc_, unigram_bits_ = 0;
};

}  // namespace tg::tasks::text
