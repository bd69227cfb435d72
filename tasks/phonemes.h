// The phoneme-recognition task on the corpus scripts/speech_corpus.sh makes (docs/speech.md): each
// sequence is one utterance's frames of features (MFCC + Δ + ΔΔ, or log-mel energies), its target the
// utterance's phone sequence (tasks::Targets::labels), which a model learns with CTC (models/ctc.h): the
// outputs are the 39 phones and the blank, the last class. The measure is the phoneme error rate of
// best-path decoding: Σ edit distance / Σ reference length (tasks/edit_distance.h).
#pragma once
#include "tasks/speech_corpus.h"
