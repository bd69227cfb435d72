// One sequence of a task, unpadded (what generators produce and dump files hold), its conversion
// to and from padded batches, and the scoring helpers the tasks' error rates share.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace tg::tasks {

struct Example {
  int64_t length = 0;
  std::vector<int32_t> input_symbols;   // length entries (symbolic inputs), else empty
  std::vector<double> input_dense;      // length * input_dim (dense inputs), else empty
  std::vector<int32_t> target_symbols;  // length entries (softmax outputs), else empty
  std::vector<double> target_dense;     // length * output_dim (logistic / linear outputs), else empty
  // (targets where loss_mask is 0 mean nothing: files hold null there and read back 0)
  std::vector<uint8_t> input_mask;      // length entries: 1 = a real step, 0 = state carried over
  std::vector<uint8_t> loss_mask;       // length entries: 1 = the step has a target
  std::optional<double> true_bits;      // see Batch::true_bits
};

// An example of `length` steps with every buffer sized for `sig`, all masks 1 and targets zero.
Example blank_example(const Signature& sig, int64_t length);

// Pads to the longest example: after its end a sequence has input mask 0, loss mask 0, symbol 0 and
// zero vectors. Batch::inputs.mask is left empty when no step of any sequence has input mask 0.
// Tensors are float32. true_bits is filled only if every example has it.
Batch collate(const std::vector<Example>& examples, const Signature& sig);

// The inverse of collate: one example per sequence, trailing padding (steps with input mask 0 and
// loss mask 0) dropped.
std::vector<Example> split(const Batch& batch, const Signature& sig);

// ---- scoring --------------------------------------------------------------------------------------

// Throws tg::Error unless `outputs` holds batch.steps() tensors of shape [B, out].
void check_outputs(const Batch& b, const std::vector<Tensor>& outputs, int64_t out, const std::string& task);

// Whether the output at step t of sequence s is right: softmax, the argmax (first on ties) is the
// target; logistic, the logit's sign matches the 0/1 target; linear, |prediction - target| <= tolerance.
bool step_correct(const Batch& b, const std::vector<Tensor>& outputs, OutputKind kind, int64_t t,
                  int64_t s, double tolerance = 0.04);

// The steps of sequence s that have a target (loss mask 1), in order.
std::vector<int64_t> target_steps(const Batch& b, int64_t s);

// Which target steps of sequence s are scored; default: all of them.
using ScoredSteps = std::function<std::vector<int64_t>(const Batch& b, int64_t s)>;

// Fraction of sequences with at least one wrong scored step (Hochreiter & Schmidhuber's criterion).
double sequence_error(const Batch& b, const std::vector<Tensor>& outputs, OutputKind kind,
                      const ScoredSteps& scored = target_steps, double tolerance = 0.04);
// Fraction of scored steps that are wrong, over the whole batch (000 Ch.7's memorization metric).
double step_error(const Batch& b, const std::vector<Tensor>& outputs, OutputKind kind,
                  const ScoredSteps& scored = target_steps, double tolerance = 0.04);

// Per sequence: -log2 of the softmax probability of the target, summed over the loss-masked steps.
// With smooth, the prediction at step t is first mixed with the uniform law over the output_dim
// symbols, (1 - 1/(t+2)) pi_t + 1/(t+2) uniform: Ollivier's validation regularisation (003 §7.1).
std::vector<double> model_bits(const Batch& b, const std::vector<Tensor>& logits, bool smooth);

}  // namespace tg::tasks
