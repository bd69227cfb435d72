// The matching loss over a model's Outputs reads the stacked logits (Outputs::logits_all) when every
// step is scored, and the objective's Gauss-Newton block takes that node (models/loss.h). For every zoo
// model in float64: the objective's value, gradient and Gauss-Newton product equal a tape built the
// per-step way (the loss over the steps' slices, the block at the slices), and a step left unscored
// keeps the per-step block.
#include <gtest/gtest.h>

#include <cmath>

#include "models/loss.h"
#include "models/objective.h"
#include "gradcheck/model_specs.h"
#include "tests/harness/model_rows.h"

namespace tg::check {
namespace {

class StackedLogits : public ::testing::TestWithParam<ModelSpec> {};

TEST_P(StackedLogits, TheObjectiveEqualsThePerStepTape) {
  models::ObjectiveOptions opt;
  opt.structural = "none";
  models::ModelObjective obj(make_model(GetParam()), opt);
  TinyBatch tb = tiny_batch(obj.model(), 6, 3);
  tasks::Batch batch;
  batch.inputs = tb.xs;
  batch.targets = tb.ys;
  batch.targets.mask.clear();  // every step scored
  const ParamVec theta = obj.params().values().clone();
  auto ev = obj.evaluate(theta, batch);  // leaves the model's parameters at θ

  auto g = std::make_unique<Graph>();
  models::Outputs out = obj.model().unroll(*g, batch.inputs);
  optim::Built ref;
  ref.loss = models::matching_loss(obj.model().output_kind(), std::span<const Var>(out.logits), batch.targets, true);
  ref.curvature = ad::Block{out.logits, ref.loss};
  ref.outputs = out.logits;
  optim::Evaluation per_step(std::move(g), ref);
  if (!out.logits_all.empty()) EXPECT_EQ(ev->built().curvature.at.size(), 1u) << "the stacked logits";

  EXPECT_NEAR(ev->value(), per_step.value(), 1e-12 * std::max(1.0, std::abs(per_step.value())));
  EXPECT_LE(rel_err(ev->grad(), per_step.grad()), 1e-12);
  Rng rng(3);
  const ParamVec v = ParamVec::random_normal(obj.params().layout(), DType::f64, rng);
  EXPECT_LE(rel_err(ev->gnvp(v), per_step.gnvp(v)), 1e-12);
  EXPECT_GT(per_step.gnvp(v).norm(), 0.0);
}

TEST(StackedLogitsMask, AStepLeftUnscoredKeepsThePerStepBlock) {
  models::ModelObjective obj(make_model(model_specs().front()));
  TinyBatch tb = tiny_batch(obj.model(), 6, 3);  // its loss masks leave step 0 unscored
  tasks::Batch batch;
  batch.inputs = tb.xs;
  batch.targets = tb.ys;
  auto ev = obj.evaluate(obj.params().values().clone(), batch);
  EXPECT_EQ(ev->built().curvature.at.size(), 5u);
  EXPECT_EQ(ev->built().curvature.at[0].shape()[0], 3);
}

INSTANTIATE_TEST_SUITE_P(Zoo, StackedLogits, ::testing::ValuesIn(model_specs()), row_name);

}  // namespace
}  // namespace tg::check
