// The temporal RBMs (models/temporal_rbm.h): (a) the exact log-likelihood by enumeration equals a
// brute-force sum written with loops; (b) the RTRBM's CD surrogate, averaged over many chains, approaches
// the exact log-likelihood gradient (BPTT through r included) as k grows; (c) the thesis's printed BPTT
// differs from the engine's only in dW', by the direct term; (d) the TRBM's gradient is the learning
// rules 3.7-3.10; (e) gradient-check rows; (f) the objective's seeds and CD schedule; (g) sampling.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/ad.h"
#include "core/graph.h"
#include "gradcheck/rbm_specs.h"
#include "models/temporal_rbm.h"
#include "models/temporal_rbm_objective.h"
#include "ops/ops.h"
#include "ops/sample.h"

namespace tg {
namespace {
using models::TemporalRbm;
using models::TemporalRbmOptions;
namespace r = models::rbm;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// T frames [N, V] of 0/1 pixels.
std::vector<Tensor> binary_frames(int64_t T, int64_t N, int64_t V, Rng& rng, double p = 0.4) {
  std::vector<Tensor> out;
  for (int64_t t = 0; t < T; ++t) {
    Tensor f = ops::uniform_draws({N, V}, DType::f64, rng);
    for (int64_t i = 0; i < f.size(); ++i) f.data<double>()[i] = f.data<double>()[i] < p ? 1.0 : 0.0;
    out.push_back(f);
  }
  return out;
}

std::vector<Var> inputs(Graph& g, const std::vector<Tensor>& frames) {
  std::vector<Var> v;
  for (const Tensor& f : frames) v.push_back(g.input(f));
  return v;
}

TemporalRbmOptions tiny(bool recurrent, int64_t V, int64_t H) {
  TemporalRbmOptions o;
  o.recurrent = recurrent;
  o.visible = V;
  o.hidden = H;
  o.weight_scale = 1.0;
  o.init_scale = 0.5;
  return o;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.size(); ++i) v.push_back(t.at(i));
  return v;
}

// The RTRBM's r_t and each frame's exact log P(v_t | r_{t-1}), with loops over every (v, h).
TEST(TemporalRbm, ExactLogLikelihoodIsTheBruteForceSum) {
  const int64_t V = 3, H = 2, T = 3, N = 2;
  Rng rng(4);
  TemporalRbm m(tiny(true, V, H), DType::f64, rng);
  const std::vector<Tensor> frames = binary_frames(T, N, V, rng);
  Graph g;
  g.bind(m.params());
  const std::vector<double> ll = values(m.exact_log_likelihood(g, inputs(g, frames)).value());
  const ParamSet& ps = m.params();
  auto P = [&](const char* name) { return ps.value(*ps.find(name)); };
  const Tensor W = P("W"), bv = P("b_v"), bh = P("b_h"), p0 = P("p_init"), Wp = P("W_hh1");
  for (int64_t n = 0; n < N; ++n) {
    std::vector<double> r(p0.size());
    for (int64_t j = 0; j < H; ++j) r[j] = p0.at(j);
    double total = 0;
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> c(H);
      for (int64_t j = 0; j < H; ++j) {
        c[j] = bh.at(j);
        for (int64_t k = 0; k < H; ++k) c[j] += r[k] * Wp.at(k * H + j);
      }
      auto neg_energy = [&](const std::vector<double>& v, int hs) {
        double e = 0;
        for (int64_t i = 0; i < V; ++i) e += v[i] * bv.at(i);
        for (int64_t j = 0; j < H; ++j) {
          const double h = (hs >> j) & 1;
          e += h * c[j];
          for (int64_t i = 0; i < V; ++i) e += v[i] * h * W.at(i * H + j);
        }
        return e;
      };
      double z = 0, num = 0;
      std::vector<double> v(V), data(V);
      for (int64_t i = 0; i < V; ++i) data[i] = frames[t].at(n * V + i);
      for (int vs = 0; vs < (1 << V); ++vs) {
        for (int64_t i = 0; i < V; ++i) v[i] = (vs >> i) & 1;
        for (int hs = 0; hs < (1 << H); ++hs) z += std::exp(neg_energy(v, hs));
      }
      for (int hs = 0; hs < (1 << H); ++hs) num += std::exp(neg_energy(data, hs));
      total += std::log(num / z);
      std::vector<double> next(H);
      for (int64_t j = 0; j < H; ++j) {
        double x = c[j];
        for (int64_t i = 0; i < V; ++i) x += data[i] * W.at(i * H + j);
        next[j] = sigmoid(x);
      }
      r = next;
    }
    EXPECT_NEAR(ll[n], total, 1e-12) << "sequence " << n;
  }
}

TEST(TemporalRbm, AveragedCdGradientApproachesTheExactGradientThroughBptt) {
  const int64_t V = 4, H = 3, T = 3, R = 3000;  // one sequence, R chains per frame
  Rng rng(8);
  TemporalRbmOptions o = tiny(true, V, H);
  o.weight_scale = 1.2;
  TemporalRbm m(o, DType::f64, rng);
  const std::vector<Tensor> one = binary_frames(T, 1, V, rng);
  std::vector<double> exact;
  {
    Graph g;
    g.bind(m.params());
    // the surrogate is a mean over frames: its gradient estimates -(1/T) ∇ log P(v_1..T)
    auto [val, grad] = ad::value_and_grad(ops::scale(ops::mean(m.exact_log_likelihood(g, inputs(g, one))), -1.0 / T));
    exact = values(grad.flat());
  }
  double norm = 0;
  for (double e : exact) norm += e * e;
  norm = std::sqrt(norm);
  std::vector<Tensor> copies;  // the sequence R times: the CD gradient is the mean over R chains per frame
  for (const Tensor& f : one) {
    std::vector<double> rep;
    for (int64_t k = 0; k < R; ++k)
      for (int64_t i = 0; i < V; ++i) rep.push_back(f.at(i));
    copies.push_back(Tensor::from({R, V}, rep, DType::f64));
  }
  std::vector<double> errs;
  for (int k : {1, 200}) {
    Graph g;
    g.bind(m.params());
    auto [val, grad] = ad::value_and_grad(m.cd_loss(g, inputs(g, copies), k, rng));
    double e = 0;
    for (int64_t i = 0; i < grad.size(); ++i) e += std::pow(grad.flat().at(i) - exact[i], 2);
    errs.push_back(std::sqrt(e) / norm);
    std::printf("RTRBM CD-%-3d over %lld chains per frame: |g_cd - g_exact| / |g_exact| = %.4f\n", k,
                static_cast<long long>(R), errs.back());
  }
  EXPECT_GT(errs[0], 2 * errs[1]);
  EXPECT_LT(errs[1], 0.05);
}

TEST(TemporalRbm, ThesisBpttDiffersOnlyInTheDirectTermOfWPrime) {
  const int64_t V = 4, H = 3, T = 4, N = 3;
  Rng rng(6);
  const std::vector<Tensor> data = binary_frames(T, N, V, rng), neg = binary_frames(T, N, V, rng, 0.6);
  auto gradient = [&](bool thesis, std::vector<double>* direct) {
    Rng init(2);
    TemporalRbmOptions o = tiny(true, V, H);
    o.thesis_bptt = thesis;
    TemporalRbm m(o, DType::f64, init);
    Graph g;
    g.bind(m.params());
    const std::vector<Var> frames = inputs(g, data);
    r::Rbm all = m.stacked_frames(g, frames);
    Var loss = r::cd_loss_given(all, ops::concat(frames, 0), ops::concat(inputs(g, neg), 0));
    if (direct) {
      // the direct term: Σ_rows r_{t-1} ⊗ ∂loss/∂c_t, r_{t-1} the hidden state before each row's frame
      const Tensor gc = ad::grad(loss, std::vector<Var>{all.c_dyn})[0].value();
      std::vector<Var> prev{ops::broadcast_to(g[*m.params().find("p_init")], {N, H})};
      r::Rbm one = r::bind(g, {*m.params().find("W"), *m.params().find("b_v"), *m.params().find("b_h")});
      for (int64_t t = 0; t + 1 < T; ++t) {
        one.c_dyn = ops::matmul(prev.back(), g[*m.params().find("W_hh1")]);
        prev.push_back(r::hidden_probs(one, frames[t]));
      }
      const Tensor rp = ops::concat(prev, 0).value();
      direct->assign(H * H, 0.0);
      for (int64_t row = 0; row < T * N; ++row)
        for (int64_t k = 0; k < H; ++k)
          for (int64_t j = 0; j < H; ++j) (*direct)[k * H + j] += rp.at(row * H + k) * gc.at(row * H + j);
    }
    auto [val, grad] = ad::value_and_grad(loss);
    return std::make_pair(values(grad.flat()), m.params().layout()->entries[m.params().find("W_hh1")->index]);
  };
  std::vector<double> direct;
  const auto [full, entry] = gradient(false, &direct);
  const auto [thesis, entry2] = gradient(true, nullptr);
  double worst_other = 0, worst_direct = 0, size_direct = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    const bool in_w_prime = i >= static_cast<size_t>(entry.offset) && i < static_cast<size_t>(entry.offset + H * H);
    if (!in_w_prime) {
      worst_other = std::max(worst_other, std::abs(full[i] - thesis[i]));
    } else {
      const double d = direct[i - entry.offset];
      worst_direct = std::max(worst_direct, std::abs(full[i] - thesis[i] - d));
      size_direct = std::max(size_direct, std::abs(d));
    }
  }
  std::printf("thesis BPTT: other gradients differ by %.2g; dW' differs by the direct term (max %.3g) to %.2g\n",
              worst_other, size_direct, worst_direct);
  EXPECT_LT(worst_other, 1e-14);
  EXPECT_GT(size_direct, 1e-3);
  EXPECT_LT(worst_direct, 1e-14);
}

// The TRBM's gradient on a fixed negative sample, against eqs 3.7-3.10 written with loops (the filtering
// probabilities p as constants; the hidden statistics E[h|v]); two taps with every kind of link.
TEST(TemporalRbm, TrbmGradientIsTheLearningRules) {
  const int64_t V = 3, H = 2, T = 4, N = 2, M = 2;
  Rng rng(9);
  TemporalRbmOptions o = tiny(false, V, H);
  o.taps = M;
  o.vh = o.vv = true;
  TemporalRbm m(o, DType::f64, rng);
  const std::vector<Tensor> data = binary_frames(T, N, V, rng), neg = binary_frames(T, N, V, rng, 0.6);
  Graph g;
  g.bind(m.params());
  const std::vector<Var> frames = inputs(g, data);
  Var loss = r::cd_loss_given(m.stacked_frames(g, frames), ops::concat(frames, 0), ops::concat(inputs(g, neg), 0));
  const ParamVec grad = ad::value_and_grad(loss).second;  // not a structured binding: lambdas capture it
  const ParamSet& ps = m.params();
  auto P = [&](const std::string& name) { return ps.value(*ps.find(name)); };
  auto G = [&](const std::string& name) { return grad.part(ps.find(name)->index); };
  const Tensor W = P("W"), bv = P("b_v"), bh = P("b_h"), p0 = P("p_init"), v0 = P("v_init");
  // filtering: p[t][n][j], with the learned initial values before the first frame
  auto past_v = [&](int64_t t, int64_t n, int64_t i) { return t >= 0 ? data[t].at(n * V + i) : v0.at(i); };
  std::vector<std::vector<std::vector<double>>> p(T, std::vector<std::vector<double>>(N, std::vector<double>(H)));
  auto past_p = [&](int64_t t, int64_t n, int64_t j) { return t >= 0 ? p[t][n][j] : p0.at(j); };
  std::vector<std::vector<std::vector<double>>> ch = p, bvis(T, std::vector<std::vector<double>>(N, std::vector<double>(V)));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t j = 0; j < H; ++j) {
        double c = bh.at(j);
        for (int64_t k = 1; k <= M; ++k) {
          const Tensor Wp = P("W_hh" + std::to_string(k)), Wv = P("W_vh" + std::to_string(k));
          for (int64_t q = 0; q < H; ++q) c += past_p(t - k, n, q) * Wp.at(q * H + j);
          for (int64_t i = 0; i < V; ++i) c += past_v(t - k, n, i) * Wv.at(i * H + j);
        }
        ch[t][n][j] = c;
        double x = c;
        for (int64_t i = 0; i < V; ++i) x += data[t].at(n * V + i) * W.at(i * H + j);
        p[t][n][j] = sigmoid(x);
      }
      for (int64_t i = 0; i < V; ++i) {
        double b = bv.at(i);
        for (int64_t k = 1; k <= M; ++k) {
          const Tensor A = P("A_vv" + std::to_string(k));
          for (int64_t q = 0; q < V; ++q) b += past_v(t - k, n, q) * A.at(q * V + i);
        }
        bvis[t][n][i] = b;
      }
    }
  auto hprob = [&](const Tensor& v, int64_t t, int64_t n, int64_t j) {
    double x = ch[t][n][j];
    for (int64_t i = 0; i < V; ++i) x += v.at(n * V + i) * W.at(i * H + j);
    return sigmoid(x);
  };
  const double rows = static_cast<double>(T * N);
  double worst = 0;
  auto expect = [&](const Tensor& got, int64_t idx, double rule) { worst = std::max(worst, std::abs(got.at(idx) + rule / rows)); };
  // eq 3.7: dW ∝ E_Q1[h v^T] - E_Q2[h v^T]
  for (int64_t i = 0; i < V; ++i)
    for (int64_t j = 0; j < H; ++j) {
      double s = 0;
      for (int64_t t = 0; t < T; ++t)
        for (int64_t n = 0; n < N; ++n)
          s += data[t].at(n * V + i) * hprob(data[t], t, n, j) - neg[t].at(n * V + i) * hprob(neg[t], t, n, j);
      expect(G("W"), i * H + j, s);
    }
  for (int64_t k = 1; k <= M; ++k) {
    const std::string tap = std::to_string(k);
    for (int64_t j = 0; j < H; ++j) {
      for (int64_t q = 0; q < H; ++q) {  // eq 3.9: dW'_k ∝ E[(h_t - E_Q2 h_t) p_{t-k}^T]
        double s = 0;
        for (int64_t t = 0; t < T; ++t)
          for (int64_t n = 0; n < N; ++n) s += (hprob(data[t], t, n, j) - hprob(neg[t], t, n, j)) * past_p(t - k, n, q);
        expect(G("W_hh" + tap), q * H + j, s);
      }
      for (int64_t i = 0; i < V; ++i) {  // eq 3.8: dW_k ∝ E[(h_t - E_Q2 h_t) v_{t-k}^T]
        double s = 0;
        for (int64_t t = 0; t < T; ++t)
          for (int64_t n = 0; n < N; ++n) s += (hprob(data[t], t, n, j) - hprob(neg[t], t, n, j)) * past_v(t - k, n, i);
        expect(G("W_vh" + tap), i * H + j, s);
      }
    }
    for (int64_t q = 0; q < V; ++q)  // eq 3.10: dA_k ∝ E[(v_t - E_Q2 v_t) v_{t-k}^T]
      for (int64_t i = 0; i < V; ++i) {
        double s = 0;
        for (int64_t t = 0; t < T; ++t)
          for (int64_t n = 0; n < N; ++n) s += (data[t].at(n * V + i) - neg[t].at(n * V + i)) * past_v(t - k, n, q);
        expect(G("A_vv" + tap), q * V + i, s);
      }
  }
  std::printf("TRBM gradient vs rules 3.7-3.10: worst |difference| %.3g\n", worst);
  EXPECT_LT(worst, 1e-13);
}

TEST(TemporalRbm, GradcheckRowsPassAtOrderTwo) {
  for (const check::TemporalRbmSpec& spec : check::temporal_rbm_specs()) {
    check::Options opt;
    opt.order = 2;
    const check::Report rep = check::check_temporal_rbm(spec, opt);
    std::printf("%-34s worst %.1e (fd1 %.1e dot1 %.1e fd2 %.1e dot2 %.1e)\n", spec.name.c_str(), rep.worst, rep.fd1,
                rep.dot1, rep.fd2, rep.dot2);
    EXPECT_TRUE(rep.ok) << spec.name << ": " << rep.failure;
  }
}

tasks::Batch video_batch(int64_t T, int64_t N, int64_t V, Rng& rng) {
  tasks::Batch b;
  b.inputs.T = b.inputs.B = 0;
  const std::vector<Tensor> frames = binary_frames(T + 1, N, V, rng);
  b.inputs.T = T;
  b.inputs.B = N;
  for (int64_t t = 0; t < T; ++t) {
    b.inputs.dense.push_back(frames[t].astype(DType::f32));
    b.targets.dense.push_back(frames[t + 1].astype(DType::f32));
  }
  return b;
}

TEST(TemporalRbm, ObjectiveIsDeterministicBySeedAndFollowsTheCdSchedule) {
  const int64_t V = 5, H = 4;
  Rng init(1), data(2);
  TemporalRbmOptions o = tiny(true, V, H);
  o.cd_k = 2, o.cd_k_late = 7, o.cd_switch = 3;
  models::TemporalRbmObjective obj(TemporalRbm(o, DType::f64, init));
  const ParamVec theta = obj.params().values();
  tasks::Batch b = video_batch(6, 3, V, data);
  Rng noise(5);
  obj.draw_noise(b, noise);
  ASSERT_NE(b.sample_seed, 0u);
  const auto g1 = obj.evaluate(theta, b)->grad(), g2 = obj.evaluate(theta, b)->grad();
  EXPECT_EQ(values(g1.flat()), values(g2.flat()));
  tasks::Batch other = b;
  obj.draw_noise(other, noise);
  EXPECT_NE(values(obj.evaluate(theta, other)->grad().flat()), values(g1.flat()));
  // the gradient follows k: CD-2 before update 3, CD-7 from it, each the model's own cd_loss with that k
  auto gradient_with_k = [&](int k) {
    Graph g;
    g.bind(obj.params());
    std::vector<Var> frames;
    for (const Tensor& f : models::batch_frames(b, V, DType::f64)) frames.push_back(g.input(f));
    Rng rng(b.sample_seed);
    return values(ad::value_and_grad(obj.model().cd_loss(g, frames, k, rng)).second.flat());
  };
  obj.at_iteration(2);
  EXPECT_EQ(obj.cd_steps(), 2);
  EXPECT_EQ(values(obj.evaluate(theta, b)->grad().flat()), gradient_with_k(2));
  obj.at_iteration(3);
  EXPECT_EQ(obj.cd_steps(), 7);
  EXPECT_EQ(values(obj.evaluate(theta, b)->grad().flat()), gradient_with_k(7));
  EXPECT_NE(gradient_with_k(2), gradient_with_k(7));
  // an evaluation batch (no seed) gets one prediction per target step, the same every time
  b.sample_seed = 0;
  const auto p1 = obj.evaluate(theta, b)->output_values(), p2 = obj.evaluate(theta, b)->output_values();
  ASSERT_EQ(p1.size(), 6u);
  EXPECT_EQ(p1[0].shape(), (Shape{3, V}));
  EXPECT_EQ(values(p1[5]), values(p2[5]));
  // ... whatever the trainer's iteration
  obj.at_iteration(0);
  EXPECT_EQ(values(obj.evaluate(theta, b)->output_values()[5]), values(p1[5]));
}

// Prediction t (0-based) is frame t + 1 predicted from frames 0..t, aligned with the task's target step
// t. With W = 0 the chain cannot matter: the logits are b_v + frame_t A_1 exactly (one vv tap).
TEST(TemporalRbm, PredictionsAlignWithTheTargetSteps) {
  const int64_t V = 4, H = 3, T = 5, N = 2;
  Rng rng(21);
  TemporalRbmOptions o = tiny(false, V, H);
  o.hh = false, o.vv = true;
  TemporalRbm m(o, DType::f64, rng);
  m.params().value(*m.params().find("W")).fill(0.0);
  const std::vector<Tensor> frames = binary_frames(T, N, V, rng);
  Graph g;
  g.bind(m.params());
  const std::vector<Var> logits = m.predict(g, inputs(g, frames), 3, rng);
  ASSERT_EQ(logits.size(), static_cast<size_t>(T - 1));
  const Tensor b = m.params().value(*m.params().find("b_v")), A = m.params().value(*m.params().find("A_vv1"));
  double worst = 0;
  for (int64_t t = 0; t + 1 < T; ++t)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < V; ++i) {
        double want = b.at(i);
        for (int64_t q = 0; q < V; ++q) want += frames[t].at(n * V + q) * A.at(q * V + i);
        worst = std::max(worst, std::abs(logits[t].value().at(n * V + i) - want));
      }
  EXPECT_LT(worst, 1e-14);
}

TEST(TemporalRbm, GenerateIsDeterministicBySeedAndGivesProbabilities) {
  const int64_t V = 6, H = 5;
  Rng init(3), data(4);
  TemporalRbm m(tiny(true, V, H), DType::f64, init);
  const std::vector<Tensor> prefix = binary_frames(2, 2, V, data);
  auto run = [&](uint64_t seed) {
    Rng rng(seed);
    std::vector<double> all;
    for (const Tensor& f : m.generate(prefix, 4, 2, 3, rng)) {
      EXPECT_EQ(f.shape(), (Shape{2, V}));
      for (double x : values(f)) all.push_back(x);
    }
    return all;
  };
  const std::vector<double> a = run(7);
  EXPECT_EQ(a, run(7));
  EXPECT_NE(a, run(8));
  for (double x : a) EXPECT_TRUE(x > 0 && x < 1);
}

// Denoising reconstructs each frame from its filtering estimate: without links to the past that is the
// RBM's mean-field reconstruction σ(b + W σ(c + vW)); with links, the past's biases enter (frames differ).
TEST(TemporalRbm, DenoiseReconstructsFromTheFilteringEstimate) {
  const int64_t V = 5, H = 3, T = 4, N = 2;
  Rng rng(12);
  const std::vector<Tensor> frames = binary_frames(T, N, V, rng);
  TemporalRbmOptions o = tiny(false, V, H);
  o.hh = false;
  TemporalRbm plain(o, DType::f64, rng);
  Graph g;
  g.bind(plain.params());
  const std::vector<Var> out = plain.denoise(g, inputs(g, frames));
  ASSERT_EQ(out.size(), static_cast<size_t>(T));
  const ParamSet& ps = plain.params();
  const Tensor W = ps.value(*ps.find("W")), b = ps.value(*ps.find("b_v")), c = ps.value(*ps.find("b_h"));
  double worst = 0;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t n = 0; n < N; ++n) {
      std::vector<double> h(H);
      for (int64_t j = 0; j < H; ++j) {
        double x = c.at(j);
        for (int64_t i = 0; i < V; ++i) x += frames[t].at(n * V + i) * W.at(i * H + j);
        h[j] = sigmoid(x);
      }
      for (int64_t i = 0; i < V; ++i) {
        double x = b.at(i);
        for (int64_t j = 0; j < H; ++j) x += W.at(i * H + j) * h[j];
        worst = std::max(worst, std::abs(out[t].value().at(n * V + i) - sigmoid(x)));
      }
    }
  EXPECT_LT(worst, 1e-14);
  TemporalRbmOptions linked = tiny(false, V, H);
  linked.taps = 2, linked.vh = linked.vv = true;
  TemporalRbm trbm(linked, DType::f64, rng);
  Graph g2;
  g2.bind(trbm.params());
  // the same frame twice in a row gets different reconstructions: its past differs
  std::vector<Tensor> repeated{frames[0], frames[0], frames[0]};
  const std::vector<Var> r = trbm.denoise(g2, inputs(g2, repeated));
  EXPECT_NE(values(r[0].value()), values(r[1].value()));
  for (const Var& f : r)
    for (double x : values(f.value())) EXPECT_TRUE(x > 0 && x < 1);
}

TEST(TemporalRbm, BadOptionsAreErrors) {
  Rng rng(1);
  TemporalRbmOptions o = tiny(true, 4, 3);
  o.taps = 2;
  EXPECT_THROW(TemporalRbm(o, DType::f64, rng), Error);
  EXPECT_THROW(models::resolve_temporal_rbm_options("trbm", {{"links", "hh,xx"}}), Error);
  EXPECT_THROW(models::resolve_temporal_rbm_options("rtrbm", {{"taps", 2}}), Error);
  EXPECT_THROW(models::resolve_temporal_rbm_options("rtrbm", {{"hidden", "many"}}), Error);
  const TemporalRbmOptions t = models::temporal_rbm_options("trbm", models::resolve_temporal_rbm_options("trbm", {{"links", "vh,vv"}}));
  EXPECT_FALSE(t.hh);
  EXPECT_TRUE(t.vh && t.vv);
}

}  // namespace
}  // namespace tg
