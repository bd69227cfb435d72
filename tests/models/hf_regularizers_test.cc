// HF on a model objective with training noise and the diagonal preconditioner: every evaluation of
// one HF iteration (gradient chunks, curvature batch, CG backtracking, line search) sees the one
// noise sample drawn for that iteration, and the preconditioned and Ω-regularised steps run.
#include <gtest/gtest.h>

#include <set>

#include "models/objective.h"
#include "optim/hf.h"
#include "gradcheck/model_specs.h"

namespace tg::models {
namespace {

// Records what noise each evaluation saw.
struct Spy : optim::Objective {
  ModelObjective* inner;
  std::set<const ParamVec*> noise_seen;
  int evaluations = 0, without_masks = 0;
  const ParamSet& params() const override { return inner->params(); }
  double weight(const tasks::Data& b) const override { return inner->weight(b); }
  void note(const tasks::Data& d) {
    const tasks::Batch& b = tasks::data_as<tasks::Batch>(d);
    ++evaluations;
    noise_seen.insert(b.weight_noise.get());
    if (b.inputs.input_keep.empty() || b.inputs.readout_keep.empty()) ++without_masks;
  }
  std::unique_ptr<optim::Evaluation> evaluate(const ParamVec& theta, const tasks::Data& b) override {
    note(b);
    return inner->evaluate(theta, b);
  }
  double value(const ParamVec& theta, const tasks::Data& b) override {
    note(b);
    return inner->value(theta, b);
  }
};

std::unique_ptr<Model> tiny() {
  return check::make_model(check::ModelSpec{"rnn", "rnn", {{"vocab", 0}, {"in", 4}, {"out", 2}, {"hidden", 3}, {"output", "linear"}}}, 1);
}

TEST(HfWithNoise, OneIterationSeesOneNoiseSample) {
  ObjectiveOptions o = objective_options_from_json({{"input_dropout", 0.2}, {"output_dropout", 0.2}, {"weight_noise", 0.01}});
  ModelObjective obj(tiny(), o);
  check::TinyBatch tb = check::tiny_batch(obj.model(), 4, 12);
  tasks::Batch g{tb.xs, tb.ys, {}, nullptr};
  Rng rng(4);
  obj.draw_noise(g, rng);
  tasks::Batch c = tasks::slice(g, 0, 4);
  optim::HfConfig cfg;
  cfg.grad_chunk = 5;  // the gradient batch in chunks of 5, 5, 2
  cfg.max_cg = 8;
  cfg.precondition = true;
  optim::HessianFree hf(cfg);
  Spy spy;
  spy.inner = &obj;
  ParamVec theta = obj.params().values().clone();
  optim::HfStats st = hf.step(spy, theta, g, c);
  std::printf("HF step with dropout + weight noise + preconditioner: %d evaluations, loss %.6f -> %.6f, cg %d (%s)\n",
              spy.evaluations, st.loss, st.new_loss, st.cg_iters, st.cg_stop.c_str());
  EXPECT_GT(spy.evaluations, 12 + 3);  // chunks, per-sequence preconditioner gradients, backtracking, line search
  EXPECT_EQ(spy.noise_seen, std::set<const ParamVec*>{g.weight_noise.get()});
  EXPECT_EQ(spy.without_masks, 0);
  EXPECT_TRUE(st.accepted) << st.cg_stop;
  EXPECT_LT(st.new_loss, st.loss);
}

TEST(HfWithNormPreserving, StepsDecreaseTheRegularisedLoss) {
  ModelObjective obj(tiny(), objective_options_from_json({{"norm_preserving", 0.5}, {"stability_penalty", {{"kind", "norm"}, {"beta", 1.0}}}}));
  check::TinyBatch tb = check::tiny_batch(obj.model(), 5, 8);
  tasks::Batch g{tb.xs, tb.ys, {}, nullptr};
  optim::HfConfig cfg;
  cfg.max_cg = 10;
  optim::HessianFree hf(cfg);
  ParamVec theta = obj.params().values().clone();
  const double before = obj.value(theta, g);
  for (int i = 0; i < 3; ++i) hf.step(obj, theta, g, g);
  const double after = obj.value(theta, g);
  std::printf("HF with Omega (lambda 0.5) and the norm-stabilizer (beta 1): loss %.6f -> %.6f in 3 iterations\n", before, after);
  EXPECT_LT(after, before);
}

}  // namespace
}  // namespace tg::models
