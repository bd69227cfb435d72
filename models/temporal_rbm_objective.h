// The temporal RBMs (models/temporal_rbm.h) as an optimizer's Objective on frame sequences: a batch's
// frames are its first input and its targets (the next-frame tasks: tasks/bouncing_balls.h), the value
// is the CD-k surrogate and the gradient its engine gradient, the CD estimate. The Gibbs chains draw from
// the batch's sample_seed, drawn per training batch by draw_noise (so a run is deterministic and resumes
// exactly); a batch without one (evaluation) seeds them from its own data. Evaluation batches also get
// the next-frame predictions as outputs, for the task's measure. In training k follows the schedule of
// the options (CD-cd_k, then CD-cd_k_late from update cd_switch), read from the trainer's iteration; an
// evaluation uses CD-cd_k_late whatever the iteration, so the same batch scores the same in training,
// eval and video.
//
// There is no curvature: the surrogate's value is not the model's objective (its gradient is a biased
// estimate of the log-likelihood's), so Gauss-Newton products, line searches and HF do not apply; the
// trainer refuses those optimizers (tools/run_setup.cc).
#pragma once
#include <cstdint>
#include <memory>

#include "models/temporal_rbm.h"
#include "optim/objective.h"
#include "tasks/batch.h"

namespace tg::models {

class TemporalRbmObjective : public optim::Objective {
 public:
  explicit TemporalRbmObjective(TemporalRbm model) : model_(std::move(model)) {}
  const ParamSet& params() const override { return model_.params(); }
  std::unique_ptr<optim::Evaluation> evaluate(const ParamVec& theta, const tasks::Data& b) override;
  void draw_noise(tasks::Data& b, Rng& rng) override;
  void at_iteration(int64_t it) override { iteration_ = it; }
  // CD's k at the current iteration.
  int cd_steps() const;
  const TemporalRbm& model() const { return model_; }

 private:
  TemporalRbm model_;
  int64_t iteration_ = 0;
};

// The frames of a next-frame batch: its inputs' first step, then every step's target (T + 1 frames of
// [B, V]), in the parameters' dtype. A batch of another shape is a tg::Error.
std::vector<Tensor> batch_frames(const tasks::Batch& b, int64_t visible, DType dt);

}  // namespace tg::models
