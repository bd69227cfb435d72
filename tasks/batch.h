// The data layer's types: a batch of B sequences of T steps (time-major), its targets, and the kind
// of output units the targets are for. Models read Sequence, losses read Targets, optimizers slice
// Batches; none of these types knows about models or optimizers.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/params.h"
#include "ops/ops.h"
#include "tasks/data.h"

namespace tg::tasks {

// Inputs: either symbols (one index per sequence and step: a column lookup, no one-hot matmul) or
// dense vectors [B, in].
struct Sequence {
  int64_t T = 0, B = 0;
  std::vector<ops::Index> symbols;  // T entries of B indices in [0, in), or empty
  std::vector<Tensor> dense;        // T entries of [B, in], or empty
  // Optional per-step input masks, T entries of [B] (1 = a real step, 0 = padding): where 0 the
  // state is carried over unchanged, so variable-length sequences can share a batch.
  std::vector<Tensor> mask;
  // Optional training-time dropout factors (0 or 1/(1-p)) on the non-recurrent connections, drawn by
  // the objective (models/noise.h) and sliced with the batch: T entries of [B, in] (dense inputs) or
  // [B] (symbolic inputs: a dropped one-hot unit), and T entries of [B, R] on what the output layer
  // reads. Empty: no dropout (evaluation).
  std::vector<Tensor> input_keep;
  std::vector<Tensor> readout_keep;
};

// Each sequence's real steps: its count of nonzero entries in `mask` (T entries of [B]), or T when there
// are no masks. With trailing padding, its length.
std::vector<int64_t> sequence_lengths(const std::vector<Tensor>& mask, int64_t T, int64_t B);
inline std::vector<int64_t> sequence_lengths(const Sequence& xs) { return sequence_lengths(xs.mask, xs.T, xs.B); }

// Per-step targets in the layout the matching losses read (models/loss.h).
struct Targets {
  std::vector<ops::Index> symbols;  // softmax: T entries of B class ids
  std::vector<Tensor> dense;        // logistic ([0,1]) / linear: T entries of [B, out]
  std::vector<Tensor> mask;         // T entries of [B] loss weights (0 = not counted); empty: all steps
  // Sequence targets instead of per-step ones (CTC, models/ctc.h): per sequence its label sequence, whose
  // alignment to the steps is the model's to find; with them the other fields are empty. Empty otherwise.
  std::vector<std::vector<int32_t>> labels;
};

// What the output units are: the matching loss follows (softmax + cross-entropy, logistic + binary
// cross-entropy, linear + squared error), which makes Gauss-Newton PSD.
enum class OutputKind { softmax, logistic, linear };

// The one name table of output kinds (configs, task files, the CLI's listings).
const char* output_kind_name(OutputKind kind);
std::optional<OutputKind> output_kind_named(std::string_view name);  // nullopt for an unknown name

// B sequences of T steps with their targets: the data of every zoo task.
struct Batch : Data {
  Batch() = default;
  Batch(Sequence inputs, Targets targets, std::vector<double> true_bits = {},
        std::shared_ptr<const ParamVec> weight_noise = nullptr)
      : inputs(std::move(inputs)), targets(std::move(targets)), true_bits(std::move(true_bits)),
        weight_noise(std::move(weight_noise)) {}

  Sequence inputs;  // inputs.mask is empty when every sequence runs all T steps
  Targets targets;
  // Per sequence: the bits the true generator spends on the loss-masked targets (-log2 of their
  // probability given the past), for tasks whose generator is known (Ollivier's); else empty.
  std::vector<double> true_bits;
  // Training-time additive weight noise for this batch (drawn with its dropout masks by the
  // objective; shared by every slice, so one HF iteration sees one noise sample). Null: none.
  std::shared_ptr<const ParamVec> weight_noise;
  // The seed of a model's own sampling on this training batch (the Boltzmann machines' Gibbs chains),
  // drawn by the objective's draw_noise; 0 on batches drawn for evaluation.
  uint64_t sample_seed = 0;
  // Draws sample_seed from rng, never 0 (what an objective's draw_noise does for a training batch).
  void draw_sample_seed(Rng& rng) {
    do sample_seed = rng();
    while (sample_seed == 0);
  }
  int64_t steps() const { return inputs.T; }
  int64_t size() const override { return inputs.B; }
  std::unique_ptr<Data> slice(int64_t first, int64_t count) const override;
  std::unique_ptr<Data> clone() const override { return std::make_unique<Batch>(*this); }
  bool same_as(const Data& other) const override;
  std::string describe() const override;
};

// Rows [first, first + count) of an [N, ...] tensor (copied) or of N indices: the cutting that every
// kind of batch's slice does to its parts.
Tensor rows_of(const Tensor& t, int64_t first, int64_t count);
ops::Index rows_of(const ops::Index& i, int64_t first, int64_t count);

// Sequences [first, first + count) of a batch (a curvature batch inside a gradient batch, or a chunk
// of a large batch evaluated piece by piece to bound the tape's memory).
Batch slice(const Batch& b, int64_t first, int64_t count);

}  // namespace tg::tasks
