// The stacked projections of models/cell.h (StackedRows): every step's x W + b from one product or
// lookup of all steps equals the per-step x_t W + b, in value and gradient; a StepInput whose input
// was replaced after stacking gets its own product; large symbol lookups stay per step.
#include <gtest/gtest.h>

#include <cmath>

#include <vector>

#include "core/ad.h"
#include "gradcheck/gradcheck.h"
#include "models/cell.h"
#include "ops/ops.h"

namespace tg {
namespace {

constexpr int64_t kT = 5, kB = 3, kIn = 4, kOut = 6;

models::Sequence dense_sequence() {
  models::Sequence xs;
  xs.T = kT;
  xs.B = kB;
  for (const Tensor& t : check::random_inputs(std::vector<Shape>(kT, Shape{kB, kIn}), -1, 1, 11)) xs.dense.push_back(t);
  return xs;
}

models::Sequence symbol_sequence(int64_t B, int32_t vocab) {
  models::Sequence xs;
  xs.T = kT;
  xs.B = B;
  for (int64_t t = 0; t < kT; ++t) {
    std::vector<int32_t> ids;
    for (int64_t b = 0; b < B; ++b) ids.push_back(static_cast<int32_t>((t * 7 + b * 3) % vocab));
    xs.symbols.push_back(ops::make_index(std::move(ids)));
  }
  return xs;
}

// Σ_t sum((x_t W + b)²) through the stacked path and through per-step products, with gradients.
struct Both {
  std::vector<Tensor> stacked, per_step;  // values per step, then dW, db
};
Both both_ways(const models::Sequence& xs, int64_t in) {
  Both r;
  for (int pass = 0; pass < 2; ++pass) {
    Graph g;
    const std::vector<Tensor> p = check::random_inputs({Shape{in, kOut}, Shape{kOut}}, -1, 1, 5);
    Var w = g.input(p[0]), b = g.input(p[1]);
    std::vector<models::StepInput> x = models::step_inputs(g, xs, 0, kT, DType::f64);
    Var loss;
    std::vector<Tensor>& out = pass == 0 ? r.stacked : r.per_step;
    for (int64_t t = 0; t < kT; ++t) {
      models::StepInput step = x[static_cast<size_t>(t)];
      if (pass == 1) step.stacked.reset();  // the per-step path
      Var y = models::project(step, w, b);
      out.push_back(y.value().clone());
      loss = ops::add(loss, ops::sum(ops::square(y)));
    }
    for (Var d : ad::grad(loss, std::vector<Var>{w, b})) out.push_back(d.value().clone());
  }
  return r;
}

// tol relative to the value's size: the large lookups' bias gradient (~4e4) is a sum taken in another order
// (models/cell.cc adds the bias to W's rows once, so b's gradient is the sum of W's row gradients)
void expect_all_near(const Both& r, double tol) {
  ASSERT_EQ(r.stacked.size(), r.per_step.size());
  for (size_t k = 0; k < r.stacked.size(); ++k) {
    ASSERT_EQ(r.stacked[k].shape(), r.per_step[k].shape()) << k;
    for (int64_t i = 0; i < r.stacked[k].size(); ++i)
      ASSERT_NEAR(r.stacked[k].at(i), r.per_step[k].at(i), tol * (1 + std::abs(r.per_step[k].at(i))))
          << "tensor " << k << " element " << i;
  }
}

TEST(StackedInputs, DenseProjectionEqualsPerStepProductsInValueAndGradient) {
  expect_all_near(both_ways(dense_sequence(), kIn), 1e-13);
}

TEST(StackedInputs, SymbolLookupEqualsPerStepLookupsInValueAndGradient) {
  expect_all_near(both_ways(symbol_sequence(kB, 9), 9), 1e-13);
}

TEST(StackedInputs, LargeSymbolLookupsStayPerStep) {
  // 5 steps x 4000 sequences x 6 outputs = 120,000 results > 2^16: one lookup per step (of W + b when
  // there is a bias: both_ways)
  const models::Sequence xs = symbol_sequence(4000, 9);
  Graph g;
  Var w = g.input(check::random_inputs({Shape{9, kOut}}, -1, 1, 5)[0]);
  std::vector<models::StepInput> x = models::step_inputs(g, xs, 0, kT, DType::f64);
  Var y = models::project(x[2], w, Var());
  EXPECT_STREQ(g.node(y.id()).prim->name, "gather_rows");
  EXPECT_EQ(g.node(y.id()).attrs.index, xs.symbols[2]);
  expect_all_near(both_ways(xs, 9), 1e-13);
}

TEST(StackedInputs, AReplacedInputIsProjectedOnItsOwn) {
  const models::Sequence xs = dense_sequence();
  Graph g;
  Var w = g.input(check::random_inputs({Shape{kIn, kOut}}, -1, 1, 5)[0]);
  std::vector<models::StepInput> x = models::step_inputs(g, xs, 0, kT, DType::f64);
  models::StepInput changed = x[1];
  changed.dense = ops::scale(changed.dense, 2.0);  // stacked still set: must not read the stacked rows
  const Tensor got = models::project(changed, w, Var()).value();
  const Tensor want = ops::matmul(changed.dense, w).value();
  for (int64_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got.at(i), want.at(i), 1e-14) << i;
}

}  // namespace
}  // namespace tg
