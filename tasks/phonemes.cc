#include "tasks/phonemes.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "core/npz.h"
#include "core/options.h"
#include "tasks/ctc_decode.h"
#include "tasks/edit_distance.h"
#include "tasks/example.h"
#include "tasks/families.h"
#include "tasks/random.h"
#include "tasks/task.h"

namespace tg::tasks {

SpeechPart read_speech_part(const std::string& path, const std::string& features, int64_t phones) {
  const NpzArchive a(path);
  const NpzEntry& f = a.at(features);
  if (f.shape.size() != 2 || f.shape[1] < 1)
    throw Error(fmt::format("{}: array '{}' has shape [{}], want [frames, dim]", path, features, fmt::join(f.shape, ", ")));
  SpeechPart p;
  p.dim = f.shape[1];
  const std::vector<double> values = f.doubles();
  p.frames.assign(values.begin(), values.end());
  p.offsets = a.int64s("frame_offsets");
  const std::vector<int64_t> labels = a.int64s("labels"), label_offsets = a.int64s("label_offsets");
  const int64_t frames = f.shape[0];
  auto monotone = [&](const std::vector<int64_t>& o, int64_t total, const char* name) {
    if (o.size() < 2 || o.front() != 0 || o.back() != total)
      throw Error(fmt::format("{}: '{}' must run from 0 to {} (got {} entries)", path, name, total, o.size()));
    for (size_t i = 1; i < o.size(); ++i)
      if (o[i] < o[i - 1]) throw Error(fmt::format("{}: '{}' decreases at entry {}", path, name, i));
  };
  monotone(p.offsets, frames, "frame_offsets");
  monotone(label_offsets, static_cast<int64_t>(labels.size()), "label_offsets");
  if (label_offsets.size() != p.offsets.size())
    throw Error(fmt::format("{}: {} utterances of frames, {} of labels", path, p.offsets.size() - 1,
                            label_offsets.size() - 1));
  for (size_t u = 0; u + 1 < label_offsets.size(); ++u) {
    std::vector<int32_t> l;
    for (int64_t i = label_offsets[u]; i < label_offsets[u + 1]; ++i) {
      if (labels[static_cast<size_t>(i)] < 0 || labels[static_cast<size_t>(i)] >= phones)
        throw Error(fmt::format("{}: utterance {} has phone {} (want [0, {}))", path, u, labels[static_cast<size_t>(i)], phones));
      l.push_back(static_cast<int32_t>(labels[static_cast<size_t>(i)]));
    }
    p.labels.push_back(std::move(l));
  }
  return p;
}

namespace {
constexpr int64_t kPhones = 39;  // scripts/speech/make_corpus.py's folded set; the blank is class 39

// Per-dimension mean and standard deviation of a part's frames (the training part's normalise them all).
struct Standardizer {
  std::vector<double> mean, scale;
  explicit Standardizer(const SpeechPart& p) : mean(static_cast<size_t>(p.dim)), scale(static_cast<size_t>(p.dim)) {
    const int64_t n = static_cast<int64_t>(p.frames.size()) / p.dim;
    std::vector<double> sq(static_cast<size_t>(p.dim));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t d = 0; d < p.dim; ++d) {
        const double x = p.frames[static_cast<size_t>(i * p.dim + d)];
        mean[static_cast<size_t>(d)] += x, sq[static_cast<size_t>(d)] += x * x;
      }
    for (size_t d = 0; d < mean.size(); ++d) {
      mean[d] /= static_cast<double>(n);
      scale[d] = 1.0 / std::sqrt(std::max(sq[d] / static_cast<double>(n) - mean[d] * mean[d], 1e-12));
    }
  }
};

// Each file is read once per process, however many tasks (parts, evaluations) read it; a file rewritten
// since (another size or time) is read again.
std::shared_ptr<const SpeechPart> cached_part(const std::string& path, const std::string& features) {
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<const SpeechPart>> cache;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto time = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  const std::lock_guard lock(m);
  auto& slot = cache[fmt::format("{}\n{}\n{}\n{}", path, features, ec ? 0 : size, ec ? 0 : time)];
  if (!slot) slot = std::make_shared<const SpeechPart>(read_speech_part(path, features, kPhones));
  return slot;
}

class PhonemeTask final : public Task {
 public:
  PhonemeTask(std::shared_ptr<const SpeechPart> part, std::shared_ptr<const SpeechPart> train, bool standardize)
      : part_(std::move(part)) {
    if (standardize) standardizer_ = std::make_shared<Standardizer>(*train);
    sig_.symbolic_input = false;
    sig_.input_dim = part_->dim;
    sig_.output = OutputKind::softmax;
    sig_.output_dim = kPhones + 1;
  }
  const std::string& name() const override { return name_; }
  Signature signature() const override { return sig_; }
  std::string case_noun() const override { return "utterances"; }
  int64_t num_sequences() const override { return part_->utterances(); }

  Batch sample(int64_t count, Rng& rng) const override {
    std::vector<int64_t> which;
    for (int64_t i = 0; i < count; ++i) which.push_back(uniform_int(rng, 0, part_->utterances() - 1));
    return batch_of(which);
  }
  Batch sequences(int64_t first, int64_t count) const override {
    if (first < 0 || count < 1 || first + count > part_->utterances())
      throw Error(fmt::format("task 'phonemes': utterances [{}, {}) of {}", first, first + count, part_->utterances()));
    std::vector<int64_t> which;
    for (int64_t i = first; i < first + count; ++i) which.push_back(i);
    return batch_of(which);
  }

  // The phoneme error rate of best-path decoding over the batch.
  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, kPhones + 1, name_);
    std::vector<int64_t> lengths;
    for (int64_t s = 0; s < b.size(); ++s) {
      int64_t len = b.steps();
      if (!b.inputs.mask.empty()) {
        len = 0;
        for (int64_t t = 0; t < b.steps(); ++t) len += b.inputs.mask[t].at(s) != 0;
      }
      lengths.push_back(len);
    }
    return label_error_rate(b.targets.labels, ctc_greedy_decode(outputs, lengths, kPhones));
  }
  std::string success_criterion() const override {
    return "none: Krueger's Table 5.IV reports TIMIT phoneme error rates (ours is a synthetic corpus)";
  }
  double success_threshold() const override { return -INFINITY; }
  double chance_level() const override { return 1.0; }  // emitting nothing: every phone deleted

 private:
  // The utterances `which` as a batch: frames zero-padded at the end to the longest, input masks then.
  Batch batch_of(const std::vector<int64_t>& which) const {
    const int64_t B = static_cast<int64_t>(which.size()), D = part_->dim;
    int64_t T = 0;
    for (int64_t u : which) T = std::max(T, part_->offsets[static_cast<size_t>(u + 1)] - part_->offsets[static_cast<size_t>(u)]);
    Batch b;
    b.inputs.T = T, b.inputs.B = B;
    bool padded = false;
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> x(static_cast<size_t>(B * D), 0.0), m(static_cast<size_t>(B), 0.0);
      for (int64_t s = 0; s < B; ++s) {
        const int64_t start = part_->offsets[static_cast<size_t>(which[s])], len = part_->offsets[static_cast<size_t>(which[s] + 1)] - start;
        if (t >= len) {
          padded = true;
          continue;
        }
        m[static_cast<size_t>(s)] = 1;
        for (int64_t d = 0; d < D; ++d) {
          double v = part_->frames[static_cast<size_t>((start + t) * D + d)];
          if (standardizer_) v = (v - standardizer_->mean[static_cast<size_t>(d)]) * standardizer_->scale[static_cast<size_t>(d)];
          x[static_cast<size_t>(s * D + d)] = v;
        }
      }
      b.inputs.dense.push_back(Tensor::from({B, D}, x, DType::f32));
      b.inputs.mask.push_back(Tensor::from({B}, m, DType::f32));
    }
    if (!padded) b.inputs.mask.clear();
    for (int64_t u : which) b.targets.labels.push_back(part_->labels[static_cast<size_t>(u)]);
    return b;
  }

  std::string name_ = "phonemes";
  Signature sig_;
  std::shared_ptr<const SpeechPart> part_;
  std::shared_ptr<Standardizer> standardizer_;
};
}  // namespace

void register_speech(std::vector<TaskInfo>& r) {
  r.push_back({"phonemes",
               "phoneme recognition with CTC on the espeak-ng corpus (scripts/speech_corpus.sh); phoneme error rate",
               "004 §3.2 (stand-in for TIMIT)",
               {{"dir", "data/speech"}, {"features", "mfcc"}, {"part", "train"}, {"standardize", true}},
               [](const nlohmann::json& cfg) -> std::unique_ptr<Dataset> {
                 const OptionReader o("task 'phonemes'", cfg);
                 const std::string dir = o.string("dir"), features = o.choice("features", {"mfcc", "fbank"});
                 const std::string part = o.choice("part", {"train", "valid", "test"});
                 const std::string file = part == "valid" ? "dev" : part;
                 if (!std::filesystem::exists(dir + "/train.npz"))
                   throw Error(fmt::format("task 'phonemes': {}/train.npz is missing: make the corpus with bash "
                                           "scripts/speech_corpus.sh",
                                           dir));
                 return std::make_unique<PhonemeTask>(cached_part(fmt::format("{}/{}.npz", dir, file), features),
                                                      cached_part(dir + "/train.npz", features), o.flag("standardize"));
               }});
}

}  // namespace tg::tasks
