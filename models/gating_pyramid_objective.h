// The gated models (models/gating_pyramid.h, models/pair_autoencoder.h) as optimizers' Objectives on the
// next-frame tasks of tasks/gated_tasks.cc. A batch's frames are its first input (its first `frame`
// columns) and every step's target; the CPGP's inputs are the other columns of each step's input (at step
// t: what acts on the prediction of frame t + 1). The frames whose targets the loss mask leaves out are
// the seed the pyramid infers its dynamics from; the rest it predicts in closed loop.
//
// The loss, a mean of ½ (error)² per number (the zoo's linear matching loss), is
//   fgae, pair_ae:  the symmetric reconstruction error of every consecutive pair of frames (denoising in
//                   training); outputs: each frame reconstructed from its predecessor and the pair's mapping
//   pgp, cpgp:      for the first layers × pretrain_steps updates, layer ℓ = 1 + iteration / pretrain_steps
//                   pre-trained as an autoencoder on its inputs (as fgae, the layers below fixed); then
//                   the closed-loop prediction error of the scored frames. Outputs: the predictions.
// Each loss's Gauss-Newton block is at the reconstructions or predictions it squares, so HF trains them.
// Corruption masks are drawn from the batch's sample_seed (draw_noise); evaluation batches have none and
// are scored clean. An objective never told an iteration (tapegrad eval) scores the prediction loss.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>

#include "models/gating_pyramid.h"
#include "models/pair_autoencoder.h"
#include "optim/objective.h"
#include "tasks/batch.h"

namespace tg::models {

class GatedObjective : public optim::Objective {
 public:
  explicit GatedObjective(GatingPyramid model) : pyramid_(std::move(model)) {}
  explicit GatedObjective(PairAutoencoder model) : pair_(std::move(model)) {}
  const ParamSet& params() const override { return pyramid_ ? pyramid_->params() : pair_->params(); }
  std::unique_ptr<optim::Evaluation> evaluate(const ParamVec& theta, const tasks::Data& b) override;
  // The loss, curvature block and outputs of b on g, which must have params() bound (what evaluate does
  // at θ; the gradient-check rows call it on their own graphs).
  optim::Built build(Graph& g, const tasks::Batch& b) const;
  void draw_noise(tasks::Data& b, Rng& rng) override;
  void at_iteration(int64_t it) override { iteration_ = it; }
  const GatingPyramid* pyramid() const { return pyramid_ ? &*pyramid_ : nullptr; }  // null for pair_ae
  // The layer being pre-trained at the current iteration (1-based), or 0: the prediction loss. fgae: 1.
  int stage() const;

 private:
  std::optional<GatingPyramid> pyramid_;
  std::optional<PairAutoencoder> pair_;
  int64_t iteration_ = std::numeric_limits<int64_t>::max();
};

// A batch of a gated task split into its frames (T + 1 tensors [B, frame]) and conditioning inputs (T
// tensors [B, cond], empty when cond is 0), in dtype dt, and the number of seed frames (1 + the first
// step the loss mask scores). A batch of another layout is a tg::Error naming it.
struct GatedBatch {
  std::vector<Tensor> frames, conds;
  int64_t seed = 1;
};
GatedBatch gated_batch(const tasks::Batch& b, int64_t frame, int64_t cond, DType dt);

}  // namespace tg::models
