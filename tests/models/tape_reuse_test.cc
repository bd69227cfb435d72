// The objective rebuilds its last evaluation's graph (core/tape_cache.h): for every zoo model, a run of
// evaluations on new batches (one of another length between them, as a validation batch) gives the
// value, gradient and Gauss-Newton product of an objective that builds every graph anew, bit for bit,
// and a batch shaped like the last one takes every node from the record.
#include <gtest/gtest.h>

#include "gradcheck/model_specs.h"
#include "models/objective.h"
#include "tests/harness/model_rows.h"

namespace tg::check {
namespace {

class TapeReuse : public ::testing::TestWithParam<ModelSpec> {};

tasks::Batch batch_of(const models::Model& m, int64_t T, uint64_t seed) {
  TinyBatch tb = tiny_batch(m, T, 3, seed);
  tasks::Batch b;
  b.inputs = tb.xs;
  b.targets = tb.ys;
  return b;
}

TEST_P(TapeReuse, EqualsAFreshGraphEveryTime) {
  models::ModelObjective reused(make_model(GetParam()));
  models::ModelObjective fresh(make_model(GetParam()));
  fresh.tape_cache().set_enabled(false);
  ParamVec theta = reused.params().values().clone();
  Rng rng(11);
  const ParamVec v = ParamVec::random_normal(theta.layout(), theta.dtype(), rng);
  const int64_t lengths[] = {5, 5, 4, 5, 5};  // the 4: another shape (a validation batch)
  for (int i = 0; i < 5; ++i) {
    const tasks::Batch b = batch_of(reused.model(), lengths[i], 20 + static_cast<uint64_t>(i));
    auto a = reused.evaluate(theta, b);
    auto f = fresh.evaluate(theta, b);
    EXPECT_EQ(a->value(), f->value()) << "evaluation " << i;
    EXPECT_EQ(a->grad().flat().to_vector(), f->grad().flat().to_vector()) << "evaluation " << i;
    // 1 and 4 follow a batch of their shape (2's graph, with a product's segments, is not kept)
    if (i == 1 || i == 4)
      EXPECT_EQ(a->graph().reused_nodes(), a->graph().size()) << "evaluation " << i << " took every node from the record";
    if (i == 2) EXPECT_EQ(a->gnvp(v).flat().to_vector(), f->gnvp(v).flat().to_vector());
    theta = theta.clone().axpy(-0.1, f->grad());
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, TapeReuse, ::testing::ValuesIn(model_specs()), row_name);

}  // namespace
}  // namespace tg::check
