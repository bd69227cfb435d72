// Line batching (riemannian/lines, pass): tracing K lines as one padded batch gives, line by
// line, exactly what tracing each line alone as its own sequence gives (the existing B = 1 path), and
// every sum the steps read (LL, gradient, w-curvature, RBPM / RUOP moduli, full and quasi-diagonal
// blocks, start-value modulus, w- and tau-directions, validation bits and error) is the sum over lines.
#include <gtest/gtest.h>

#include <cmath>

#include "models/ollivier.h"
#include "riemannian/lines.h"
#include "riemannian/metric_blocks.h"
#include "riemannian/modulus.h"
#include "riemannian/pass.h"
#include "riemannian/optimizer.h"
#include "tests/riemannian/rounds.h"
#include "tasks/example.h"

namespace tg::riemannian {
namespace {

using json = nlohmann::json;
constexpr double kTol = 1e-10;

std::unique_ptr<models::Model> tiny(const std::string& kind, int64_t vocab) {
  const models::ModelInfo& info = models::find(kind);
  Rng rng(7);
  json cfg = {{"vocab", vocab}, {"out", vocab}, {"units", 4}, {"degree", 3}, {"graph", "out"}};
  auto m = info.make(models::resolve(info, cfg), DType::f64, rng);
  ParamVec v = ParamVec::random_normal(m->params().layout(), DType::f64, rng);
  v.scale(0.7);
  m->params().set_values(v);
  return m;
}

// The lines of seq cut by hand (after each "\n" target, symbol 0), each as its own B = 1 sequence.
std::vector<tasks::Batch> lines_by_hand(const tasks::Batch& seq) {
  std::vector<tasks::Batch> r;
  tasks::Batch cur;
  cur.inputs.B = 1;
  for (int64_t t = 0; t < seq.steps(); ++t) {
    cur.inputs.symbols.push_back(seq.inputs.symbols[t]);
    cur.targets.symbols.push_back(seq.targets.symbols[t]);
    if (!seq.targets.mask.empty()) cur.targets.mask.push_back(seq.targets.mask[t]);
    ++cur.inputs.T;
    if ((*seq.targets.symbols[t])[0] == 0 || t + 1 == seq.steps()) {
      r.push_back(cur);
      cur = tasks::Batch{};
      cur.inputs.B = 1;
    }
  }
  return r;
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(a[k], b[k], kTol * (1 + std::abs(b[k]))) << what << " [" << k << "]";
}
void expect_near(const ParamVec& a, const ParamVec& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (int64_t k = 0; k < a.size(); ++k)
    ASSERT_NEAR(a.flat().at(k), b.flat().at(k), kTol * (1 + std::abs(b.flat().at(k)))) << what << " [" << k << "]";
}

struct Case {
  const char* model;
  const char* task;
  json options;
};

class LineBatching : public ::testing::TestWithParam<Case> {};

TEST_P(LineBatching, EqualsTracingEachLineAlone) {
  const Case c = GetParam();
  auto task = tasks::make(c.task, c.options);
  Rng data(3);
  const tasks::Batch seq = task->sample(1, data);
  const int64_t V = task->signature().output_dim;
  auto m = tiny(c.model, V);
  const Family f = Family::of(*m);
  const ParamSet& ps = m->params();

  const std::vector<tasks::Batch> alone = lines_by_hand(seq);
  const int64_t L = static_cast<int64_t>(alone.size());
  ASSERT_GE(L, 5);
  std::vector<Trace> ref;
  for (const tasks::Batch& b : alone) ref.push_back(trace(*m, f, b, Need::all));
  bool lengths_differ = false;
  for (const Trace& r : ref) lengths_differ = lengths_differ || r.T != ref[0].T;
  ASSERT_TRUE(lengths_differ) << "the sample should have lines of different lengths (padding exercised)";

  const LineSplit split = split_lines(seq, 0);
  ASSERT_EQ(split.lines(), L);
  for (int64_t K : {int64_t{2}, int64_t{3}, L, L + 4}) {  // chunked (K < L) and one chunk (K >= L)
    SCOPED_TRACE(::testing::Message() << c.model << " on " << c.task << ", K = " << K);
    // Per line: the trace quantities and the moduli.
    for (int64_t first = 0; first < L; first += K) {
      const int64_t count = std::min(K, L - first);
      std::vector<int64_t> lengths;
      for (int64_t k = 0; k < count; ++k) lengths.push_back(split.length(first + k));
      const ChunkTrace ct = trace_chunk(*m, f, line_chunk(seq, split, first, count), lengths, Need::all);
      ParamVec grad = ps.zeros_like();
      double ll = 0;
      for (int64_t k = 0; k < count; ++k) {
        const Trace &got = ct.lines[k], &want = ref[first + k];
        ASSERT_EQ(got.T, want.T);
        EXPECT_EQ(got.u, want.u);
        EXPECT_EQ(got.y, want.y);
        EXPECT_EQ(got.chi, want.chi);
        EXPECT_NEAR(got.ll, want.ll, kTol);
        expect_near(got.a, want.a, "a");
        expect_near(got.sp, want.sp, "s'");
        expect_near(got.pi, want.pi, "pi");
        expect_near(got.B, want.B, "B");
        expect_near(modulus(f, ps, got, Modulus::rbpm), modulus(f, ps, want, Modulus::rbpm), "RBPM modulus");
        expect_near(modulus(f, ps, got, Modulus::ruop), modulus(f, ps, want, Modulus::ruop), "RUOP modulus");
        grad.axpy(1.0, want.grad);
        ll += want.ll;
      }
      EXPECT_NEAR(ct.ll, ll, kTol);
      expect_near(ct.grad, grad, "chunk gradient");
    }

    // The pass sums and the directions, for every method the model has.
    const std::vector<double> eps_y = writing_damping(seq, f.O);
    Corpus corpus = Corpus::of(seq, K, 0);
    std::vector<TransitionMethod> methods = {TransitionMethod::qd_rbpm, TransitionMethod::qd_ruop, TransitionMethod::fb,
                                             TransitionMethod::bptt};
    if (f.gated()) methods.insert(methods.end(), {TransitionMethod::rbpm, TransitionMethod::ruop});
    for (TransitionMethod method : methods) {
      SCOPED_TRACE(name_of(method));
      const PassSums got = run_pass(*m, f, corpus, Need::all, eps_y, method);
      ParamVec grad = ps.zeros_like();
      double ll = 0;
      WritingCurvature h = writing_curvature(f, eps_y);
      TransitionMetric tm = transition_metric(f, method);
      for (const Trace& r : ref) {
        grad.axpy(1.0, r.grad);
        ll += r.ll;
        add_writing_curvature(f, r, h);
        add_transition_metric(f, ps, r, tm);
      }
      EXPECT_NEAR(got.ll, ll, kTol);
      expect_near(got.grad, grad, "gradient");
      expect_near(got.writing.h00, h.h00, "h00");
      expect_near(got.writing.h0, h.h0, "h0");
      expect_near(got.writing.hd, h.hd, "hd");
      expect_near(got.transition.c0, tm.c0, "start modulus");
      expect_near(got.transition.input_count, tm.input_count, "input counts");
      EXPECT_EQ(got.transition.steps, seq.steps());
      // The blocks against the old one-trace constructions, summed over lines (eps = 0 there).
      const bool rbpm = method == TransitionMethod::rbpm || method == TransitionMethod::qd_rbpm;
      if (method == TransitionMethod::rbpm || method == TransitionMethod::ruop) {
        FullBlocks want = zero_full_blocks(f), have = got.transition.blocks;
        for (const Trace& r : ref) {
          const FullBlocks one = full_blocks(f, r, modulus(f, ps, r, rbpm ? Modulus::rbpm : Modulus::ruop), 0.0);
          for (size_t k = 0; k < want.data.size(); ++k) want.data[k] += one.data[k];
        }
        finish_full_blocks(f, have, 0.0);
        expect_near(have.data, want.data, "full blocks");
      }
      if (method == TransitionMethod::qd_rbpm || method == TransitionMethod::qd_ruop) {
        QuasiDiagonal want = zero_quasi_diagonal(f);
        for (const Trace& r : ref) {
          const QuasiDiagonal one =
              quasi_diagonal_parts(f, r, modulus(f, ps, r, rbpm ? Modulus::rbpm : Modulus::ruop), 0.0);
          for (size_t k = 0; k < want.M00.size(); ++k) want.M00[k] += one.M00[k];
          for (size_t k = 0; k < want.M0.size(); ++k) want.M0[k] += one.M0[k];
          for (size_t k = 0; k < want.Md.size(); ++k) want.Md[k] += one.Md[k];
          for (size_t k = 0; k < want.M0y.size(); ++k) want.M0y[k] += one.M0y[k];
        }
        expect_near(got.transition.qd.M00, want.M00, "M00");
        expect_near(got.transition.qd.M0, want.M0, "M0");
        expect_near(got.transition.qd.Md, want.Md, "Md");
        expect_near(got.transition.qd.M0y, want.M0y, "M0y");
      }
      expect_near(transition_direction(f, ps, got.grad, got.transition, 1.0),
                  transition_direction(f, ps, grad, tm, 1.0), "tau-step");
      for (WritingMethod w : {WritingMethod::qdh, WritingMethod::dh})
        expect_near(writing_direction(f, ps, got.grad, got.writing, w), writing_direction(f, ps, grad, h, w), "w-step");
    }
    // Need::writing and Need::value passes agree with the full one on what they hold.
    const PassSums all = run_pass(*m, f, corpus, Need::all, eps_y, TransitionMethod::fb);
    const PassSums wr = run_pass(*m, f, corpus, Need::writing, eps_y, TransitionMethod::fb);
    EXPECT_NEAR(wr.ll, all.ll, kTol);
    expect_near(wr.grad.part(f.w.index).to_vector(), all.grad.part(f.w.index).to_vector(), "w gradient");
    EXPECT_NEAR(run_pass(*m, f, corpus, Need::value, eps_y, TransitionMethod::fb).ll, all.ll, kTol);

    // Validation: each line scored as its own sequence (mixing restarts per line).
    double bits = 0, wrong = 0, scored = 0;
    for (const tasks::Batch& b : alone) {
      const Trace v = trace(*m, f, b, Need::value);
      bits += tasks::model_bits(b, v.logits, /*smooth=*/true)[0];
      double n = 0;
      for (const Tensor& mt : b.targets.mask) n += mt.at(0) != 0;
      if (n > 0 && std::string(c.task) == "distant_xor") wrong += task->error_rate(b, v.logits) * n, scored += n;
    }
    const ValidationScore vs = score_corpus(*m, f, *task, corpus);
    EXPECT_NEAR(vs.bits, bits, kTol * (1 + bits));
    if (std::string(c.task) != "distant_xor")  // every step scored: the error is the whole sequence's
      EXPECT_TRUE(std::isnan(vs.error));
    else
      EXPECT_NEAR(vs.error, wrong / scored, 1e-12);
  }
}

const json kXor = {{"T", 10}, {"lines", 7}};
const json kAlphabet = {{"lines", 5}};
INSTANTIATE_TEST_SUITE_P(Ollivier, LineBatching,
                         ::testing::Values(Case{"glnn", "distant_xor", kXor}, Case{"gnn", "distant_xor", kXor},
                                           Case{"ollivier_rnn", "distant_xor", kXor}, Case{"glnn", "alphabet", kAlphabet},
                                           Case{"ollivier_rnn", "alphabet", kAlphabet}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.model) + "_" + i.param.task;
                         });

TEST(LineBatching, BadInputIsAnError) {
  auto task = tasks::make("distant_xor", {{"T", 10}, {"lines", 3}});
  Rng data(3);
  const tasks::Batch seq = task->sample(1, data);
  EXPECT_THROW(Corpus::of(seq, -1, 0), Error);
  const tasks::Batch two = task->sample(2, data);
  EXPECT_THROW(split_lines(two, 0), Error);
}

}  // namespace
}  // namespace tg::riemannian

namespace tg::riemannian {
namespace {

// The training loop on lines: the chunk size changes nothing but the cost, and the rate rule still
// never lowers the training likelihood.
TEST(LineBatching, TrainingDoesNotDependOnTheChunkSize) {
  auto task = tasks::make("distant_xor", {{"T", 10}, {"lines", 9}});
  std::vector<std::vector<Scoring>> runs;
  std::vector<ParamVec> best;
  std::vector<std::pair<double, double>> rates;
  for (int64_t K : {2, 4, 100}) {
    auto m = tiny("glnn", task->signature().output_dim);
    RiemannianOptions o;
    o.line_batch = K;
    RiemannianOptimizer opt(*m, *task, o);
    runs.push_back(run_rounds(opt, *m, *task, 6));  // 12 passes
    best.push_back(opt.best_params().clone());
    rates.emplace_back(opt.eta_w(), opt.eta_tau());
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    ASSERT_EQ(runs[r].size(), runs[0].size());
    for (size_t k = 0; k < runs[r].size(); ++k) {
      const Scoring &x = runs[r][k], &y = runs[0][k];
      EXPECT_EQ(x.pass, y.pass);
      EXPECT_NEAR(x.train_ll_bits, y.train_ll_bits, 1e-9);
      EXPECT_NEAR(x.valid_bits, y.valid_bits, 1e-9);
      EXPECT_NEAR(x.error, y.error, 1e-12);
      if (k > 0) {
        EXPECT_GE(x.train_ll_bits, runs[r][k - 1].train_ll_bits - 1e-12);
      }
    }
    expect_near(best[r], best[0], "best parameters");
    EXPECT_EQ(rates[r], rates[0]);  // the same steps accepted and rejected
  }
  EXPECT_GT(runs[0].back().train_ll_bits, runs[0].front().train_ll_bits);
}

}  // namespace
}  // namespace tg::riemannian
