// Data sets: what the trainer, the evaluation and the optimizers need of any data, whatever its cases
// are (sequences, images, ...). A sequence task (tasks/task.h) and an image set (tasks/images.h) are
// the two kinds; each hands out its own Data (tasks/data.h) and scores a model's outputs on it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/params.h"
#include "core/tensor.h"
#include "tasks/batch.h"
#include "tasks/data.h"

namespace tg::tasks {

// What a model must look like to be trained on a data set.
struct Signature {
  bool symbolic_input = false;  // inputs are symbols in [0, input_dim) (else dense vectors)
  int64_t input_dim = 0;
  OutputKind output = OutputKind::softmax;
  int64_t output_dim = 0;
  // Next-character tasks (text, Ollivier's): the UTF-8 character of each symbol, input and output
  // alike (for sampling and for reading dumps); empty for the other tasks.
  std::vector<std::string> alphabet;
};

// Whether a model made for data of signature `a` reads and predicts data of signature `b`: the same
// kind and size of inputs and the same kind and number of outputs (the alphabets may differ).
inline bool same_inputs_and_outputs(const Signature& a, const Signature& b) {
  return a.symbolic_input == b.symbolic_input && a.input_dim == b.input_dim && a.output == b.output &&
         a.output_dim == b.output_dim;
}

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual const std::string& name() const = 0;
  virtual Signature signature() const = 0;
  // `count` cases drawn afresh (a generator) or at random (fixed data); deterministic given the RNG state.
  virtual std::unique_ptr<Data> draw(int64_t count, Rng& rng) const = 0;
  // Fixed data also hands out its cases in order, for a full evaluation pass; generators have none
  // (num_cases() is 0 and cases() throws tg::Error).
  virtual int64_t num_cases() const { return 0; }
  virtual std::unique_ptr<Data> cases(int64_t first, int64_t count) const;
  // The data set's own measure of a model's outputs on `d` (Evaluation::output_values), as a mean
  // over its cases: the fraction of wrong sequences, bits per character, squared error per image, ...
  virtual double score(const Data& d, const std::vector<Tensor>& outputs) const = 0;
  // What score() averages over in `d`: its number of cases, or a measure's own denominator (the
  // phoneme error rate: the reference phones), so that chunks of an evaluation combine exactly.
  virtual double score_weight(const Data& d) const { return static_cast<double>(d.size()); }
  // Cases per evaluation pass: bounds the tape's memory (long utterances take fewer).
  virtual int64_t evaluation_chunk() const { return 500; }
  virtual std::string success_criterion() const = 0;  // e.g. "< 1% of test sequences off by > 0.04"
  virtual double success_threshold() const = 0;       // a score below this counts as success (-inf: none)
  // The score of a predictor that ignores the inputs (docs/tasks.md says which); NaN if unknown.
  virtual double chance_level() const = 0;
  virtual std::string case_noun() const { return "sequences"; }  // for messages: "10000 sequences", "images"
};

}  // namespace tg::tasks
