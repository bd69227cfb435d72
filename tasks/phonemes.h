// The phoneme-recognition task on the corpus scripts/speech_corpus.sh makes (docs/speech.md): each
// sequence is one utterance's frames of features (MFCC + Δ + ΔΔ, or log-mel energies), its target the
// utterance's phone sequence (tasks::Targets::labels), which a model learns with CTC (models/ctc.h): the
// outputs are the 39 phones and the blank, the last class. The measure is the phoneme error rate of
// best-path decoding: Σ edit distance / Σ reference length (tasks/edit_distance.h).
#pragma once
#include <cstdint>
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
  int64_t utterances() const { return static_cast<int64_t>(labels.size()); }
};

// Reads `features` ("mfcc" or "fbank") of DIR/<split>.npz; every size and index is validated (a clear
// tg::Error naming the file and the array), labels must lie in [0, phones).
SpeechPart read_speech_part(const std::string& path, const std::string& features, int64_t phones);

}  // namespace tg::tasks
