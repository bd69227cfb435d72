// Stability penalties (Krueger's norm-stabilizer and its alternatives) and Pascanu's norm-preserving
// regulariser Ω: values against plain-C++ oracles computed from the hidden states' values, float64
// gradient checks (finite differences, dot-product test), and Ω's gradient (second-order AD through
// the engine) against central finite differences with the error vectors held constant.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "models/loss.h"
#include "models/objective.h"
#include "models/regularizers.h"
#include "tests/harness/error_of.h"
#include "gradcheck/model_specs.h"

namespace tg::models {
namespace {

using Rows = std::vector<std::vector<double>>;  // [B][H]

Rows rows_of(const Tensor& t) {
  const int64_t B = t.shape()[0], H = t.size() / B;
  Rows r(B, std::vector<double>(H));
  for (int64_t n = 0; n < B; ++n)
    for (int64_t i = 0; i < H; ++i) r[n][i] = t.at(n * H + i);
  return r;
}
double l2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s + 1e-12);
}
double l1(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::abs(x);
  return s;
}

// The penalties' definitions (digest 004 §2.1-2.2) evaluated on plain numbers.
double oracle(const std::vector<Rows>& h, const Rows& h0, const StabilityPenalty& p) {
  const size_t T = h.size(), B = h[0].size();
  std::vector<Rows> s;
  if (!p.skip_first) s.push_back(h0);
  s.insert(s.end(), h.begin(), h.end());
  double total = 0;
  for (size_t n = 0; n < B; ++n) {
    double per = 0;
    if (p.kind == "target_norm" || p.kind == "squared_norm") {
      for (size_t t = 0; t < T; ++t) {
        double nt = l2(h[t][n]);
        per += p.kind == "target_norm" ? (nt - p.target) * (nt - p.target) : nt * nt - 1e-12;
      }
    } else if (p.kind == "initial_final") {
      double d = l2(s.front()[n]) - l2(s.back()[n]);
      per += d * d;
    } else {
      for (size_t t = 1; t < s.size(); ++t) {
        const auto &a = s[t - 1][n], &b = s[t][n];
        double term = 0;
        if (p.kind == "state_diff") {
          for (size_t i = 0; i < a.size(); ++i) term += (b[i] - a[i]) * (b[i] - a[i]);
        } else if (p.kind == "l1_norm") {
          term = (l1(b) - l1(a)) * (l1(b) - l1(a));
        } else {
          double d = l2(b) - l2(a);
          term = p.kind == "norm" ? d * d : p.kind == "relative" ? (d / l2(b)) * (d / l2(b)) : std::abs(d);
        }
        per += term;
      }
    }
    total += per / static_cast<double>(B);
  }
  return p.beta / static_cast<double>(T) * total;
}

std::unique_ptr<Model> tiny(const std::string& model, const nlohmann::json& opts, uint64_t seed = 1) {
  return check::make_model(check::ModelSpec{model, model, opts}, seed);
}

const nlohmann::json kRnn = {{"vocab", 5}, {"hidden", 3}, {"learned_h0", true}};
const nlohmann::json kLstm = {{"vocab", 5}, {"hidden", 3}, {"learned_h0", true}};

class Stability : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(Stability, ValueMatchesTheDefinitionAndGradientChecks) {
  const auto [kind, skip_first] = GetParam();
  StabilityPenalty p{.kind = kind, .beta = 1.7, .target = 0.6, .skip_first = skip_first};
  for (const auto& [model, opts] : {std::pair{"rnn", kRnn}, std::pair{"lstm", kLstm}}) {
    SCOPED_TRACE(model);
    auto m = tiny(model, opts);
    check::TinyBatch batch = check::tiny_batch(*m, 5, 3);
    // value against the oracle
    Graph g;
    Outputs out = m->unroll(g, batch.xs);
    std::vector<Rows> h;
    for (const Var& v : out.hidden) h.push_back(rows_of(v.value()));
    Var r = stability_penalty(out.hidden, out.initial, p);
    ASSERT_FALSE(r.empty());
    const double want = oracle(h, rows_of(out.initial.value()), p);
    EXPECT_NEAR(r.value().item(), want, 1e-12 * std::max(1.0, std::abs(want)));
    EXPECT_GT(std::abs(want), 0);
    // gradient of the penalty with respect to every parameter
    check::Fn f = [&](Graph& gg, std::span<const Var> theta) {
      gg.bind(m->params(), theta);
      Outputs o = m->unroll(gg, batch.xs);
      return std::vector<Var>{stability_penalty(o.hidden, o.initial, p)};
    };
    check::Report rep = check::check_fn(f, ad::unpack(m->params().values()));
    EXPECT_TRUE(rep.ok) << kind << ": " << rep.failure << " fd " << rep.fd1 << " dot " << rep.dot1 << " fd2 "
                        << rep.fd2;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, Stability,
                         ::testing::Combine(::testing::Values("norm", "state_diff", "relative", "l1_norm",
                                                              "target_norm", "initial_final", "abs_diff",
                                                              "squared_norm"),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_skip_first" : "_with_h0");
                         });

TEST(Stability, SkipFirstDecidesWhetherTheH0TermCounts) {
  auto m = tiny("rnn", kRnn);
  check::TinyBatch batch = check::tiny_batch(*m, 4, 2);
  Graph g;
  Outputs out = m->unroll(g, batch.xs);
  StabilityPenalty with{.kind = "norm", .beta = 1, .skip_first = false}, without{.kind = "norm", .beta = 1};
  const double a = stability_penalty(out.hidden, out.initial, with).value().item();
  const double b = stability_penalty(out.hidden, out.initial, without).value().item();
  // the difference is exactly the t = 1 term, β/T · mean_n (‖h_1‖ - ‖h_0‖)²
  Rows h0 = rows_of(out.initial.value()), h1 = rows_of(out.hidden[0].value());
  double first = 0;
  for (size_t n = 0; n < h0.size(); ++n) first += std::pow(l2(h1[n]) - l2(h0[n]), 2) / h0.size();
  EXPECT_NEAR(a - b, first / 4.0, 1e-13);
  EXPECT_GT(first, 0);
}

TEST(Stability, NormStabilizerShorthandIsTheNormKindWithoutTheFirstTerm) {
  ObjectiveOptions a = objective_options_from_json({{"norm_stabilizer", 50}});
  EXPECT_EQ(a.stability.kind, "norm");
  EXPECT_EQ(a.stability.beta, 50);
  EXPECT_TRUE(a.stability.skip_first);
  // and the objective's loss gains exactly that penalty
  auto m0 = tiny("rnn", kRnn), m1 = tiny("rnn", kRnn);
  check::TinyBatch tb = check::tiny_batch(*m0, 4, 2);
  tasks::Batch b{tb.xs, tb.ys, {}, nullptr};
  ParamVec theta = m0->params().values().clone();
  ModelObjective plain(std::move(m0)), reg(std::move(m1), a);
  Graph g;
  g.bind(reg.model().params());
  Outputs out = reg.model().unroll(g, b.inputs);
  // each sequence over its own length (the tiny batch has a padded one: stabilizer_lengths_test.cc)
  ASSERT_FALSE(b.inputs.mask.empty());
  const double pen = stability_penalty(out.hidden, out.initial, a.stability, b.inputs.mask).value().item();
  EXPECT_NEAR(reg.value(theta, b) - plain.value(theta, b), pen, 1e-13);
  EXPECT_GT(pen, 0);
}

// The penalty's nodes do not grow with the number of steps (the states are stacked once): a per-step
// construction made an IRNN of 100 units on batches of 16 make 0.56 as many updates per CPU second.
TEST(Stability, NodesDoNotGrowWithTheSteps) {
  for (const char* kind : {"norm", "state_diff", "relative", "l1_norm", "target_norm", "abs_diff", "squared_norm"}) {
    SCOPED_TRACE(kind);
    const StabilityPenalty p{.kind = kind, .beta = 1.0, .skip_first = false};
    auto nodes_for = [&](int64_t T) {
      Graph g;
      std::vector<Var> h;
      for (int64_t t = 0; t < T; ++t) h.push_back(g.input(Tensor::full({4, 3}, 0.1 * static_cast<double>(t + 1), DType::f64)));
      const Var h0 = g.input(Tensor::full({4, 3}, 0.05, DType::f64));
      const int32_t before = g.size();
      EXPECT_FALSE(stability_penalty(h, h0, p).empty());
      return g.size() - before;
    };
    EXPECT_EQ(nodes_for(5), nodes_for(50));
  }
}

TEST(Stability, BadOptionsAreClearErrors) {
  using check::contains;
  using check::error_of;
  EXPECT_TRUE(contains(error_of([] { objective_options_from_json({{"stability_penalty", {{"kind", "l3"}}}}); }),
                       "kind must be one of"));
  EXPECT_TRUE(contains(error_of([] { objective_options_from_json({{"stability_penalty", {{"betta", 1}}}}); }),
                       "unknown option 'betta'"));
  EXPECT_TRUE(contains(error_of([] {
                         objective_options_from_json(
                             {{"norm_stabilizer", 5}, {"stability_penalty", {{"kind", "norm"}, {"beta", 1}}}});
                       }),
                       "not both"));
  // the shorthand over its own resolution (a run's saved options given the run's --set again) is one penalty
  const ObjectiveOptions again = objective_options_from_json(
      {{"norm_stabilizer", 50}, {"stability_penalty", {{"kind", "norm"}, {"beta", 50}, {"skip_first", true}}}});
  EXPECT_EQ(again.stability.beta, 50);
  EXPECT_EQ(again.stability.kind, "norm");
  // the shorthand keeps which states the penalty reads
  const ObjectiveOptions on_cell = objective_options_from_json({{"norm_stabilizer", 50}, {"stability_penalty", {{"on", "cell"}}}});
  EXPECT_EQ(on_cell.stability.kind, "norm");
  EXPECT_EQ(on_cell.stability.beta, 50);
  EXPECT_EQ(on_cell.stability.on, "cell");
  EXPECT_TRUE(contains(error_of([] {
                         objective_options_from_json(
                             {{"norm_stabilizer", 50}, {"stability_penalty", {{"kind", "norm"}, {"beta", 50}, {"skip_first", false}}}});
                       }),
                       "not both"));
  EXPECT_TRUE(contains(error_of([] { objective_options_from_json({{"norm_preserving", -1}}); }), "norm_preserving"));
}

// ---- the penalty on an LSTM's memory cell (Krueger's Table 5.I, second row) ------------------------

TEST(Stability, OnCellReadsTheMemoryNotTheHiddenState) {
  for (const std::string model : {"lstm", "mlstm"}) {
    SCOPED_TRACE(model);
    auto m = tiny(model, kLstm);
    check::TinyBatch batch = check::tiny_batch(*m, 5, 3);
    Graph g;
    Outputs out = m->unroll(g, batch.xs);
    ASSERT_EQ(out.memory.size(), out.hidden.size());
    ASSERT_FALSE(out.initial_memory.empty());
    {
      // lstm: h = o ⊙ tanh(c), mlstm: h = tanh(o ⊙ c), o in (0, 1): |h| <= |tanh c| < |c| wherever c != 0,
      // and the same sign, which the hidden state itself (|h| > |tanh h|) cannot satisfy
      int64_t nonzero = 0;
      for (size_t t = 0; t < out.memory.size(); ++t) {
        const Tensor &c = out.memory[t].value(), &h = out.hidden[t].value();
        for (int64_t i = 0; i < c.size(); ++i) {
          if (c.at(i) == 0) continue;
          ++nonzero;
          EXPECT_LE(std::abs(h.at(i)), std::abs(std::tanh(c.at(i))) + 1e-15);
          EXPECT_GE(h.at(i) * c.at(i), 0);
        }
      }
      EXPECT_GT(nonzero, 0);
    }
    // the objective adds exactly the penalty of the memory's states, which differs from the hidden one
    const StabilityPenalty p{.kind = "norm", .beta = 1.3, .on = "cell"};
    ObjectiveOptions cell_opt;
    cell_opt.stability = p;
    ObjectiveOptions hidden_opt;
    hidden_opt.stability = StabilityPenalty{.kind = "norm", .beta = 1.3};
    tasks::Batch b{batch.xs, batch.ys, {}, nullptr};
    ParamVec theta = m->params().values().clone();
    ModelObjective plain(tiny(model, kLstm)), on_cell(tiny(model, kLstm), cell_opt),
        on_hidden(tiny(model, kLstm), hidden_opt);
    const double want = stability_penalty(out.memory, out.initial_memory, p, b.inputs.mask).value().item();
    EXPECT_NEAR(on_cell.value(theta, b) - plain.value(theta, b), want, 1e-13);
    EXPECT_GT(want, 0);
    EXPECT_GT(std::abs(on_hidden.value(theta, b) - on_cell.value(theta, b)), 1e-6);
    // its gradient with respect to every parameter, at order 2
    check::Fn f = [&](Graph& gg, std::span<const Var> th) {
      gg.bind(m->params(), th);
      Outputs o = m->unroll(gg, batch.xs);
      return std::vector<Var>{stability_penalty(o.memory, o.initial_memory, p, batch.xs.mask)};
    };
    check::Report rep = check::check_fn(f, ad::unpack(m->params().values()));
    EXPECT_TRUE(rep.ok) << rep.failure << " fd " << rep.fd1 << " dot " << rep.dot1 << " fd2 " << rep.fd2;
  }
}

TEST(Stability, OnCellWithoutAMemoryIsAClearError) {
  using check::contains;
  using check::error_of;
  ObjectiveOptions o;
  o.stability = StabilityPenalty{.kind = "norm", .beta = 1, .on = "cell"};
  auto m = tiny("rnn", kRnn);
  check::TinyBatch tb = check::tiny_batch(*m, 4, 2);
  tasks::Batch b{tb.xs, tb.ys, {}, nullptr};
  ParamVec theta = m->params().values().clone();
  ModelObjective obj(std::move(m), o);
  EXPECT_TRUE(contains(error_of([&] { obj.value(theta, b); }), "and 'rnn' is not one of them"));
  // nor a model that wraps LSTM cells in layers
  ObjectiveOptions o2 = o;
  auto st = tiny("stacked", {{"vocab", 5}, {"cell", "lstm"}, {"layers", {3}}});
  check::TinyBatch tb2 = check::tiny_batch(*st, 4, 2);
  tasks::Batch b2{tb2.xs, tb2.ys, {}, nullptr};
  ParamVec theta2 = st->params().values().clone();
  ModelObjective obj2(std::move(st), o2);
  EXPECT_TRUE(contains(error_of([&] { obj2.value(theta2, b2); }), "and 'stacked' is not one of them"));
  EXPECT_TRUE(contains(error_of([] { objective_options_from_json({{"stability_penalty", {{"on", "memory"}}}}); }),
                       "on must be hidden or cell, not 'memory'"));
  EXPECT_TRUE(contains(error_of([] {
                         objective_options_from_json(
                             {{"remat_segments", 2}, {"stability_penalty", {{"kind", "norm"}, {"beta", 1}, {"on", "cell"}}}});
                       }),
                       "not on = cell"));
}

// ---- Pascanu's Ω ----------------------------------------------------------------------------

// A tanh RNN on dense inputs, no input masks (the loss masks still leave step 0 and the last
// sequence's last step out, so one a_T is zero and its term must be skipped).
struct OmegaSetup {
  std::unique_ptr<Model> m;
  check::TinyBatch batch;
};
OmegaSetup omega_setup(const std::string& model = "rnn") {
  OmegaSetup s;
  s.m = tiny(model, {{"vocab", 0}, {"in", 2}, {"out", 2}, {"hidden", 3}, {"output", "linear"}}, 3);
  s.batch = check::tiny_batch(*s.m, 5, 3, 11);
  s.batch.xs.mask.clear();
  return s;
}

std::vector<Tensor> adjoints_at(const Model& m, const check::TinyBatch& b) {
  Graph g;
  g.bind(m.params());
  Outputs out = m.unroll(g, b.xs);
  return hidden_adjoints(matching_loss(m.output_kind(), out.logits, b.ys, true), out.hidden);
}

TEST(NormPreserving, HiddenStatesOfAFusedRecurrenceAreRefused) {
  OmegaSetup s = omega_setup();
  std::vector<Tensor> a(5, Tensor::zeros({3, 3}, DType::f64));
  Graph g(GraphOptions{.fuse_recurrences = true});  // the tanh RNN's steps are then slices of one tanh_scan
  g.bind(s.m->params());
  Outputs out = s.m->unroll(g, s.batch.xs);
  try {
    norm_preserving_omega(g, out.hidden, a);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fuse_recurrences"), std::string::npos) << e.what();
  }
}

TEST(NormPreserving, ValueMatchesTheTanhRnnJacobianByHand) {
  OmegaSetup s = omega_setup();
  std::vector<Tensor> a = adjoints_at(*s.m, s.batch);
  Graph g;
  g.bind(s.m->params());
  Outputs out = s.m->unroll(g, s.batch.xs);
  const double omega = norm_preserving_omega(g, out.hidden, a).value().item();
  // a J_k = (a ⊙ (1 - h_{k+1}²)) W_hhᵀ for h_{k+1} = tanh(x W_hx + h_k W_hh + b)
  Rows W = rows_of(s.m->params().value(*s.m->params().find("rnn/W_hh")));
  const size_t T = out.hidden.size(), H = W.size();
  double want = 0;
  int terms = 0;
  for (size_t k = 0; k + 1 < T; ++k) {
    Rows h = rows_of(out.hidden[k + 1].value()), ak = rows_of(a[k + 1]);
    for (size_t n = 0; n < h.size(); ++n) {
      std::vector<double> d(H), v(H, 0.0);
      for (size_t j = 0; j < H; ++j) d[j] = ak[n][j] * (1 - h[n][j] * h[n][j]);
      for (size_t i = 0; i < H; ++i)
        for (size_t j = 0; j < H; ++j) v[i] += d[j] * W[i][j];
      double na = 0;
      for (double x : ak[n]) na += x * x;
      na = std::sqrt(na);
      if (na == 0) continue;
      ++terms;
      want += std::pow(l2(v) / na - 1, 2) / static_cast<double>(h.size());
    }
  }
  EXPECT_EQ(terms, 3 * 4 - 1);  // the last sequence's last step has no loss: a_T = 0 there
  EXPECT_NEAR(omega, want, 1e-12 * want);
  EXPECT_GT(want, 0);
}

TEST(NormPreserving, GradientChecksWithTheErrorVectorsHeldConstant) {
  for (const char* model : {"rnn", "lstm", "gru"}) {
    SCOPED_TRACE(model);
    OmegaSetup s = omega_setup(model);
    std::vector<Tensor> a = adjoints_at(*s.m, s.batch);
    check::Fn f = [&](Graph& g, std::span<const Var> theta) {
      g.bind(s.m->params(), theta);
      Outputs out = s.m->unroll(g, s.batch.xs);
      return std::vector<Var>{norm_preserving_omega(g, out.hidden, a)};
    };
    check::Options opt;
    opt.order = 1;  // Ω is already a first derivative: its gradient is the second order
    check::Report r = check::check_fn(f, ad::unpack(s.m->params().values()), opt);
    EXPECT_TRUE(r.ok) << r.failure << " fd " << r.fd1 << " dot " << r.dot1;
  }
}

TEST(NormPreserving, ObjectiveGradientIsTaskGradientPlusLambdaTimesOmegaGradient) {
  // d/dθ [E + λ Ω(θ; a fixed)] from the objective, against central differences of Ω with a held at θ₀
  const double lambda = 0.37;
  OmegaSetup s0 = omega_setup(), s1 = omega_setup();
  tasks::Batch b{s0.batch.xs, s0.batch.ys, {}, nullptr};
  ParamVec theta = s0.m->params().values().clone();
  std::vector<Tensor> a = adjoints_at(*s0.m, s0.batch);
  auto omega_at = [&](const ParamVec& th) {
    s1.m->params().set_values(th);
    Graph g;
    g.bind(s1.m->params());
    Outputs out = s1.m->unroll(g, s1.batch.xs);
    return norm_preserving_omega(g, out.hidden, a).value().item();
  };
  const double omega0 = omega_at(theta);
  auto model_for_plain = tiny("rnn", {{"vocab", 0}, {"in", 2}, {"out", 2}, {"hidden", 3}, {"output", "linear"}}, 3);
  ModelObjective plain(std::move(model_for_plain)),
      reg(std::move(s0.m), objective_options_from_json({{"norm_preserving", lambda}}));
  auto ep = plain.evaluate(theta, b), er = reg.evaluate(theta, b);
  EXPECT_NEAR(er->value() - ep->value(), lambda * omega0, 1e-14);
  ParamVec diff = er->grad().axpy(-1.0, ep->grad()).scale(1.0 / lambda);
  const double eps = 1e-6;
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < theta.size(); ++i) {
    ParamVec tp = theta.clone(), tm = theta.clone();
    tp.flat().data<double>()[i] += eps;
    tm.flat().data<double>()[i] -= eps;
    const double fd = (omega_at(tp) - omega_at(tm)) / (2 * eps);
    worst = std::max(worst, std::abs(fd - diff.flat().at(i)));
    scale = std::max(scale, std::abs(fd));
  }
  std::printf("Omega = %.6g, |dOmega/dtheta|_max = %.6g, max |AD - FD| = %.3g over %lld parameters\n", omega0, scale,
              worst, static_cast<long long>(theta.size()));
  EXPECT_GT(scale, 1e-3);
  EXPECT_LT(worst, 1e-7 * scale);
}

// What a validation reports as its loss (Evaluation::task_value): the task's loss alone, the value of
// the objective without Ω and the stability penalty, while value() carries them.
TEST(TaskValue, LeavesOutOmegaAndTheStabilityPenalty) {
  OmegaSetup s0 = omega_setup();
  tasks::Batch b{s0.batch.xs, s0.batch.ys, {}, nullptr};
  const ParamVec theta = s0.m->params().values().clone();
  auto model = [] { return tiny("rnn", {{"vocab", 0}, {"in", 2}, {"out", 2}, {"hidden", 3}, {"output", "linear"}}, 3); };
  ModelObjective plain(model()), reg(std::move(s0.m), objective_options_from_json({{"norm_preserving", 0.5},
                                                                                 {"norm_stabilizer", 50.0}}));
  auto ep = plain.evaluate(theta, b), er = reg.evaluate(theta, b);
  EXPECT_EQ(er->task_value(), ep->value());
  EXPECT_EQ(ep->task_value(), ep->value());
  EXPECT_GT(er->value(), er->task_value() + 1e-6) << "the penalties are in the value";
}

}  // namespace
}  // namespace tg::models
