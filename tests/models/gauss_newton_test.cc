// The Gauss-Newton matrix of every model at its logits block (ad::Linearization with Block{logits,
// loss}): symmetric (u·Gv = v·Gu) and positive semi-definite (v·Gv >= 0) on random vectors; and, for a
// small RNN, equal to a dense Jᵀ H J assembled from JVP columns and the softmax cross-entropy Hessian
// written out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "core/linearize.h"
#include "gradcheck/model_specs.h"
#include "tests/harness/model_rows.h"

namespace tg::check {
namespace {

struct Linearized {
  std::unique_ptr<models::Model> model;
  TinyBatch batch;
  std::unique_ptr<Graph> g;
  models::Outputs out;
  Var loss;
  std::unique_ptr<ad::Linearization> lin;
};

Linearized linearize(const ModelSpec& spec) {
  Linearized l;
  l.model = make_model(spec);
  l.batch = tiny_batch(*l.model);
  l.g = std::make_unique<Graph>();
  l.g->bind(l.model->params());
  l.out = l.model->unroll(*l.g, l.batch.xs);
  l.loss = models::matching_loss(l.model->output_kind(), l.out.logits, l.batch.ys);
  l.lin = std::make_unique<ad::Linearization>(l.loss);
  return l;
}

class ModelGaussNewton : public ::testing::TestWithParam<ModelSpec> {};

TEST_P(ModelGaussNewton, SymmetricAndPositiveSemidefinite) {
  Linearized l = linearize(GetParam());
  const ad::Block block{l.out.logits, l.loss};
  Rng rng(11);
  for (int k = 0; k < 3; ++k) {
    ParamVec u = ParamVec::random_normal(l.model->params().layout(), DType::f64, rng);
    ParamVec v = ParamVec::random_normal(l.model->params().layout(), DType::f64, rng);
    ParamVec gu = l.lin->gnvp(u, block), gv = l.lin->gnvp(v, block);
    const double scale = std::max(u.norm() * gv.norm(), v.norm() * gu.norm());
    EXPECT_LE(std::abs(u.dot(gv) - v.dot(gu)), 1e-10 * scale) << "u·Gv " << u.dot(gv) << " v·Gu " << v.dot(gu);
    EXPECT_GE(v.dot(gv), -1e-12 * v.norm() * gv.norm());
    EXPECT_GE(u.dot(gu), -1e-12 * u.norm() * gu.norm());
  }
  EXPECT_EQ(l.lin->primal_reevaluations(), 0u);
}

TEST_P(ModelGaussNewton, TagsOnePreactivationAndOneLogitsNodePerStep) {
  Linearized l = linearize(GetParam());
  const int64_t T = l.batch.xs.T, B = l.batch.xs.B;
  ASSERT_EQ(static_cast<int64_t>(l.g->tagged("preact").size()), T);
  ASSERT_EQ(static_cast<int64_t>(l.g->tagged("logits").size()), T);
  for (int64_t t = 0; t < T; ++t) {
    EXPECT_EQ(l.g->tagged("preact")[t], l.out.preact[t]);
    EXPECT_EQ(l.g->tagged("logits")[t], l.out.logits[t]);
    EXPECT_EQ(l.out.preact[t].shape()[0], B);
    EXPECT_EQ(l.out.logits[t].shape(), (Shape{B, l.model->io().out}));
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ModelGaussNewton, ::testing::ValuesIn(model_specs()), row_name);

TEST(GaussNewtonDense, RnnEqualsJtHJFromJvpColumns) {
  ModelSpec spec{"rnn-small", "rnn", {{"vocab", 3}, {"hidden", 2}, {"learned_h0", true}}};
  Linearized l = linearize(spec);
  const ParamSet& ps = l.model->params();
  const int64_t n = ps.numel(), T = l.batch.xs.T, B = l.batch.xs.B, V = l.model->io().out;
  const int64_t rows = T * B * V;

  // J: column i = the logits' tangents along the i-th parameter coordinate.
  std::vector<std::vector<double>> J(n, std::vector<double>(rows));
  for (int64_t i = 0; i < n; ++i) {
    ParamVec e = ps.zeros_like();
    e.flat().data<double>()[i] = 1;
    std::vector<Tensor> parts = ad::unpack(e);
    std::vector<Tensor> tz = l.lin->jvp(parts, l.out.logits);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t k = 0; k < B * V; ++k) J[i][t * B * V + k] = tz[t].astype(DType::f64).at(k);
  }
  // H: block (t, b) = mask/W · (diag(p) - p pᵀ), p = softmax(logits), W the mask's total weight.
  double W = 0;
  for (const Tensor& m : l.batch.ys.mask) W += m.to_vector()[0] + m.to_vector()[1];
  std::vector<std::vector<double>> H(rows, std::vector<double>(rows, 0.0));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      const double w = l.batch.ys.mask[t].at(b) / W;
      std::vector<double> z(V), p(V);
      double mx = -1e300, s = 0;
      for (int64_t v = 0; v < V; ++v) mx = std::max(mx, z[v] = l.out.logits[t].value().at(b * V + v));
      for (int64_t v = 0; v < V; ++v) s += p[v] = std::exp(z[v] - mx);
      for (double& q : p) q /= s;
      const int64_t o = (t * B + b) * V;
      for (int64_t a = 0; a < V; ++a)
        for (int64_t c = 0; c < V; ++c) H[o + a][o + c] = w * ((a == c ? p[a] : 0.0) - p[a] * p[c]);
    }
  // Column i of Jᵀ H J against gnvp(e_i).
  const ad::Block block{l.out.logits, l.loss};
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> hj(rows, 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < rows; ++c) hj[r] += H[r][c] * J[i][c];
    ParamVec e = ps.zeros_like();
    e.flat().data<double>()[i] = 1;
    const std::vector<double> got = l.lin->gnvp(e, block).flat().to_vector();
    double norm = 0;
    std::vector<double> want(n, 0.0);
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t r = 0; r < rows; ++r) want[j] += J[j][r] * hj[r];
      norm = std::max(norm, std::abs(want[j]));
    }
    for (int64_t j = 0; j < n; ++j) worst = std::max(worst, std::abs(got[j] - want[j]) / std::max(norm, 1e-3));
  }
  EXPECT_LT(worst, 1e-10);
}

}  // namespace
}  // namespace tg::check
