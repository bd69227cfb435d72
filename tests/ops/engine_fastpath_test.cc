// The engine's speed paths must not change results: regrouped cotangent sums in the reverse sweep
// (per-step weight products, row scatters, gate pads), deferred evaluation of derivative nodes,
// variadic nodes with many inputs, the contiguous broadcasting kernels and the SIMD row reductions.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/ad.h"
#include "core/linearize.h"
#include "ops/ops.h"
#include "gradcheck/gradcheck.h"

namespace tg {
namespace {

constexpr int64_t kV = 5, kH = 4, kB = 1, kT = 6;

// A tiny LSTM over symbols, logits of every step concatenated. Sizes are chosen so that every
// regrouping applies: the weights' per-step products are cheaper to concatenate than to add up.
std::vector<Var> lstm_logits_from(std::span<const Var> p, Var h, Var c) {
  Var Wx = p[0], Wh = p[1], b = p[2], Wo = p[3];
  std::vector<Var> logits;
  for (int64_t t = 0; t < kT; ++t) {
    auto sym = ops::make_index({static_cast<int32_t>((t * 3 + 1) % kV)});
    Var a = ops::gather_rows(Wx, sym) + ops::matmul(h, Wh) + b;
    std::vector<Var> gates = ops::split(a, 1, 4);
    Var c_in = ops::logistic(gates[0]) * ops::tanh(gates[3]);
    c = c.empty() ? c_in : ops::logistic(gates[1]) * c + c_in;
    h = ops::logistic(gates[2]) * ops::tanh(c);
    logits.push_back(ops::matmul(h, Wo));
  }
  return {ops::concat(logits, 0)};
}
std::vector<Var> lstm_logits(Graph&, std::span<const Var> p) { return lstm_logits_from(p, {}, {}); }

std::vector<Shape> lstm_shapes() { return {{kV, 4 * kH}, {kH, 4 * kH}, {4 * kH}, {kH, kV}}; }

TEST(RegroupedCotangents, PassTheGradientCheckHarnessToSecondOrder) {
  check::Report r = check::check_fn(lstm_logits, check::random_inputs(lstm_shapes(), -1, 1, 3));
  EXPECT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.primal_reevals, 0u);
}

TEST(RegroupedCotangents, SharedWeightGetsOneProductAndDeadContributionsNeverRun) {
  Graph g;
  std::vector<Var> p;
  for (const Tensor& t : check::random_inputs(lstm_shapes(), -1, 1, 5)) p.push_back(g.input(t));
  Var loss = ops::sum(ops::square(lstm_logits(g, p)[0]));
  const int32_t primal_end = g.size();
  std::vector<Var> grads = ad::grad(loss, p);
  const Node& wh_bar = g.node(grads[1].id());
  ASSERT_STREQ(wh_bar.prim->name, "matmul");
  EXPECT_STREQ(g.node(wh_bar.in[0]).prim->name, "concat");
  EXPECT_STREQ(g.node(wh_bar.in[1]).prim->name, "concat");
  EXPECT_STREQ(g.node(grads[0].id()).prim->name, "scatter_add_rows");
  int never_run = 0;
  for (int32_t id = primal_end; id < g.size(); ++id) never_run += g.pending(id);
  EXPECT_GT(never_run, 0) << "the replaced per-step contributions are dead and stay unevaluated";
  for (const Var& v : grads) EXPECT_TRUE(v.value().all_finite());
}

// A small recurrence (H = 8, B = 16, T = 20): each step's product h_{t-1}ᵀ δ_t reads more elements (2 x 128)
// than its add saves (64), but the 38 nodes it saves cost more: W's gradient is still one product.
TEST(RegroupedCotangents, SmallSharedWeightGetsOneProductForTheNodesItSaves) {
  Graph g;
  const std::vector<Tensor> v = check::random_inputs({Shape{8, 8}, Shape{16, 8}}, -1, 1, 9);
  Var w = g.input(v[0]), h = g.input(v[1]);
  Var loss;
  for (int t = 0; t < 20; ++t) {
    h = ops::tanh(ops::matmul(h, w));
    loss = loss.empty() ? ops::sum(ops::square(h)) : ops::add(loss, ops::sum(ops::square(h)));
  }
  const Var w_bar = ad::grad(loss, std::vector<Var>{w})[0];
  const Node& n = g.node(w_bar.id());
  ASSERT_STREQ(n.prim->name, "matmul");
  EXPECT_TRUE(n.attrs.ta);
  EXPECT_EQ(g.node(n.in[0]).shape, (Shape{20 * 16, 8}));  // every step's h_{t-1} stacked, used transposed
  EXPECT_TRUE(w_bar.value().all_finite());
  // and the same value as the sum of the per-step products, formed here by hand
  Graph g2;
  Var w2 = g2.input(v[0]), h2 = g2.input(v[1]);
  std::vector<Var> hs{h2};
  for (int t = 0; t < 20; ++t) hs.push_back(ops::tanh(ops::matmul(hs.back(), w2)));
  Var delta;  // δ_t = ∂loss/∂(h_{t-1} W), back to front
  Var sum;
  for (int t = 20; t >= 1; --t) {
    Var h_bar = ops::scale(hs[t], 2.0);
    if (!delta.empty()) h_bar = ops::add(h_bar, ops::matmul(delta, w2, false, true));
    delta = ops::mul(h_bar, ops::sub(ops::fill(g2, {16, 8}, 1.0, DType::f64), ops::square(hs[t])));
    Var part = ops::matmul(hs[t - 1], delta, true, false);
    sum = sum.empty() ? part : ops::add(sum, part);
  }
  for (int64_t i = 0; i < 64; ++i) EXPECT_NEAR(w_bar.value().at(i), sum.value().at(i), 1e-12 * (1 + std::abs(sum.value().at(i))));
}

TEST(RegroupedCotangents, GateCotangentsAreConcatenatedOnce) {
  Graph g;
  std::vector<Var> p;
  for (const Tensor& t : check::random_inputs(lstm_shapes(), -1, 1, 6)) p.push_back(g.input(t));
  // a zero initial state, as models have: W_h then has a product at every step, like W_x a scatter
  Var zero = ops::fill(g, {kB, kH}, 0.0, DType::f64);
  Var loss = ops::sum(ops::square(lstm_logits_from(p, zero, zero)[0]));
  std::vector<Var> grads = ad::grad(loss, p);
  const Node& wh_bar = g.node(grads[1].id());
  const Node& wx_bar = g.node(grads[0].id());
  ASSERT_STREQ(wh_bar.prim->name, "matmul");
  ASSERT_STREQ(wx_bar.prim->name, "scatter_add_rows");
  EXPECT_EQ(wx_bar.in[0], wh_bar.in[1]) << "W_x's scatter and W_h's product read one concat of the gate cotangents";
}

// Slices of one node with gaps between them (steps whose logits no loss reads): their pads are
// regrouped into one concat with zero blocks in the gaps. Making a zero block adds a node, which may
// move the graph's node storage; the regrouping once read a node through a reference across it (a
// use after free that ASan reports). Every count of nodes before the pattern is tried, so that some
// build crosses a growth of the storage exactly there.
TEST(RegroupedCotangents, PadsWithGapsGetZeroBlocksAndTheRightGradient) {
  for (int extra = 0; extra < 80; ++extra) {
    Graph g;
    Var x = g.input(check::random_inputs({Shape{8, 3}}, -1, 1, 3)[0]);
    for (int i = 0; i < extra; ++i) ops::fill(g, {1}, 0.0, DType::f64);
    // rows [0, 2) and [5, 7) are read, [2, 5) and [7, 8) are not
    Var loss = ops::add(ops::sum(ops::square(ops::slice(x, 0, 0, 2))), ops::sum(ops::scale(ops::slice(x, 0, 5, 7), 3.0)));
    const Var grad = ad::grad(loss, std::vector<Var>{x})[0];
    const Tensor& xv = x.value();
    const Tensor& gv = grad.value();
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t c = 0; c < 3; ++c) {
        const double want = r < 2 ? 2 * xv.at(r * 3 + c) : (r == 5 || r == 6) ? 3.0 : 0.0;
        ASSERT_EQ(gv.at(r * 3 + c), want) << "row " << r << " column " << c << " with " << extra << " nodes before";
      }
  }
}

TEST(RegroupedCotangents, GaussNewtonSegmentRunsOnlyLiveNodes) {
  Graph g;
  std::vector<Var> p;
  for (const Tensor& t : check::random_inputs(lstm_shapes(), -1, 1, 9)) p.push_back(g.input(t));
  Var z = lstm_logits(g, p)[0];
  Var loss = losses::softmax_xent(z, ops::make_index(std::vector<int32_t>(kT * kB, 2)));
  ad::Linearization lin(p, loss);
  std::vector<Tensor> v = check::random_inputs(lstm_shapes(), -1, 1, 10);
  lin.gnvp(v, {{z}, loss});
  uint64_t before = g.total_evals();
  std::vector<Tensor> gv = lin.gnvp(v, {{z}, loss});
  uint64_t evaluated = g.total_evals() - before;
  int64_t dynamic_nodes = 0;
  for (int32_t id = 0; id < g.size(); ++id) dynamic_nodes += g.node(id).dynamic && g.node(id).prim->arity != 0;
  EXPECT_LT(evaluated, static_cast<uint64_t>(dynamic_nodes)) << "dead contributions are skipped";
  // symmetric: u·Gv = v·Gu
  std::vector<Tensor> u = check::random_inputs(lstm_shapes(), -1, 1, 11);
  std::vector<Tensor> gu = lin.gnvp(u, {{z}, loss});
  double ugv = 0, vgu = 0;
  for (size_t i = 0; i < u.size(); ++i)
    for (int64_t k = 0; k < u[i].size(); ++k) {
      ugv += u[i].at(k) * gv[i].at(k);
      vgu += v[i].at(k) * gu[i].at(k);
    }
  EXPECT_NEAR(ugv, vgu, 1e-12 * std::abs(ugv));
}

TEST(DeferredEvaluation, ReadingAPendingNodeEvaluatesItAndItsInputs) {
  Graph g;
  Var x = g.input(Tensor::from({2}, std::vector<double>{1.0, 2.0}, DType::f64));
  bool was = g.set_deferred(true);
  Var y = ops::scale(x, 3.0);
  Var z = ops::add_scalar(y, 1.0);
  g.set_deferred(was);
  EXPECT_TRUE(g.pending(y.id()));
  EXPECT_TRUE(g.pending(z.id()));
  EXPECT_DOUBLE_EQ(z.value().at(1), 7.0);
  EXPECT_FALSE(g.pending(y.id()));
  EXPECT_EQ(g.eval_count(y.id()), 1u);
}

TEST(VariadicNodes, ConcatOfManyInputsIsDifferentiable) {
  Graph g;
  Var x = g.input(Tensor::full({70, 2}, 0.5, DType::f64));
  std::vector<Var> rows;
  for (int64_t i = 0; i < 70; ++i) rows.push_back(ops::scale(ops::slice(x, 0, i, i + 1), static_cast<double>(i)));
  Var y = ops::sum(ops::concat(rows, 0));
  Var x_bar = ad::grad(y, std::vector<Var>{x})[0];
  EXPECT_DOUBLE_EQ(x_bar.value().at(2 * 69 + 1), 69.0);
}

// Every contiguous broadcasting path against a direct loop.
TEST(BroadcastKernels, FastPathsMatchDirectIndexing) {
  Graph g;
  auto seq = [&](const Shape& s, double start) {
    std::vector<double> v(static_cast<size_t>(s.size()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
    return g.input(Tensor::from(s, v, DType::f64));
  };
  Var m = seq({3, 4}, 1), row = seq({4}, 100), row1 = seq({1, 4}, 200), col = seq({3, 1}, 300);
  auto at = [](Var v, int64_t i, int64_t j) { return v.value().at(i * 4 + j); };
  Var a = ops::add(m, row), b = ops::sub(row1, m), c = ops::mul(m, col), d = ops::div(col, m);
  Var e = ops::broadcast_to(row, {3, 4}), f = ops::broadcast_to(col, {3, 4});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      const double mv = at(m, i, j);
      EXPECT_DOUBLE_EQ(at(a, i, j), mv + row.value().at(j));
      EXPECT_DOUBLE_EQ(at(b, i, j), row1.value().at(j) - mv);
      EXPECT_DOUBLE_EQ(at(c, i, j), mv * col.value().at(i));
      EXPECT_DOUBLE_EQ(at(d, i, j), col.value().at(i) / mv);
      EXPECT_DOUBLE_EQ(at(e, i, j), row.value().at(j));
      EXPECT_DOUBLE_EQ(at(f, i, j), col.value().at(i));
    }
  Var rows_sum = ops::sum_to(m, {4}), cols_sum = ops::sum_to(m, {3, 1}), rows_sum1 = ops::sum_to(m, {1, 4});
  for (int64_t j = 0; j < 4; ++j) {
    double s = 0;
    for (int64_t i = 0; i < 3; ++i) s += at(m, i, j);
    EXPECT_DOUBLE_EQ(rows_sum.value().at(j), s);
    EXPECT_DOUBLE_EQ(rows_sum1.value().at(j), s);
  }
  for (int64_t i = 0; i < 3; ++i) {
    double s = 0;
    for (int64_t j = 0; j < 4; ++j) s += at(m, i, j);
    EXPECT_DOUBLE_EQ(cols_sum.value().at(i), s);
  }
  // a 3-d middle-axis broadcast still takes the general path
  Var t = seq({2, 3, 4}, 0), mid = seq({2, 1, 4}, 50);
  Var u = ops::add(t, mid);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 3; ++k)
      for (int64_t j = 0; j < 4; ++j)
        EXPECT_DOUBLE_EQ(u.value().at((i * 3 + k) * 4 + j), t.value().at((i * 3 + k) * 4 + j) + mid.value().at(i * 4 + j));
}

// Sums and maxima over the last axis, and the sum of all elements, run a SIMD batch at a time with a
// scalar tail (ops/reduce.cc): every row length from 0 to past four batches of the widest unit, in both
// dtypes, against a long double sum (to rounding) and the exact maximum.
TEST(RowReductions, SimdSumsAndMaximaMatchADirectLoopAtEveryRowLength) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (int64_t n = 0; n <= 70; ++n) {
      Graph g;
      const int64_t rows = 3;
      std::vector<double> v(static_cast<size_t>(rows * n));
      for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + 0.3) * 10.0 - 1.0;
      // the maximum at the last element (the scalar tail) in row 1 and the first in row 2
      if (n > 0) v[static_cast<size_t>(2 * n - 1)] = 50, v[static_cast<size_t>(2 * n)] = 60;
      Var x = g.input(Tensor::from({rows, n}, v, dt));
      Var s = ops::sum(x, 1), all = ops::sum(x);
      const double eps = dt == DType::f32 ? 1e-6 : 1e-15;
      long double total = 0, magnitude = 0;
      for (int64_t r = 0; r < rows; ++r) {
        long double exact = 0, abs_sum = 0;
        double m = -1e300;
        for (int64_t j = 0; j < n; ++j) {
          const double e = x.value().at(r * n + j);  // the value in dt
          exact += e, abs_sum += std::fabs(e);
          m = std::max(m, e);
        }
        total += exact, magnitude += abs_sum;
        EXPECT_NEAR(s.value().at(r), static_cast<double>(exact), eps * static_cast<double>(abs_sum) + 1e-300)
            << dtype_name(dt) << " n=" << n << " row " << r;
        if (n > 0) {
          EXPECT_EQ(ops::max(x, 1).value().at(r), m) << dtype_name(dt) << " n=" << n << " row " << r;
        }
      }
      EXPECT_NEAR(all.value().item(), static_cast<double>(total), eps * static_cast<double>(magnitude) + 1e-300)
          << dtype_name(dt) << " n=" << n;
    }
  }
}

// A NaN in a row: max keeps the scalar loop's rule (NaN only when the row starts with one; argmax_mask's
// strict > agrees) wherever the SIMD batches' boundaries fall, in both dtypes.
TEST(RowReductions, MaxKeepsANaNOnlyAtTheRowStartAsTheScalarLoop) {
  for (DType dt : {DType::f32, DType::f64}) {
    const int64_t n = 40;
    for (int64_t at = 0; at < n; ++at) {
      std::vector<double> v(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) v[static_cast<size_t>(j)] = static_cast<double>(j % 7) - 2.0;
      v[static_cast<size_t>(at)] = std::nan("");
      Graph g;
      const double m = ops::max(g.input(Tensor::from({1, n}, v, dt)), 1).value().at(0);
      if (at == 0) {
        EXPECT_TRUE(std::isnan(m)) << dtype_name(dt);
      } else {
        EXPECT_EQ(m, 4.0) << dtype_name(dt) << " NaN at " << at;
      }
    }
  }
}

}  // namespace
}  // namespace tg
