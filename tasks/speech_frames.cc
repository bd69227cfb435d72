// Next-frame prediction of speech features, Table 4.1's speech row (Sutskever's thesis §4.5; Martens &
// Sutskever 2011: TIMIT's 39-dimensional MFCC vectors, sequences of 100 frames, squared error) on the
// corpus of scripts/speech_corpus.sh (TIMIT is licensed; docs/speech.md). A sequence is a window of
// steps + 1 consecutive frames of one utterance: the inputs frames 0..steps-1, the targets frames
// 1..steps, linear outputs and the squared error. Training draws windows at random places of random
// utterances; evaluation reads the part's fixed windows, each utterance cut at 0, steps, 2 steps, ...
// (non-overlapping). The measure is the squared error per predicted frame, summed over its dimensions
// (features standardised with the training part's mean and deviation).
// features=mfcc_static keeps only the 13 static coefficients of each frame (the first third of the MFCC
// vector): the deltas of frame t are regressions over frames t-2..t+2 (the delta-deltas over t-4..t+4),
// so with them the input already holds part of the frame it is asked to predict.
#include <fmt/format.h>

#include <filesystem>

#include "core/error.h"
#include "core/options.h"
#include "tasks/example.h"
#include "tasks/families.h"
#include "tasks/random.h"
#include "tasks/speech_corpus.h"
#include "tasks/task.h"

namespace tg::tasks {

namespace {
constexpr int64_t kPhones = 39;  // the corpus's phone set (its labels are checked on reading, unused here)

class SpeechFramesTask final : public Task {
 public:
  // Frames are the first `dim` of the part's features (all of them, or the static third).
  SpeechFramesTask(std::shared_ptr<const SpeechPart> part, std::shared_ptr<const SpeechPart> train, int64_t steps,
                   int64_t dim, bool standardize)
      : part_(std::move(part)), steps_(steps), dim_(dim) {
    if (standardize) standardizer_ = std::make_shared<SpeechStandardizer>(*train);
    sig_.symbolic_input = false;
    sig_.input_dim = dim_;
    sig_.output = OutputKind::linear;
    sig_.output_dim = dim_;
    for (int64_t u = 0; u < part_->utterances(); ++u) {
      if (part_->length(u) >= steps_ + 1) long_enough_.push_back(u);
      for (int64_t k = 0; (k + 1) * steps_ + 1 <= part_->length(u); ++k) windows_.push_back({u, k * steps_});
    }
    if (windows_.empty())
      throw Error(fmt::format("task 'speech_frames': no utterance of the part has {} frames (steps + 1)", steps_ + 1));
  }
  const std::string& name() const override { return name_; }
  Signature signature() const override { return sig_; }
  int64_t num_sequences() const override { return static_cast<int64_t>(windows_.size()); }

  Batch sample(int64_t count, Rng& rng) const override {
    std::vector<Window> which;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t u = long_enough_[static_cast<size_t>(uniform_int(rng, 0, static_cast<int64_t>(long_enough_.size()) - 1))];
      which.push_back({u, uniform_int(rng, 0, part_->length(u) - steps_ - 1)});
    }
    return batch_of(which);
  }
  Batch sequences(int64_t first, int64_t count) const override {
    if (first < 0 || count < 1 || first + count > num_sequences())
      throw Error(fmt::format("task 'speech_frames': windows [{}, {}) of {}", first, first + count, num_sequences()));
    return batch_of(std::vector<Window>(windows_.begin() + first, windows_.begin() + first + count));
  }

  // Squared error per predicted frame, summed over the frame's dimensions.
  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, dim_, name_);
    double sum = 0;
    for (int64_t t = 0; t < b.steps(); ++t)
      for (int64_t i = 0; i < b.size() * dim_; ++i) {
        const double d = outputs[t].at(i) - b.targets.dense[t].at(i);
        sum += d * d;
      }
    return sum / static_cast<double>(b.size() * b.steps());
  }
  std::string success_criterion() const override {
    return "none: Table 4.1 reports TIMIT's speech error (RNN+HF 22, LSTM+GD 41; ours is a synthetic corpus)";
  }
  double success_threshold() const override { return -INFINITY; }
  // predicting the training mean: each standardised dimension's variance, about 1
  double chance_level() const override { return static_cast<double>(dim_); }

 private:
  struct Window {
    int64_t utterance, start;
  };

  Batch batch_of(const std::vector<Window>& which) const {
    const int64_t B = static_cast<int64_t>(which.size()), D = dim_;
    Batch b;
    b.inputs.T = steps_, b.inputs.B = B;
    auto frame = [&](const Window& w, int64_t t, std::vector<double>& out, int64_t s) {
      const int64_t row = part_->offsets[static_cast<size_t>(w.utterance)] + w.start + t;
      for (int64_t d = 0; d < D; ++d) {
        const double v = part_->frames[static_cast<size_t>(row * part_->dim + d)];
        out[static_cast<size_t>(s * D + d)] = standardizer_ ? (*standardizer_)(v, d) : v;
      }
    };
    for (int64_t t = 0; t < steps_; ++t) {
      std::vector<double> x(static_cast<size_t>(B * D)), y(static_cast<size_t>(B * D));
      for (int64_t s = 0; s < B; ++s) {
        frame(which[static_cast<size_t>(s)], t, x, s);
        frame(which[static_cast<size_t>(s)], t + 1, y, s);
      }
      b.inputs.dense.push_back(Tensor::from({B, D}, x, DType::f32));
      b.targets.dense.push_back(Tensor::from({B, D}, y, DType::f32));
    }
    return b;
  }

  std::string name_ = "speech_frames";
  Signature sig_;
  std::shared_ptr<const SpeechPart> part_;
  std::shared_ptr<SpeechStandardizer> standardizer_;
  int64_t steps_, dim_;
  std::vector<int64_t> long_enough_;
  std::vector<Window> windows_;
};
}  // namespace

void register_speech_frames(std::vector<TaskInfo>& r) {
  r.push_back({"speech_frames",
               "next-frame prediction of speech features (MFCC + deltas, or features=mfcc_static: the 13 static "
               "coefficients) on the espeak-ng corpus; squared error per frame",
               "000 §4.5, Table 4.1 (stand-in for TIMIT)",
               {{"dir", "data/speech"}, {"features", "mfcc"}, {"part", "train"}, {"steps", 100}, {"standardize", true}},
               [](const nlohmann::json& cfg) -> std::unique_ptr<Dataset> {
                 const OptionReader o("task 'speech_frames'", cfg);
                 const std::string dir = o.string("dir"),
                                   features = o.choice("features", {"mfcc", "mfcc_static", "fbank"});
                 const std::string part = o.choice("part", {"train", "valid", "test"});
                 const int64_t steps = o.integer("steps", 1, 100000);
                 if (!std::filesystem::exists(dir + "/train.npz"))
                   throw Error(fmt::format("task 'speech_frames': {}/train.npz is missing: make the corpus with bash "
                                           "scripts/speech_corpus.sh",
                                           dir));
                 const std::string file = part == "valid" ? "dev" : part, array = features == "fbank" ? "fbank" : "mfcc";
                 auto frames = cached_speech_part(fmt::format("{}/{}.npz", dir, file), array, kPhones);
                 int64_t dim = frames->dim;
                 if (features == "mfcc_static") {
                   if (dim % 3 != 0)
                     throw Error(fmt::format("task 'speech_frames': features=mfcc_static needs MFCC vectors of static "
                                             "coefficients, deltas and delta-deltas (a multiple of 3 wide); {}/{}.npz's "
                                             "'mfcc' is {} wide",
                                             dir, file, dim));
                   dim /= 3;
                 }
                 return std::make_unique<SpeechFramesTask>(std::move(frames),
                                                           cached_speech_part(dir + "/train.npz", array, kPhones), steps,
                                                           dim, o.flag("standardize"));
               }});
}

}  // namespace tg::tasks
