// Rematerialisation (objective option remat_segments, core/remat.h) changes memory and time, never
// results: for every cell model, in float64, the value, outputs, gradient, JVP and VJP at the logits,
// Gauss-Newton (main and structural block) and Hessian products with the unroll cut into segments
// equal the full tape's to rounding (relative 1e-12), for segment counts from 1 to T.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "core/remat.h"
#include "models/objective.h"
#include "optim/hf.h"
#include "optim/remat_evaluation.h"
#include "tests/harness/error_of.h"
#include "gradcheck/model_specs.h"
#include "tests/harness/model_rows.h"

namespace tg::check {
namespace {

constexpr double kTol = 1e-12;

std::vector<double> flat(const std::vector<Tensor>& ts) {
  std::vector<double> out;
  for (const Tensor& t : ts)
    for (double x : t.to_vector()) out.push_back(x);
  return out;
}

// The same vector in another ParamSet's layout (the two objectives own models of their own).
ParamVec relayout(const ParamVec& v, const ParamSet& ps) {
  ParamVec w = ps.zeros_like();
  return w.axpy(1.0, v);  // exact: 0 + 1·x
}

struct Pair {
  std::unique_ptr<models::ModelObjective> full, remat;
  tasks::Batch batch;
};

Pair make_pair(const ModelSpec& spec, int64_t segments, int64_t T = 7, int64_t B = 3,
               models::ObjectiveOptions full_opt = {}) {
  Pair p;
  models::ObjectiveOptions remat_opt = full_opt;
  remat_opt.remat_segments = segments;
  p.full = std::make_unique<models::ModelObjective>(make_model(spec), full_opt);
  p.remat = std::make_unique<models::ModelObjective>(make_model(spec), remat_opt);
  TinyBatch tb = tiny_batch(p.full->model(), T, B);
  p.batch.inputs = tb.xs;
  p.batch.targets = tb.ys;
  return p;
}

std::vector<ModelSpec> cell_model_specs() {
  std::vector<ModelSpec> out;
  for (const ModelSpec& s : model_specs())
    if (make_model(s)->can_unroll_steps()) out.push_back(s);
  return out;
}

class Remat : public ::testing::TestWithParam<ModelSpec> {};

// Also with the norm stabiliser, whose first term in a segment reads the previous segment's last state.
TEST_P(Remat, EqualsTheFullTapeForEverySegmentCount) {
  for (int64_t segments : {1, 2, 3, 7, -1}) {
    for (double norm_stabilizer : {0.0, 0.5}) {
      SCOPED_TRACE("remat_segments " + std::to_string(segments) + " norm_stabilizer " + std::to_string(norm_stabilizer));
      models::ObjectiveOptions opt;
      opt.norm_stabilizer = norm_stabilizer;
      Pair p = make_pair(GetParam(), segments, 7, 3, opt);
      auto ef = p.full->evaluate(p.full->params().values().clone(), p.batch);
      auto er = p.remat->evaluate(p.remat->params().values().clone(), p.batch);
      ASSERT_NE(dynamic_cast<optim::RematEvaluation*>(er.get()), nullptr);
      EXPECT_NEAR(er->value(), ef->value(), kTol * std::max(1.0, std::abs(ef->value())));
      EXPECT_LE(rel_err(flat(er->output_values()), flat(ef->output_values())), kTol);
      EXPECT_LE(rel_err(er->grad(), ef->grad()), kTol);
      Rng rng(5);
      for (int k = 0; k < 2; ++k) {
        ParamVec v = ParamVec::random_normal(p.full->params().layout(), DType::f64, rng);
        ParamVec vr = relayout(v, p.remat->params());
        EXPECT_LE(rel_err(er->gnvp(vr), ef->gnvp(v)), kTol);
        ASSERT_TRUE(er->has_structural());
        EXPECT_LE(rel_err(er->structural_gnvp(vr), ef->structural_gnvp(v)), kTol);
        // HF's damped product: one sweep pair for both blocks on the full tape (its segment reused with a
        // new weight), the two products composed under remat, and the composition on the full tape
        for (double w : {0.37, 2.5}) {
          ParamVec fused = ef->gnvp_structural(v, w);
          EXPECT_LE(rel_err(fused, ef->gnvp(v).axpy(w, ef->structural_gnvp(v))), kTol) << "w " << w;
          EXPECT_LE(rel_err(er->gnvp_structural(vr, w), fused), kTol) << "w " << w;
        }
        EXPECT_LE(rel_err(er->hvp(vr), ef->hvp(v)), kTol);
      }
    }
  }
}

// With every step scored the full tape's loss and Gauss-Newton block read the stacked logits (one node
// [T·B, out], models/loss.h) where the segments read each step's rows: the same numbers.
TEST_P(Remat, EqualsTheFullTapeWhoseLossReadsTheStackedLogits) {
  Pair p = make_pair(GetParam(), 3, 7, 3);
  p.batch.targets.mask.clear();  // every step scored
  auto ef = p.full->evaluate(p.full->params().values().clone(), p.batch);
  auto er = p.remat->evaluate(p.remat->params().values().clone(), p.batch);
  const std::vector<Var>& at = ef->built().curvature.at;
  ASSERT_EQ(at.size(), 1u) << "the block takes the stacked logits";
  EXPECT_EQ(at[0].shape()[0], 7 * 3);
  EXPECT_NEAR(er->value(), ef->value(), kTol * std::max(1.0, std::abs(ef->value())));
  EXPECT_LE(rel_err(er->grad(), ef->grad()), kTol);
  Rng rng(11);
  for (int k = 0; k < 2; ++k) {
    ParamVec v = ParamVec::random_normal(p.full->params().layout(), DType::f64, rng);
    ParamVec vr = relayout(v, p.remat->params());
    EXPECT_LE(rel_err(er->gnvp(vr), ef->gnvp(v)), kTol);
    EXPECT_LE(rel_err(er->structural_gnvp(vr), ef->structural_gnvp(v)), kTol);
    EXPECT_LE(rel_err(er->hvp(vr), ef->hvp(v)), kTol);
    EXPECT_LE(rel_err(er->gnvp_structural(vr, 0.37), ef->gnvp_structural(v, 0.37)), kTol);  // HF's fused sweep
    EXPECT_GT(ef->gnvp(v).norm(), 0.0);
  }
}

TEST_P(Remat, JvpAndVjpAtTheLogitsEqualTheLinearization) {
  Pair p = make_pair(GetParam(), 3);
  auto ef = p.full->evaluate(p.full->params().values().clone(), p.batch);
  auto er = p.remat->evaluate(p.remat->params().values().clone(), p.batch);
  ad::Remat& r = dynamic_cast<optim::RematEvaluation&>(*er).remat();
  ad::Linearization& lin = ef->linearization();
  const std::vector<Var>& at = ef->built().curvature.at;
  Rng rng(9);
  ParamVec v = ParamVec::random_normal(p.full->params().layout(), DType::f64, rng);
  std::vector<Tensor> vparts;
  for (int32_t i = 0; i < p.full->params().count(); ++i) vparts.push_back(v.part(i));
  const std::vector<Tensor> jf = lin.jvp(vparts, at), jr = r.jvp(relayout(v, p.remat->params()), 0);
  ASSERT_EQ(jf.size(), jr.size());
  EXPECT_LE(rel_err(flat(jr), flat(jf)), kTol);

  std::vector<Tensor> u;
  std::normal_distribution<double> normal(0, 1);
  for (const Var& a : at) {
    std::vector<double> x(static_cast<size_t>(a.shape().size()));
    for (double& e : x) e = normal(rng);
    u.push_back(Tensor::from(a.shape(), x, DType::f64));
  }
  const ParamVec vf = ad::pack(p.full->params(), lin.vjp(at, u)), vr = r.vjp(0, u);
  EXPECT_LE(rel_err(vr, vf), kTol);  // rel_err compares flat vectors: the layouts' order is the same
  EXPECT_GT(vf.norm(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(CellModels, Remat, ::testing::ValuesIn(cell_model_specs()), row_name);

TEST(RematCoverage, TheRequiredCellModelsCanBeRematerialised) {
  std::vector<std::string> seen;
  for (const ModelSpec& s : cell_model_specs()) seen.push_back(s.model);
  for (const char* m : {"rnn", "lstm", "mlstm", "mrnn", "gru"})
    EXPECT_NE(std::find(seen.begin(), seen.end(), m), seen.end()) << m;
}

// A long sequence with many segments: the boundary states carry the whole dependence.
TEST(RematLong, LstmGradientAndGaussNewtonOverSixtyStepsInEightSegments) {
  const ModelSpec spec{"lstm", "lstm", {{"vocab", 5}, {"hidden", 4}, {"learned_h0", true}}};
  Pair p = make_pair(spec, 8, /*T=*/60, /*B=*/2);
  auto ef = p.full->evaluate(p.full->params().values().clone(), p.batch);
  auto er = p.remat->evaluate(p.remat->params().values().clone(), p.batch);
  EXPECT_LE(rel_err(er->grad(), ef->grad()), kTol);
  Rng rng(3);
  ParamVec v = ParamVec::random_normal(p.full->params().layout(), DType::f64, rng);
  EXPECT_LE(rel_err(er->gnvp(relayout(v, p.remat->params())), ef->gnvp(v)), kTol);
  // each segment graph holds about an eighth of the steps
  const ad::Remat& r = dynamic_cast<optim::RematEvaluation&>(*er).remat();
  EXPECT_LT(r.max_graph_nodes(), ef->graph().size() / 3);
}

TEST(RematOptions, BadValuesAndUnsupportedCombinationsAreClearErrors) {
  EXPECT_NE(error_of([] { models::objective_options_from_json({{"remat_segments", -2}}); }).find("remat_segments"),
            std::string::npos);
  EXPECT_NE(error_of([] { models::objective_options_from_json({{"remat_segments", "many"}}); }).find("remat_segments"),
            std::string::npos);
  EXPECT_NE(error_of([] { models::objective_options_from_json({{"remat_segments", 4}, {"fisher", true}}); })
                .find("fisher"),
            std::string::npos);
  EXPECT_EQ(models::objective_options_from_json({{"remat_segments", -1}}).remat_segments, -1);
  // a model that is not a cell model cannot be cut into segments
  for (const ModelSpec& s : model_specs()) {
    auto m = make_model(s);
    if (m->can_unroll_steps()) continue;
    models::ObjectiveOptions o;
    o.remat_segments = 2;
    const std::string kind = m->kind();
    EXPECT_NE(error_of([&] { models::ModelObjective obj(std::move(m), o); }).find(kind), std::string::npos);
    break;
  }
}

// Dropout masks are per absolute step and weight noise shifts every parameter: a segment sees the same.
TEST(RematNoise, DropoutAndWeightNoiseEqualTheFullTape) {
  const ModelSpec spec{"lstm", "lstm", {{"vocab", 5}, {"hidden", 4}}};
  models::ObjectiveOptions opt;
  opt.noise = {.input_dropout = 0.3, .output_dropout = 0.2, .weight_noise = 0.05};
  Pair p = make_pair(spec, 3, /*T=*/9, /*B=*/3, opt);
  Rng rng(11);
  p.full->draw_noise(p.batch, rng);
  ASSERT_FALSE(p.batch.inputs.input_keep.empty());
  ASSERT_TRUE(p.batch.weight_noise);
  auto ef = p.full->evaluate(p.full->params().values().clone(), p.batch);
  auto er = p.remat->evaluate(p.remat->params().values().clone(), p.batch);
  EXPECT_NEAR(er->value(), ef->value(), kTol * std::max(1.0, std::abs(ef->value())));
  EXPECT_LE(rel_err(er->grad(), ef->grad()), kTol);
  ParamVec v = ParamVec::random_normal(p.full->params().layout(), DType::f64, rng);
  EXPECT_LE(rel_err(er->gnvp(relayout(v, p.remat->params())), ef->gnvp(v)), kTol);
}

TEST(RematOptions, RegularizersThatNeedTheWholeUnrollAreRefused) {
  EXPECT_NE(error_of([] { models::objective_options_from_json({{"remat_segments", 2}, {"norm_preserving", 0.1}}); })
                .find("norm_preserving"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              models::objective_options_from_json(
                  {{"remat_segments", 2}, {"stability_penalty", {{"kind", "state_diff"}, {"beta", 1.0}}}});
            }).find("state_diff"),
            std::string::npos);
  // the norm-stabilizer set directly in C++ is resolved like the JSON shorthand
  models::ObjectiveOptions o;
  o.norm_stabilizer = 0.5;
  o.remat_segments = 2;
  models::ModelObjective obj(make_model({"rnn", "rnn", {{"vocab", 5}, {"hidden", 3}}}), o);
  EXPECT_EQ(obj.options().stability.kind, "norm");
  EXPECT_EQ(obj.options().stability.beta, 0.5);
}

}  // namespace
}  // namespace tg::check

namespace tg::check {
namespace {

// What an optimizer sees: two Hessian-free steps (CG over Gauss-Newton and structural-damping
// products, line search, λ update) take the same path with and without rematerialisation.
TEST(RematHf, TwoStepsMatchTheFullTape) {
  const ModelSpec spec{"lstm", "lstm", {{"vocab", 5}, {"hidden", 4}}};
  Pair p = make_pair(spec, 4, /*T=*/12, /*B=*/3);
  const ParamVec theta0 = p.full->params().values().clone();
  ParamVec tf = theta0.clone(), tr = p.remat->params().values().clone();
  optim::HessianFree hf_full, hf_remat;
  for (int k = 0; k < 2; ++k) {
    optim::HfStats sf = hf_full.step(*p.full, tf, p.batch, p.batch);
    optim::HfStats sr = hf_remat.step(*p.remat, tr, p.batch, p.batch);
    EXPECT_EQ(sr.cg_iters, sf.cg_iters);
    EXPECT_LE(rel_err(tr, tf), 1e-9) << "step " << k;
  }
  EXPECT_GT(rel_err(tf, theta0), 1e-3);  // the steps moved θ
}

}  // namespace
}  // namespace tg::check
