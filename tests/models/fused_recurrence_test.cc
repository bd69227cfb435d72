// The RNN's fused recurrence (RnnCell::steps: one tanh_scan, logistic_scan or relu_scan node, ops/scan.cc) in a graph with
// GraphOptions::fuse_recurrences, against the same model unrolled a step at a time: loss, gradient, the
// Gauss-Newton products of the loss's block (per-step logits) and of structural damping's block (per-step
// pre-activations), float64, for symbol and dense inputs, a learned h_0 and a stability penalty on the
// states. And where it does not apply: padded batches step as before.
#include <gtest/gtest.h>

#include "core/linearize.h"
#include "gradcheck/model_specs.h"
#include "models/loss.h"
#include "models/regularizers.h"
#include "tests/harness/fused_cases.h"

namespace tg::models {
namespace {

using check::max_abs_diff;

struct Products {
  std::vector<Tensor> all;
  int scans = 0;
  int32_t nodes = 0;
};

int count_unit_scans(const Graph& g) {
  int n = 0;
  for (int32_t id = 0; id < g.size(); ++id) {
    const std::string_view name = g.node(id).prim->name;
    n += name == "tanh_scan" || name == "logistic_scan" || name == "relu_scan";
  }
  return n;
}

Products products(const nlohmann::json& opts, bool fuse, bool masked = false) {
  auto m = check::make_model(check::ModelSpec{"rnn", "rnn", opts}, 3);
  check::TinyBatch b = check::tiny_batch(*m, 6, 3, 5);
  if (!masked) b.xs.mask.clear();
  Graph g(GraphOptions{.fuse_recurrences = fuse});
  g.bind(m->params());
  Outputs out = m->unroll(g, b.xs);
  Var loss = matching_loss(m->output_kind(), out, b.ys);
  StabilityPenalty p{.kind = "norm", .beta = 0.7};
  loss = ops::add(loss, stability_penalty(out.hidden, out.initial, p, b.xs.mask));
  ad::Linearization lin(loss);
  const ParamVec v = m->params().values().clone().scale(0.3);
  Products r;
  r.all.push_back(loss.value());
  r.all.push_back(lin.grad_vec().flat());
  r.all.push_back(lin.gnvp(v, ad::Block{out.logits, loss}).flat());
  const std::string unit = opts.value("activation", "tanh");
  r.all.push_back(lin.gnvp(v, ad::Block{out.preact, structural_damping_head(g, unit, out.preact)}).flat());
  r.scans = count_unit_scans(g);
  r.nodes = g.size();
  return r;
}

void expect_same(const nlohmann::json& opts, bool expect_fused, bool masked = false) {
  const Products fused = products(opts, true, masked), steps = products(opts, false, masked);
  EXPECT_EQ(fused.scans, expect_fused ? 1 : 0);
  EXPECT_EQ(steps.scans, 0);
  if (expect_fused) EXPECT_LT(fused.nodes, steps.nodes);
  for (size_t i = 0; i < fused.all.size(); ++i)
    EXPECT_LE(max_abs_diff(fused.all[i], steps.all[i]), 1e-13) << "product " << i;
}

TEST(FusedRecurrence, TanhRnnOnSymbolsEqualsTheStepByStepUnroll) {
  expect_same({{"vocab", 5}, {"hidden", 4}, {"learned_h0", true}}, true);
}
TEST(FusedRecurrence, TanhRnnOnDenseInputsWithoutBiasEqualsTheStepByStepUnroll) {
  expect_same({{"vocab", 0}, {"in", 3}, {"out", 2}, {"hidden", 4}, {"bias", false}, {"output", "linear"}}, true);
}
TEST(FusedRecurrence, ReluAndLogisticRnnsEqualTheStepByStepUnroll) {
  expect_same({{"vocab", 5}, {"hidden", 4}, {"activation", "relu"}}, true);
  expect_same({{"vocab", 0}, {"in", 3}, {"out", 2}, {"hidden", 4}, {"activation", "logistic"}, {"output", "linear"}},
              true);
}
TEST(FusedRecurrence, PaddedBatchesStepAsBefore) {
  expect_same({{"vocab", 5}, {"hidden", 4}}, false, /*masked=*/true);
  expect_same({{"vocab", 5}, {"hidden", 4}, {"activation", "relu"}}, false, /*masked=*/true);
}

}  // namespace
}  // namespace tg::models
