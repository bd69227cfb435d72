#include "models/temporal_rbm_objective.h"

#include <fmt/format.h>

#include <cstring>

#include "core/error.h"
#include "tasks/batch.h"

namespace tg::models {

std::vector<Tensor> batch_frames(const tasks::Batch& b, int64_t visible, DType dt) {
  if (b.inputs.dense.empty() || b.targets.dense.size() != b.inputs.dense.size() || !b.inputs.mask.empty())
    throw Error(fmt::format("temporal RBM: {} is not a next-frame batch (dense frames as inputs and targets, "
                            "every sequence of full length)",
                            b.describe()));
  std::vector<Tensor> frames{b.inputs.dense[0].astype(dt)};
  for (const Tensor& t : b.targets.dense) frames.push_back(t.astype(dt));
  for (const Tensor& f : frames)
    if (f.shape() != Shape{b.size(), visible})
      throw ShapeError(fmt::format("temporal RBM: a frame of {} is {}, the model has {} visible units", b.describe(),
                                   f.shape().str(), visible));
  return frames;
}

int TemporalRbmObjective::cd_steps() const {
  const TemporalRbmOptions& o = model_.options();
  return iteration_ < o.cd_switch ? o.cd_k : o.cd_k_late;
}

void TemporalRbmObjective::draw_noise(tasks::Data& d, Rng& rng) {
  tasks::data_as<tasks::Batch>(d).draw_sample_seed(rng);
}

namespace {
// An evaluation batch's chains are seeded by its data (FNV-1a over the first frame): the same batch gets
// the same predictions in every evaluation.
uint64_t data_seed(const tasks::Batch& b) {
  const Tensor& f = b.inputs.dense.at(0);
  const auto* bytes = static_cast<const unsigned char*>(f.raw());
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < static_cast<size_t>(f.size()) * dtype_size(f.dtype()); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}
}  // namespace

std::unique_ptr<optim::Evaluation> TemporalRbmObjective::evaluate(const ParamVec& theta, const tasks::Data& d) {
  const auto& b = tasks::data_as<tasks::Batch>(d);
  model_.params().set_values(theta);
  auto g = std::make_unique<Graph>();
  g->bind(model_.params());
  std::vector<Var> frames;
  for (const Tensor& f : batch_frames(b, model_.options().visible, model_.params().dtype())) frames.push_back(g->input(f));
  optim::Built built;
  if (b.sample_seed != 0) {
    Rng rng(b.sample_seed);
    built.loss = model_.cd_loss(*g, frames, cd_steps(), rng);
  } else {
    // evaluation: the same numbers whatever the trainer's iteration (eval, video, a summary after
    // --resume): the loss at CD-cd_k_late, the predictions from a stream of their own
    Rng loss_rng(data_seed(b)), predict_rng(data_seed(b) ^ 0x9e3779b97f4a7c15ull);
    built.loss = model_.cd_loss(*g, frames, model_.options().cd_k_late, loss_rng);
    built.outputs = model_.predict(*g, frames, model_.options().predict_gibbs, predict_rng);
  }
  return std::make_unique<optim::Evaluation>(std::move(g), std::move(built));
}

}  // namespace tg::models
