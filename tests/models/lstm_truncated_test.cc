// The LSTM's truncated gradient (option truncated_gradient: Krause's "LSTM online", Hochreiter &
// Schmidhuber's original algorithm): errors reach earlier steps only through the cell state. Checked
// against an independent construction, the same unroll step by step with every h_{t-1} fed back as a
// constant input; equal to the full gradient over one step, and different from it over several.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "gradcheck/model_specs.h"
#include "models/model.h"

namespace tg::models {
namespace {

// Σ_t Σ (logits_t ⊙ R_t) for fixed random R_t: a loss that reads every step's output.
Var readout_loss(Graph& g, const std::vector<Var>& logits, uint64_t seed) {
  Rng rng(seed);
  Var total;
  for (const Var& z : logits) {
    std::vector<double> r(static_cast<size_t>(z.shape().size()));
    for (double& x : r) x = std::normal_distribution<double>(0, 1)(rng);
    total = ops::add(total, ops::sum(ops::mul(z, g.input(Tensor::from(z.shape(), r, DType::f64)))));
  }
  return total;
}

nlohmann::json options(bool truncated) {
  // h_0 a constant (not learned): the truncated gradient has no path into a learned h_0 at all
  return {{"vocab", 5}, {"hidden", 3}, {"learned_h0", false}, {"truncated_gradient", truncated}};
}

ParamVec truncated_grad(const std::string& model, const check::TinyBatch& b) {
  auto m = check::make_model(check::ModelSpec{model, model, options(true)}, 3);
  Graph g;
  const Outputs out = m->unroll(g, b.xs);
  return ad::value_and_grad(readout_loss(g, out.logits, 9)).second;
}

// The full model stepped one step at a time, h_{t-1} replaced by a constant of its value.
ParamVec constant_h_grad(const std::string& model, const check::TinyBatch& b) {
  auto m = check::make_model(check::ModelSpec{model, model, options(false)}, 3);
  Graph g;
  g.bind(m->params());
  std::vector<Var> state;  // {h, c}; empty: the initial state
  std::vector<Var> logits;
  for (int64_t t = 0; t < b.xs.T; ++t) {
    if (!state.empty()) state[0] = g.input(state[0].value().clone());
    const Outputs o = m->unroll_steps(g, b.xs, t, t + 1, state);
    logits.push_back(o.logits[0]);
  }
  return ad::value_and_grad(readout_loss(g, logits, 9)).second;
}

double rel(const ParamVec& a, const ParamVec& b) { return a.clone().axpy(-1.0, b).norm() / b.norm(); }

TEST(LstmTruncated, EqualsTheUnrollWithConstantRecurrentInputs) {
  for (const char* model : {"lstm", "lstm_krause", "lstm1997", "lstm_peephole", "lstm_no_output_tanh"}) {
    SCOPED_TRACE(model);
    auto m = check::make_model(check::ModelSpec{model, model, options(true)}, 3);
    ASSERT_TRUE(m->can_unroll_steps());
    check::TinyBatch b = check::tiny_batch(*m, 5, 2);
    b.xs.mask.clear();  // every step real: a padded step carries h over, a path of its own
    const ParamVec want = constant_h_grad(model, b), got = truncated_grad(model, b);
    EXPECT_LT(rel(got, want), 1e-13);
    // not the full gradient: the recurrent path through h carries error too
    auto full = check::make_model(check::ModelSpec{model, model, options(false)}, 3);
    Graph g;
    const ParamVec exact = ad::value_and_grad(readout_loss(g, full->unroll(g, b.xs).logits, 9)).second;
    EXPECT_GT(rel(got, exact), 1e-3);
  }
}

TEST(LstmTruncated, OneStepIsTheFullGradient) {
  auto m = check::make_model(check::ModelSpec{"lstm", "lstm", options(true)}, 3);
  const check::TinyBatch b = check::tiny_batch(*m, 1, 2);
  auto full = check::make_model(check::ModelSpec{"lstm", "lstm", options(false)}, 3);
  Graph g;
  const ParamVec exact = ad::value_and_grad(readout_loss(g, full->unroll(g, b.xs).logits, 9)).second;
  EXPECT_LT(rel(truncated_grad("lstm", b), exact), 1e-14);
}

}  // namespace
}  // namespace tg::models
