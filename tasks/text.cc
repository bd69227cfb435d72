#include "tasks/text.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json.h"
#include "core/atomic_file.h"
#include "tasks/example.h"
#include "tasks/families.h"
#include "core/options.h"
#include "tasks/random.h"

namespace tg::tasks::text {

// ---- UTF-8 ----------------------------------------------------------------------------------------

namespace {

int64_t line_of(std::string_view bytes, size_t offset) {
  return 1 + std::count(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
}

}  // namespace

std::u32string decode_utf8(std::string_view bytes, const std::string& name) {
  std::u32string out;
  out.reserve(bytes.size());
  const size_t n = bytes.size();
  size_t i = 0;
  auto bad = [&](size_t at, const char* why) {
    throw Error(fmt::format("{}:{}: invalid UTF-8 at byte offset {} (byte 0x{:02X}: {})", name, line_of(bytes, at), at,
                            static_cast<unsigned char>(bytes[at]), why));
  };
  while (i < n) {
    const auto b0 = static_cast<unsigned char>(bytes[i]);
    if (b0 < 0x80) {
      out.push_back(b0);
      ++i;
      continue;
    }
    int extra = 0;
    char32_t cp = 0, min = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) extra = 1, cp = b0 & 0x1F, min = 0x80;
    else if (b0 >= 0xE0 && b0 <= 0xEF) extra = 2, cp = b0 & 0x0F, min = 0x800;
    else if (b0 >= 0xF0 && b0 <= 0xF4) extra = 3, cp = b0 & 0x07, min = 0x10000;
    else bad(i, b0 < 0xC0 ? "a continuation byte without a lead byte" : "not a valid lead byte");
    if (i + extra >= n) bad(i, "the sequence is cut off by the end of the file");
    for (int k = 1; k <= extra; ++k) {
      const auto bk = static_cast<unsigned char>(bytes[i + k]);
      if ((bk & 0xC0) != 0x80) bad(i, "not followed by enough continuation bytes");  // report where the character starts
      cp = (cp << 6) | (bk & 0x3F);
    }
    if (cp < min) bad(i, "an overlong encoding");
    if (cp >= 0xD800 && cp <= 0xDFFF) bad(i, "a UTF-16 surrogate");
    if (cp > 0x10FFFF) bad(i, "beyond U+10FFFF");
    out.push_back(cp);
    i += extra + 1;
  }
  return out;
}

std::u32string read_utf8_file(const std::string& path) {
  const std::string bytes = read_input_file(path, "text file", kMaxTextFileBytes);  // refuses FIFOs and devices
  if (bytes.empty()) throw Error(fmt::format("{}: empty file (expected UTF-8 text)", path));
  if (const size_t nul = bytes.find('\0'); nul != std::string::npos)
    throw Error(fmt::format("{}:{}: binary file, not text (NUL byte at byte offset {})", path, line_of(bytes, nul), nul));
  std::u32string text = decode_utf8(bytes, path);
  if (!text.empty() && text.front() == U'\uFEFF') text.erase(0, 1);  // a byte-order mark is not text
  if (text.empty()) throw Error(fmt::format("{}: no text (only a byte-order mark)", path));
  return text;
}

std::string encode_utf8(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

std::string encode_utf8(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) out += encode_utf8(c);
  return out;
}

// ---- vocabulary -----------------------------------------------------------------------------------

Vocabulary Vocabulary::from_text(std::u32string_view training) {
  Vocabulary v;
  v.chars_.assign(training.begin(), training.end());
  std::sort(v.chars_.begin(), v.chars_.end());
  v.chars_.erase(std::unique(v.chars_.begin(), v.chars_.end()), v.chars_.end());
  return v;
}

int32_t Vocabulary::index(char32_t c) const {
  auto it = std::lower_bound(chars_.begin(), chars_.end(), c);
  return it != chars_.end() && *it == c ? static_cast<int32_t>(it - chars_.begin()) : unknown();
}

std::vector<int32_t> Vocabulary::encode(std::u32string_view s) const {
  std::vector<int32_t> ids;
  ids.reserve(s.size());
  for (char32_t c : s) ids.push_back(index(c));
  return ids;
}

std::string Vocabulary::decode(int32_t i) const {
  if (i < 0 || i > unknown()) throw Error(fmt::format("symbol {} is outside the vocabulary [0, {})", i, size()));
  return encode_utf8(i == unknown() ? U'\uFFFD' : chars_[i]);
}

std::vector<std::string> Vocabulary::alphabet() const {
  std::vector<std::string> a;
  for (int32_t i = 0; i < size(); ++i) a.push_back(decode(i));
  return a;
}

nlohmann::json Vocabulary::to_json() const {
  nlohmann::json symbols = nlohmann::json::array();
  for (char32_t c : chars_) symbols.push_back(encode_utf8(c));
  return {{"format", "tapegrad-vocab"}, {"version", 1}, {"symbols", symbols}, {"unknown_index", unknown()}};
}

Vocabulary Vocabulary::from_json(const nlohmann::json& j, const std::string& name) {
  auto fail = [&](const std::string& what) { throw Error(fmt::format("{}: not a tapegrad vocabulary: {}", name, what)); };
  if (!j.is_object()) fail("expected a JSON object");
  // j.value("format", "") would throw a JSON type_error on {"format": 1} (found by fuzz/text_fuzz)
  if (!j.contains("format") || j["format"] != "tapegrad-vocab") fail("\"format\" must be \"tapegrad-vocab\"");
  if (!j.contains("version") || j["version"] != 1) fail("\"version\" must be 1");
  if (!j.contains("symbols") || !j["symbols"].is_array() || j["symbols"].empty()) fail("\"symbols\" must be a non-empty list");
  Vocabulary v;
  for (size_t i = 0; i < j["symbols"].size(); ++i) {
    const nlohmann::json& s = j["symbols"][i];
    std::u32string c;
    if (s.is_string()) c = decode_utf8(s.get<std::string>(), name);
    if (c.size() != 1) fail(fmt::format("symbol {} must be a string of exactly one character (got {})", i, s.dump()));
    if (!v.chars_.empty() && c[0] <= v.chars_.back())
      fail(fmt::format("symbol {} ({}) is out of order: symbols must be distinct and sorted by code point", i, s.dump()));
    v.chars_ += c[0];
  }
  if (j.contains("unknown_index") && j["unknown_index"] != v.unknown())
    fail(fmt::format("\"unknown_index\" must be {} (the number of symbols)", v.unknown()));
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "format" && it.key() != "version" && it.key() != "symbols" && it.key() != "unknown_index")
      fail(fmt::format("unknown key \"{}\"", it.key()));
  return v;
}

Vocabulary Vocabulary::load(const std::string& path) {
  const std::string bytes = read_input_file(path, "vocabulary", kMaxJsonFileBytes);
  nlohmann::json j = parse_json(bytes, path, false);
  if (j.is_discarded()) throw Error(fmt::format("{}: not valid JSON (expected a tapegrad vocabulary)", path));
  return from_json(j, path);
}

void Vocabulary::save(const std::string& path) const { write_file_atomically(path, to_json().dump(1) + "\n"); }

// ---- corpus ---------------------------------------------------------------------------------------

const char* const kDefaultCorpus = "data/kjv.txt";

const char* part_name(Part p) {
  switch (p) {
    case Part::train: return "train";
    case Part::valid: return "valid";
    case Part::test: return "test";
  }
  return "?";
}

Corpus Corpus::load(const Sources& src) {
  Corpus c;
  // The parts are views: of one decoded file (no copies of its thirds), or of the separate files.
  std::array<std::u32string, 3> owned;
  std::array<std::u32string_view, 3> parts;
  if (!src.train_file.empty()) {
    if (!src.file.empty())
      throw Error("text: give either 'file' (split by fractions) or 'train_file' (separate files), not both");
    const std::array<const std::string*, 3> files = {&src.train_file, &src.valid_file, &src.test_file};
    for (int p = 0; p < 3; ++p) {
      c.source_[p] = *files[p];
      if (!files[p]->empty()) owned[p] = read_utf8_file(*files[p]);
      parts[p] = owned[p];
    }
  } else {
    const std::string path = src.file.empty() ? kDefaultCorpus : src.file;
    if (src.file.empty() && !std::filesystem::exists(path))
      throw Error(fmt::format("cannot read the default corpus {}: no such file (run scripts/corpus.sh, or set option 'file')",
                              path));
    owned[0] = read_utf8_file(path);
    const std::u32string_view all = owned[0];
    const double n = static_cast<double>(all.size());
    const size_t end_train = static_cast<size_t>(std::floor(n * src.split[0]));
    const size_t end_valid = std::min(all.size(), static_cast<size_t>(std::floor(n * (src.split[0] + src.split[1]))));
    parts[0] = all.substr(0, end_train);
    parts[1] = all.substr(end_train, end_valid - end_train);
    parts[2] = all.substr(end_valid);
    for (int p = 0; p < 3; ++p) c.source_[p] = fmt::format("{} ({} part)", path, part_name(static_cast<Part>(p)));
  }
  if (parts[0].empty()) throw Error(fmt::format("text: the train part of {} is empty", c.source_[0]));
  c.vocab_ = src.vocab_file.empty() ? Vocabulary::from_text(parts[0]) : Vocabulary::load(src.vocab_file);
  for (int p = 0; p < 3; ++p) c.ids_[p] = c.vocab_.encode(parts[p]);
  return c;
}

namespace {
// What a corpus is made of: every option that shapes it, and each file's identity and version (device,
// inode, size, modification time: a relative and an absolute path of one file match, and an edited or
// replaced file is read again).
std::string corpus_key(const Sources& src) {
  std::string key = fmt::format("{}|{}|{}", src.split[0], src.split[1], src.split[2]);
  for (const std::string* f : {&src.file, &src.train_file, &src.valid_file, &src.test_file, &src.vocab_file}) {
    struct stat st {};
    const std::string path = f->empty() && f == &src.file && src.train_file.empty() ? kDefaultCorpus : *f;
    if (!path.empty() && ::stat(path.c_str(), &st) == 0)
      key += fmt::format("|{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    else
      key += "|" + path;
  }
  return key;
}
}  // namespace

std::shared_ptr<const Corpus> Corpus::shared(const Sources& src) {
  // A run makes its train, valid and test tasks from the same options (only "part" differs), and the
  // train command checks a run's sizes before training it: without sharing, a 100 MB text was read
  // and decoded six times (2.7 GB resident). Weak pointers: a corpus no task uses any more is freed.
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const Corpus>> cache;
  const std::string key = corpus_key(src);
  std::lock_guard<std::mutex> lock(mutex);
  for (auto it = cache.begin(); it != cache.end();) it = it->second.expired() ? cache.erase(it) : std::next(it);
  if (auto hit = cache[key].lock()) return hit;
  auto corpus = std::make_shared<const Corpus>(load(src));
  cache[key] = corpus;
  return corpus;
}

// ---- sequences and batches ------------------------------------------------------------------------

int64_t num_sequences(int64_t characters, int64_t T) { return characters > 0 ? (characters - 1) / T : 0; }

Batch make_batch(const std::vector<int32_t>& ids, int64_t T, std::span<const int64_t> which, int64_t warmup) {
  const int64_t B = static_cast<int64_t>(which.size());
  const int64_t count = num_sequences(static_cast<int64_t>(ids.size()), T);
  TG_ASSERT(B >= 1, "make_batch needs at least one sequence");
  for (int64_t k : which) TG_ASSERT(k >= 0 && k < count, "sequence {} outside [0, {})", k, count);
  Batch b;
  b.inputs.T = T;
  b.inputs.B = B;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<int32_t> in(B), out(B);
    for (int64_t s = 0; s < B; ++s) {
      in[s] = ids[which[s] * T + t];
      out[s] = ids[which[s] * T + t + 1];
    }
    b.inputs.symbols.push_back(ops::make_index(std::move(in)));
    b.targets.symbols.push_back(ops::make_index(std::move(out)));
    b.targets.mask.push_back(Tensor::full(Shape{B}, t < warmup ? 0.0 : 1.0, DType::f32));
  }
  return b;
}

double bits_per_char(double nats, int64_t characters) {
  return characters > 0 ? nats / (static_cast<double>(characters) * std::log(2.0)) : 0.0;
}

double bits_per_char(const Batch& b, const std::vector<Tensor>& logits) {
  double nats = 0;
  int64_t n = 0;
  for (int64_t t = 0; t < b.steps(); ++t) {
    const int64_t V = logits[t].shape()[1];
    for (int64_t s = 0; s < b.size(); ++s) {
      if (!b.targets.mask.empty() && b.targets.mask[t].at(s) == 0) continue;
      double top = -INFINITY, z = 0;
      for (int64_t k = 0; k < V; ++k) top = std::max(top, logits[t].at(s * V + k));
      for (int64_t k = 0; k < V; ++k) z += std::exp(logits[t].at(s * V + k) - top);
      nats += std::log(z) + top - logits[t].at(s * V + (*b.targets.symbols[t])[s]);
      ++n;
    }
  }
  return bits_per_char(nats, n);
}

// ---- the task -------------------------------------------------------------------------------------

TextTask::TextTask(std::shared_ptr<const Corpus> corpus, Part part, int64_t T, int64_t warmup, double target_bpc)
    : corpus_(std::move(corpus)), part_(part), T_(T), warmup_(warmup), target_bpc_(target_bpc) {
  const std::vector<int32_t>& ids = corpus_->ids(part_);
  if (corpus_->source(part_).empty())
    throw Error(fmt::format("task 'text': part '{}' has no text: option '{}_file' is not set", part_name(part_),
                            part_name(part_)));
  if (text::num_sequences(static_cast<int64_t>(ids.size()), T_) < 1)
    throw Error(fmt::format("task 'text': option 'T' = {} needs at least {} characters in the {} part, {} has {}", T_,
                            T_ + 1, part_name(part_), corpus_->source(part_), ids.size()));
  std::vector<int64_t> counts(static_cast<size_t>(corpus_->vocab().size()), 0);
  const std::vector<int32_t>& train = corpus_->ids(Part::train);
  for (int32_t i : train) ++counts[i];
  for (int64_t c : counts)
    if (c) unigram_bits_ -= static_cast<double>(c) / train.size() * std::log2(static_cast<double>(c) / train.size());
}

Signature TextTask::signature() const {
  Signature s;
  s.symbolic_input = true;
  s.input_dim = s.output_dim = corpus_->vocab().size();
  s.output = OutputKind::softmax;
  s.alphabet = corpus_->vocab().alphabet();
  return s;
}

int64_t TextTask::num_sequences() const {
  return text::num_sequences(static_cast<int64_t>(corpus_->ids(part_).size()), T_);
}

Batch TextTask::sample(int64_t batch, Rng& rng) const {
  if (batch < 1) throw Error(fmt::format("task 'text': a batch needs at least 1 sequence (got {})", batch));
  std::vector<int64_t> which(static_cast<size_t>(batch));
  for (int64_t& k : which) k = uniform_int(rng, 0, num_sequences() - 1);
  return make_batch(corpus_->ids(part_), T_, which, warmup_);
}

Batch TextTask::sequences(int64_t first, int64_t count) const {
  if (first < 0 || count < 1 || first + count > num_sequences())
    throw Error(fmt::format("task 'text': sequences [{}, {}) are outside the {} part's [0, {})", first, first + count,
                            part_name(part_), num_sequences()));
  std::vector<int64_t> which(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) which[i] = first + i;
  return make_batch(corpus_->ids(part_), T_, which, warmup_);
}

double TextTask::error_rate(const Batch& b, const std::vector<Tensor>& outputs) const {
  check_outputs(b, outputs, corpus_->vocab().size(), name_);
  return bits_per_char(b, outputs);
}

std::string TextTask::success_criterion() const {
  return fmt::format("bits per character < {} (option target_bpc)", target_bpc_);
}

nlohmann::json with_absolute_paths(nlohmann::json o) {
  namespace fs = std::filesystem;
  for (const char* key : {"file", "train_file", "valid_file", "test_file", "vocab"})
    if (o[key].is_string() && !o[key].get<std::string>().empty())
      o[key] = fs::absolute(o[key].get<std::string>()).lexically_normal().string();
  if (o["file"] == "" && o["train_file"] == "") o["file"] = fs::absolute(kDefaultCorpus).lexically_normal().string();
  return o;
}

}  // namespace tg::tasks::text

namespace tg::tasks {

void register_text(std::vector<TaskInfo>& r) {
  r.push_back({"text", "character-level language modelling of a UTF-8 file (default: data/kjv.txt)", "000 §3.3",
               {{"file", ""},
                {"split", {0.9, 0.05, 0.05}},
                {"train_file", ""},
                {"valid_file", ""},
                {"test_file", ""},
                {"vocab", ""},
                {"part", "train"},
                {"T", 100},
                {"warmup", 0},
                {"target_bpc", 2.0}},
               [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'text'", cfg);
                 text::Sources src;
                 src.file = o.string("file");
                 const std::vector<double> split = o.numbers("split", 3, 0.0, 1.0);
                 if (split[0] <= 0 || std::fabs(split[0] + split[1] + split[2] - 1) > 1e-6)
                   o.fail("split", fmt::format("must be 3 fractions (train > 0, valid, test) summing to 1 (got {})",
                                               cfg["split"].dump()));
                 std::copy(split.begin(), split.end(), src.split.begin());
                 src.train_file = o.string("train_file");
                 src.valid_file = o.string("valid_file");
                 src.test_file = o.string("test_file");
                 src.vocab_file = o.string("vocab");
                 const std::string part = o.choice("part", {"train", "valid", "test"});
                 const int64_t T = o.integer("T", 1, 10'000'000);
                 const int64_t warmup = o.integer("warmup", 0, T - 1);
                 const double target = o.number("target_bpc", 1e-9, 1e9);
                 const text::Part p = part == "train" ? text::Part::train : part == "valid" ? text::Part::valid : text::Part::test;
                 auto corpus = text::Corpus::shared(src);  // one copy for the train, valid and test parts
                 return std::make_unique<text::TextTask>(corpus, p, T, warmup, target);
               }});
}

}  // namespace tg::tasks
