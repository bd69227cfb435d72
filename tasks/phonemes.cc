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

namespace {
constexpr int64_t kPhones = 39;  // scripts/speech/make_corpus.py's folded set; the blank is class 39

class PhonemeTask final : public Task {
 public:
  // The part's utterances `kept` (all when empty: a voice option picks some).
  PhonemeTask(std::shared_ptr<const SpeechPart> part, std::shared_ptr<const SpeechPart> train, bool standardize,
              std::vector<int64_t> kept)
      : part_(std::move(part)), kept_(std::move(kept)) {
    if (standardize) standardizer_ = std::make_shared<SpeechStandardizer>(*train);
    if (kept_.empty())
      for (int64_t u = 0; u < part_->utterances(); ++u) kept_.push_back(u);
    for (int64_t u : kept_) longest_ = std::max(longest_, part_->length(u));
    sig_.symbolic_input = false;
    sig_.input_dim = part_->dim;
    sig_.output = OutputKind::softmax;
    sig_.output_dim = kPhones + 1;
  }
  const std::string& name() const override { return name_; }
  Signature signature() const override { return sig_; }
  std::string case_noun() const override { return "utterances"; }
  int64_t num_sequences() const override { return static_cast<int64_t>(kept_.size()); }

  Batch sample(int64_t count, Rng& rng) const override {
    std::vector<int64_t> which;
    for (int64_t i = 0; i < count; ++i) which.push_back(kept_[static_cast<size_t>(uniform_int(rng, 0, num_sequences() - 1))]);
    return batch_of(which);
  }
  Batch sequences(int64_t first, int64_t count) const override {
    if (first < 0 || count < 1 || first + count > num_sequences())
      throw Error(fmt::format("task 'phonemes': utterances [{}, {}) of {}", first, first + count, num_sequences()));
    return batch_of(std::vector<int64_t>(kept_.begin() + first, kept_.begin() + first + count));
  }

  // The phoneme error rate of best-path decoding over the batch.
  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, kPhones + 1, name_);
    return label_error_rate(b.targets.labels, ctc_greedy_decode(outputs, sequence_lengths(b.inputs), kPhones));
  }
  // The PER is Σ edit distance / Σ reference length: a chunk weighs its reference phones.
  double score_weight(const Data& d) const override {
    double phones = 0;
    for (const auto& l : data_as<Batch>(d).targets.labels) phones += static_cast<double>(l.size());
    return phones;
  }
  // about 20,000 utterance frames per evaluation pass (a 3x250 deep BLSTM's tape: about 1 GB)
  int64_t evaluation_chunk() const override { return std::max<int64_t>(1, 20000 / longest_); }
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
          if (standardizer_) v = (*standardizer_)(v, d);
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
  std::vector<int64_t> kept_;  // the utterances of the part this task reads
  std::shared_ptr<SpeechStandardizer> standardizer_;
  int64_t longest_ = 1;  // frames of the longest of them
};
}  // namespace

void register_speech(std::vector<TaskInfo>& r) {
  r.push_back({"phonemes",
               "phoneme recognition with CTC on the espeak-ng corpus (scripts/speech_corpus.sh); phoneme error rate",
               "004 §3.2 (stand-in for TIMIT)",
               {{"dir", "data/speech"}, {"features", "mfcc"}, {"part", "train"}, {"standardize", true}, {"voice", ""}},
               [](const nlohmann::json& cfg) -> std::unique_ptr<Dataset> {
                 const OptionReader o("task 'phonemes'", cfg);
                 const std::string dir = o.string("dir"), features = o.choice("features", {"mfcc", "fbank"});
                 const std::string part = o.choice("part", {"train", "valid", "test"});
                 const std::string file = part == "valid" ? "dev" : part;
                 if (!std::filesystem::exists(dir + "/train.npz"))
                   throw Error(fmt::format("task 'phonemes': {}/train.npz is missing: make the corpus with bash "
                                           "scripts/speech_corpus.sh",
                                           dir));
                 auto utterances = cached_speech_part(fmt::format("{}/{}.npz", dir, file), features, kPhones);
                 // one voice variant's utterances only (eval --task-set voice=m7: how each test speaker fares)
                 const std::string voice = o.string("voice");
                 std::vector<int64_t> kept = voice.empty() ? std::vector<int64_t>{} : utterances_of_voice(*utterances, dir, file, voice);
                 return std::make_unique<PhonemeTask>(utterances, cached_speech_part(dir + "/train.npz", features, kPhones),
                                                      o.flag("standardize"), std::move(kept));
               }});
}

}  // namespace tg::tasks
