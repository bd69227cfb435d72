// The objective rebuilds its last evaluation's graph (core/tape_cache.h): for every zoo model, a run of
// evaluations on new batches (one of another length between them, as a validation batch) gives the
// value, gradient and Gauss-Newton product of an objective that builds every graph anew, bit for bit,
// and a batch shaped like the last one takes every node from the record; so with each of the
// objective's other terms (Ω, the norm-stabilizer, Fisher, noise, check_finite).
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

// The objective's other terms on the rebuilt tape: Ω (a reverse sweep in the middle of the build), the
// norm-stabilizer, the empirical Fisher's block, dropout masks and weight noise drawn for every batch,
// check_finite; rnn and lstm, value, gradient and the damped Gauss-Newton product against a fresh graph.
struct Variant {
  std::string name;
  models::ObjectiveOptions options;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  models::ObjectiveOptions o;
  o.norm_preserving = 0.5;
  v.push_back({"omega", o});
  o = {};
  o.norm_stabilizer = 50;
  v.push_back({"norm_stabilizer", o});
  o = {};
  o.fisher = true;
  v.push_back({"fisher", o});
  o = {};
  o.noise.input_dropout = 0.2;
  o.noise.output_dropout = 0.1;
  o.noise.weight_noise = 0.05;
  v.push_back({"noise", o});
  o = {};
  o.check_finite = true;
  v.push_back({"check_finite", o});
  return v;
}

class TapeReuseOptions : public ::testing::TestWithParam<std::tuple<std::string, Variant>> {};

TEST_P(TapeReuseOptions, EqualsAFreshGraphEveryTime) {
  const auto& [model, variant] = GetParam();
  const ModelSpec* spec = nullptr;
  for (const ModelSpec& s : model_specs())
    if (s.name == model) spec = &s;
  ASSERT_NE(spec, nullptr);
  models::ModelObjective reused(make_model(*spec), variant.options);
  models::ModelObjective fresh(make_model(*spec), variant.options);
  fresh.tape_cache().set_enabled(false);
  ParamVec theta = reused.params().values().clone();
  Rng rng(11), noise_a(3), noise_f(3);
  const ParamVec v = ParamVec::random_normal(theta.layout(), theta.dtype(), rng);
  for (int i = 0; i < 4; ++i) {
    tasks::Batch a = batch_of(reused.model(), 5, 30 + static_cast<uint64_t>(i)), f = a;
    reused.draw_noise(a, noise_a);
    fresh.draw_noise(f, noise_f);
    auto ea = reused.evaluate(theta, a);
    auto ef = fresh.evaluate(theta, f);
    EXPECT_EQ(ea->value(), ef->value()) << "evaluation " << i;
    EXPECT_EQ(ea->grad().flat().to_vector(), ef->grad().flat().to_vector()) << "evaluation " << i;
    if (i == 1) EXPECT_EQ(ea->graph().reused_nodes(), ea->graph().size()) << "every node from the record";
    if (i == 2) {
      EXPECT_EQ(ea->gnvp_structural(v, 0.3).flat().to_vector(), ef->gnvp_structural(v, 0.3).flat().to_vector());
      if (variant.options.fisher) EXPECT_EQ(ea->fisher_vp(v).flat().to_vector(), ef->fisher_vp(v).flat().to_vector());
    }
    theta = theta.clone().axpy(-0.1, ef->grad());
  }
}

INSTANTIATE_TEST_SUITE_P(Objective, TapeReuseOptions,
                         ::testing::Combine(::testing::Values(std::string("rnn"), std::string("lstm")),
                                            ::testing::ValuesIn(variants())),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param).name; });

}  // namespace
}  // namespace tg::check
