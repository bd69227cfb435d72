// The corpus scripts/speech_corpus.sh makes (docs/speech.md), as the speech tasks read it: one split
// (DIR/{train,dev,test}.npz) in memory, read once per process, and the training part's per-dimension
// standardisation.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tg::tasks {

// One split of the corpus in memory: frames of `dim` features, row-major, utterance u spanning frames
// offsets[u] .. offsets[u+1], with its phone indices.
struct SpeechPart {
  int64_t dim = 0;
  std::vector<float> frames;
  std::vector<int64_t> offsets;
  std::vector<std::vector<int32_t>> labels;
  std::vector<int64_t> speakers;  // per utterance, an index into the split's speakers in corpus.json
  int64_t utterances() const { return static_cast<int64_t>(labels.size()); }
  int64_t length(int64_t u) const { return offsets[static_cast<size_t>(u + 1)] - offsets[static_cast<size_t>(u)]; }
};

// Reads `features` ("mfcc" or "fbank") of DIR/<split>.npz; every size and index is validated (a clear
// tg::Error naming the file and the array), labels must lie in [0, phones).
SpeechPart read_speech_part(const std::string& path, const std::string& features, int64_t phones);
// The same, read once per process however many tasks (parts, evaluations) ask; a file rewritten since
// (another size or time) is read again.
std::shared_ptr<const SpeechPart> cached_speech_part(const std::string& path, const std::string& features, int64_t phones);

// The utterances of `split` (train, dev, test) in DIR spoken by espeak-ng voice variant `voice` (m1,
// f3, ...: the speakers DIR/corpus.json lists as "<accent>+<voice>/s<rate>/p<pitch>"); a voice the
// split does not have is a tg::Error naming the ones it has.
std::vector<int64_t> utterances_of_voice(const SpeechPart& part, const std::string& dir, const std::string& split,
                                         const std::string& voice);

// Per-dimension mean and 1 / standard deviation of a part's frames (the training part's normalise all).
struct SpeechStandardizer {
  std::vector<double> mean, scale;
  explicit SpeechStandardizer(const SpeechPart& p);
  double operator()(double x, int64_t d) const {
    return (x - mean[static_cast<size_t>(d)]) * scale[static_cast<size_t>(d)];
  }
};

}  // namespace tg::tasks
