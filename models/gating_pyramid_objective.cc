#include "models/gating_pyramid_objective.h"

#include <fmt/format.h>

#include "core/error.h"
#include "models/loss.h"
#include "ops/ops.h"
#include "tasks/random.h"

namespace tg::models {

namespace {
// Columns [begin, end) of a [B, n] tensor, in dtype dt.
Tensor columns(const Tensor& x, int64_t begin, int64_t end, DType dt) {
  const int64_t rows = x.shape()[0], n = x.shape()[1];
  std::vector<double> v;
  v.reserve(static_cast<size_t>(rows * (end - begin)));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = begin; c < end; ++c) v.push_back(x.at(r * n + c));
  return Tensor::from({rows, end - begin}, v, dt);
}

// Zero-masking factors (0 with probability p, else 1) for each of `shapes`.
std::vector<Tensor> corruption_masks(const std::vector<Shape>& shapes, double p, Rng& rng, DType dt) {
  std::vector<Tensor> keep;
  for (const Shape& s : shapes) {
    std::vector<double> v(static_cast<size_t>(s.size()));
    for (double& k : v) k = tasks::uniform01(rng) < p ? 0.0 : 1.0;
    keep.push_back(Tensor::from(s, v, dt));
  }
  return keep;
}
}  // namespace

GatedBatch gated_batch(const tasks::Batch& b, int64_t frame, int64_t cond, DType dt) {
  const int64_t T = b.steps(), B = b.size();
  if (b.inputs.dense.empty() || static_cast<int64_t>(b.targets.dense.size()) != T || !b.inputs.mask.empty())
    throw Error(fmt::format("gated model: {} is not a next-frame batch (dense frames as inputs and targets, every "
                            "sequence of full length)",
                            b.describe()));
  GatedBatch g;
  for (int64_t t = 0; t < T; ++t) {
    const Tensor& in = b.inputs.dense[t];
    if (in.shape() != Shape{B, frame + cond} || b.targets.dense[t].shape() != Shape{B, frame})
      throw ShapeError(fmt::format("gated model: step {} of {} has inputs {} and targets {}; the model reads [{}, {}] "
                                   "(a frame of {} and {} conditioning inputs) and predicts [{}, {}]",
                                   t, b.describe(), in.shape().str(), b.targets.dense[t].shape().str(), B,
                                   frame + cond, frame, cond, B, frame));
    if (t == 0) g.frames.push_back(columns(in, 0, frame, dt));
    g.frames.push_back(b.targets.dense[t].astype(dt));
    if (cond > 0) g.conds.push_back(columns(in, frame, frame + cond, dt));
  }
  // the first scored step: every sequence of our tasks has the same seed
  g.seed = T + 1;
  for (int64_t t = 0; t < T && g.seed == T + 1; ++t) {
    if (b.targets.mask.empty()) g.seed = t + 1;
    else
      for (int64_t s = 0; s < B; ++s)
        if (b.targets.mask[t].at(s) != 0) g.seed = t + 1;
  }
  return g;
}

int GatedObjective::stage() const {
  if (pair_ || pyramid_->options().kind == "fgae") return 1;
  const GatingPyramidOptions& o = pyramid_->options();
  if (o.pretrain_steps == 0 || iteration_ >= o.pretrain_steps * o.layers()) return 0;
  return static_cast<int>(iteration_ / o.pretrain_steps) + 1;
}

void GatedObjective::draw_noise(tasks::Data& d, Rng& rng) {
  tasks::data_as<tasks::Batch>(d).draw_sample_seed(rng);
}

std::unique_ptr<optim::Evaluation> GatedObjective::evaluate(const ParamVec& theta, const tasks::Data& d) {
  const auto& b = tasks::data_as<tasks::Batch>(d);
  ParamSet& ps = pyramid_ ? pyramid_->params() : pair_->params();
  ps.set_values(theta);
  auto g = std::make_unique<Graph>();
  g->bind(ps);
  optim::Built built = build(*g, b);
  return std::make_unique<optim::Evaluation>(std::move(g), std::move(built));
}

optim::Built GatedObjective::build(Graph& g, const tasks::Batch& b) const {
  const DType dt = params().dtype();
  const int64_t frame = pyramid_ ? pyramid_->options().frame : pair_->options().frame;
  const int64_t cond = pyramid_ ? pyramid_->options().cond : 0;
  const double corruption = pyramid_ ? pyramid_->options().corruption : pair_->options().corruption;
  const GatedBatch gb = gated_batch(b, frame, cond, dt);
  std::vector<Var> frames;
  for (const Tensor& f : gb.frames) frames.push_back(g.input(f));
  const int64_t T = b.steps();
  optim::Built built;
  const int layer = stage();
  Rng noise(b.sample_seed);
  auto masks = [&](const std::vector<Var>& inputs) {
    std::vector<Shape> shapes;
    for (const Var& v : inputs) shapes.push_back(v.shape());
    return b.sample_seed != 0 && corruption > 0 ? corruption_masks(shapes, corruption, noise, dt)
                                                : std::vector<Tensor>{};
  };
  if (pair_) {
    const std::vector<Tensor> keep = masks(frames);
    Var error;
    std::vector<Var> at;
    for (int64_t t = 1; t <= T; ++t) {
      auto in = [&](int64_t i) { return keep.empty() ? frames[i] : ops::mul(frames[i], g.input(keep[i])); };
      const auto [x_hat, y_hat] = pair_->reconstruct(g, in(t - 1), in(t));
      const Var e = ops::add(ops::sum(ops::square(ops::sub(x_hat, frames[t - 1]))),
                             ops::sum(ops::square(ops::sub(y_hat, frames[t]))));
      error = error.empty() ? e : ops::add(error, e);
      at.push_back(x_hat);
      at.push_back(y_hat);
      built.outputs.push_back(y_hat);
    }
    built.loss = ops::scale(error, 0.5 / static_cast<double>(2 * T * b.size() * frame));
    built.curvature = ad::Block{.at = at, .head = built.loss};
    return built;
  }
  if (layer > 0) {
    const std::vector<Var> inputs = pyramid_->layer_inputs(g, frames, layer);
    const GatingPyramid::Reconstruction r = pyramid_->reconstruction(g, frames, layer, masks(inputs));
    built.loss = ops::scale(r.error, 1.0 / r.count);
    std::vector<Var> at = r.forward;
    at.insert(at.end(), r.backward.begin(), r.backward.end());
    built.curvature = ad::Block{.at = at, .head = built.loss};
    if (pyramid_->options().kind == "fgae") {
      built.outputs = r.forward;
      return built;
    }
  }
  // the closed-loop predictions of frames seed .. T (built deferred while a layer pre-trains: they are
  // computed only if read, for the task's measure)
  const bool was_deferred = g.set_deferred(layer > 0);
  const int64_t count = T + 1 - gb.seed;
  if (count < 1) throw Error(fmt::format("gated model: {} scores no step", b.describe()));
  std::vector<Var> conds;
  for (int64_t t = gb.seed - 1; t < T && cond > 0; ++t) conds.push_back(g.input(gb.conds[t]));
  const std::vector<Var> predicted = pyramid_->predict(g, frames, gb.seed, count, conds);
  for (int64_t t = 0; t + 1 < gb.seed; ++t) built.outputs.push_back(g.input(Tensor::zeros({b.size(), frame}, dt)));
  built.outputs.insert(built.outputs.end(), predicted.begin(), predicted.end());
  if (layer == 0) {
    built.loss = matching_loss(OutputKind::linear, built.outputs, b.targets);
    built.curvature = ad::Block{.at = predicted, .head = built.loss};
  }
  g.set_deferred(was_deferred);
  return built;
}

}  // namespace tg::models
