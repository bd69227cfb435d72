// Ollivier's Riemannian steps (riemannian) against direct constructions from the engine on tiny
// networks: the gradients the steps use are the engine's VJP (G = Σ a B, W of eq. 17), the unit-level
// Jacobian entries match the engine's dV^{t+1}/dV^t, the RBPM modulus matches its definition (58)-(63)
// built from engine Jacobians and the output Fisher, and the RUOP / RBPM blocks (full and
// quasi-diagonal) match sums over steps of per-step dummy-parameter derivatives taken by the engine.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/ad.h"
#include "models/loss.h"
#include "models/ollivier.h"
#include "riemannian/metric_blocks.h"
#include "riemannian/modulus.h"
#include "riemannian/quasi_diagonal.h"
#include "riemannian/spd_solve.h"
#include "riemannian/trace.h"
#include "riemannian/transition_step.h"
#include "riemannian/writing_step.h"

namespace tg::riemannian {
namespace {

using json = nlohmann::json;
constexpr int64_t kA = 3, kN = 4, kT = 9;

std::unique_ptr<models::Model> tiny(const std::string& kind, uint64_t seed = 3) {
  const models::ModelInfo& info = models::find(kind);
  Rng rng(seed);
  json cfg = {{"vocab", kA}, {"out", kA}, {"units", kN}, {"degree", 3}, {"graph", "out"}};
  auto m = info.make(models::resolve(info, cfg), DType::f64, rng);
  ParamVec v = ParamVec::random_normal(m->params().layout(), DType::f64, rng);
  v.scale(0.7);
  m->params().set_values(v);
  return m;
}

tasks::Batch sequence(uint64_t seed = 5) {
  std::mt19937_64 rng(seed);
  tasks::Batch b;
  b.inputs.T = kT;
  b.inputs.B = 1;
  int32_t prev = 0;
  for (int64_t t = 0; t < kT; ++t) {
    const int32_t next = static_cast<int32_t>(rng() % kA);
    b.inputs.symbols.push_back(ops::make_index({prev}));
    b.targets.symbols.push_back(ops::make_index({next}));
    b.targets.mask.push_back(Tensor::from({1}, std::vector<double>{t % 4 == 2 ? 0.0 : 1.0}, DType::f64));
    prev = next;
  }
  return b;
}

// Per-step local derivatives from the engine: d V_j^{t+1} / d(leaves and V^t), with V^t held fixed.
struct Unrolled {
  Graph g;
  models::Outputs out;
  Var start;  // V^0 (GLNN) or a^0 leaf
  Unrolled(const models::Model& m, const Family& f, const tasks::Batch& b) {
    out = m.unroll(g, b.inputs);
    start = g[f.start];
  }
  Var state(int64_t s) { return s == 0 ? start : out.preact[s - 1]; }
  // d V_j^{t+1} / d wrt with the state at t independent.
  std::vector<Tensor> local(int64_t t, int64_t j, const std::vector<Var>& wrt) {
    std::vector<double> e(kN, 0.0);
    e[j] = 1;
    ad::Seed seed{out.preact[t], g.input(Tensor::from({1, kN}, e, DType::f64))};
    std::vector<Var> all = wrt;
    all.push_back(state(t));
    std::vector<Var> d = ad::vjp(std::span<const ad::Seed>(&seed, 1), all, /*independent=*/true);
    std::vector<Tensor> r;
    for (size_t k = 0; k < wrt.size(); ++k) r.push_back(ad::value_or_zeros(d[k], wrt[k].shape(), DType::f64));
    r.push_back(ad::value_or_zeros(d.back(), state(t).shape(), DType::f64));
    return r;
  }
};

class PerModel : public ::testing::TestWithParam<std::string> {};

TEST_P(PerModel, GradientsAreTheEnginesAndMatchEquations17And25) {
  auto m = tiny(GetParam());
  const Family f = Family::of(*m);
  const tasks::Batch b = sequence();
  const Trace tr = trace(*m, f, b, Need::all);
  // The LL is minus the engine's loss, and the gradient is the engine's (value_and_grad of the loss).
  Graph g;
  models::Outputs out = m->unroll(g, b.inputs);
  Var loss = models::matching_loss(models::OutputKind::softmax, out.logits, b.targets, false);
  auto [value, grad] = ad::value_and_grad(loss);
  EXPECT_NEAR(tr.ll, -value, 1e-12);
  for (int64_t k = 0; k < grad.size(); ++k) EXPECT_NEAR(tr.grad.flat().at(k), -grad.flat().at(k), 1e-12);
  // (17): W_iy = Σ_t chi_t a_i^{t+1} (1[y_t = y] - pi_t(y)).
  const Tensor W = tr.grad.part(f.w.index);
  for (int64_t i = 0; i < kN; ++i)
    for (int64_t y = 0; y < kA; ++y) {
      double s = 0;
      for (int64_t t = 0; t < kT; ++t) s += tr.chi[t] * tr.a_at(t + 1)[i] * ((tr.y[t] == y) - tr.pi[t * kA + y]);
      EXPECT_NEAR(W.at(i * kA + y), s, 1e-12);
    }
  // (25): G of edge e = Σ_{t: u_t = y} a_src^t B_dst^{t+1}, read with the adjoints B at the tagged nodes.
  const Tensor G = tr.grad.part(f.tau.index);
  for (int64_t y = 0; y < kA; ++y)
    for (int64_t e = 0; e < f.E; ++e) {
      double s = 0;
      for (int64_t t = 0; t < kT; ++t)
        if (!f.gated() || tr.u[t] == y) s += tr.a_at(t)[f.graph->src[e]] * tr.B_at(t + 1)[f.graph->dst[e]];
      EXPECT_NEAR(G.at(f.gated() ? y * f.E + e : e), s, 1e-12);
      if (!f.gated()) break;
    }
}

TEST_P(PerModel, UnitJacobianMatchesTheEngine) {
  auto m = tiny(GetParam());
  const Family f = Family::of(*m);
  const tasks::Batch b = sequence();
  const Trace tr = trace(*m, f, b, Need::value);
  Unrolled u(*m, f, b);
  std::vector<double> J(f.E);
  for (int64_t t = 0; t < kT; ++t) {
    unit_jacobian(f, m->params(), tr, t, J.data());
    for (int64_t j = 0; j < kN; ++j) {
      const Tensor dj = u.local(t, j, {}).back();  // d V_j^{t+1} / d state^t
      std::vector<double> want(kN, 0.0);
      for (int64_t e = 0; e < f.E; ++e)
        if (f.graph->dst[e] == j) want[f.graph->src[e]] = J[e];
      for (int64_t i = 0; i < kN; ++i) EXPECT_NEAR(dj.at(i), want[i], 1e-12) << "t " << t << " j " << j << " i " << i;
    }
  }
}

TEST_P(PerModel, RbpmModulusMatchesItsDefinitionFromEngineJacobians) {
  auto m = tiny(GetParam());
  const Family f = Family::of(*m);
  const tasks::Batch b = sequence();
  const Trace tr = trace(*m, f, b, Need::value);
  const std::vector<double> got = modulus(f, m->params(), tr, Modulus::rbpm);
  Unrolled u(*m, f, b);
  // m~^s = Σ_y,y' (dE^s/dV_i) F (dE^s/dV_i) (output Fisher, F = diag pi - pi piᵀ) + Σ_j (dV_j^{s+1}/dV_i^s)² m~_j^{s+1}
  std::vector<double> next(kN, 0.0);
  for (int64_t s = kT; s >= 0; --s) {
    std::vector<double> cur(kN, 0.0);
    if (s >= 1 && tr.chi[s - 1] != 0) {
      std::vector<std::vector<double>> dE(kA);  // dE_y / dV^s
      for (int64_t y = 0; y < kA; ++y) {
        std::vector<double> e(kA, 0.0);
        e[y] = 1;
        ad::Seed seed{u.out.logits[s - 1], u.g.input(Tensor::from({1, kA}, e, DType::f64))};
        std::vector<Var> wrt = {u.state(s)};
        dE[y] = ad::value_or_zeros(ad::vjp(std::span<const ad::Seed>(&seed, 1), wrt, true)[0], Shape{1, kN}, DType::f64)
                    .to_vector();
      }
      const double* p = tr.pi.data() + (s - 1) * kA;
      for (int64_t i = 0; i < kN; ++i)
        for (int64_t y = 0; y < kA; ++y)
          for (int64_t z = 0; z < kA; ++z) cur[i] += dE[y][i] * ((y == z) * p[y] - p[y] * p[z]) * dE[z][i];
    }
    if (s < kT)
      for (int64_t j = 0; j < kN; ++j) {
        const Tensor dj = u.local(s, j, {}).back();
        for (int64_t i = 0; i < kN; ++i) cur[i] += dj.at(i) * dj.at(i) * next[j];
      }
    for (int64_t i = 0; i < kN; ++i) EXPECT_NEAR(got[s * kN + i], cur[i], 1e-10 * (1 + std::abs(cur[i]))) << "s " << s;
    next = cur;
  }
}

// The metric of unit j from per-step dummy-parameter derivatives: M = Σ_t c_j^{t+1} g_t g_tᵀ + eps I,
// g_t = d V_j^{t+1} / d(tau0, tau[, rho]) at step t with the state held fixed (the engine's vjp).
TEST_P(PerModel, MetricBlocksMatchPerStepDummyParameterDerivatives) {
  auto m = tiny(GetParam());
  const Family f = Family::of(*m);
  const tasks::Batch b = sequence();
  const Trace tr = trace(*m, f, b, Need::all);
  const double eps = 0.3;
  for (Modulus kind : {Modulus::ruop, Modulus::rbpm}) {
    const std::vector<double> c = modulus(f, m->params(), tr, kind);
    if (kind == Modulus::ruop) {
      for (int64_t k = 0; k < (kT + 1) * kN; ++k) ASSERT_EQ(c[k], tr.B[k] * tr.B[k]);
    }
    Unrolled u(*m, f, b);
    std::vector<Var> wrt = {u.g[f.tau0], u.g[f.tau]};
    if (!f.gated()) wrt.push_back(u.g[f.rho]);
    // Flattened parameter index of (tau0, tau, rho) -> dense metric over all of them.
    const int64_t n0 = wrt[0].shape().size(), n1 = wrt[1].shape().size(), n2 = f.gated() ? 0 : wrt[2].shape().size();
    const int64_t P = n0 + n1 + n2;
    std::vector<double> M(P * P, 0.0);  // Σ over units j of their blocks (units never share parameters)
    for (int64_t t = 0; t < kT; ++t)
      for (int64_t j = 0; j < kN; ++j) {
        std::vector<Tensor> d = u.local(t, j, wrt);
        std::vector<double> gvec;
        for (int k = 0; k < (f.gated() ? 2 : 3); ++k)
          for (double x : d[k].to_vector()) gvec.push_back(x);
        const double w = c[(t + 1) * kN + j];
        for (int64_t p = 0; p < P; ++p)
          for (int64_t q = 0; q < P; ++q) M[p * P + q] += w * gvec[p] * gvec[q];
      }
    for (int64_t p = 0; p < P; ++p) M[p * P + p] += eps;
    auto idx_tau0 = [&](int64_t y, int64_t j) { return f.gated() ? y * kN + j : j; };
    auto idx_tau = [&](int64_t y, int64_t e) { return n0 + (f.gated() ? y * f.E + e : e); };
    if (f.gated()) {
      FullBlocks blocks = full_blocks(f, tr, c, eps);
      for (int32_t y = 0; y < kA; ++y)
        for (int64_t j = 0; j < kN; ++j) {
          const int64_t e0 = f.first_in[j], n = 1 + f.first_in[j + 1] - e0;
          std::vector<int64_t> ix = {idx_tau0(y, j)};
          for (int64_t k = 1; k < n; ++k) ix.push_back(idx_tau(y, e0 + k - 1));
          const double* B = blocks.at(f, y, j);
          for (int64_t k = 0; k < n; ++k)
            for (int64_t l = 0; l < n; ++l)
              EXPECT_NEAR(B[k * n + l], M[ix[k] * P + ix[l]], 1e-10) << "block y " << y << " j " << j;
        }
    } else {
      EXPECT_THROW(full_blocks(f, tr, c, eps), Error);
    }
    QuasiDiagonal q = quasi_diagonal_parts(f, tr, c, eps);
    for (int64_t y = 0; y < (f.gated() ? kA : 1); ++y)
      for (int64_t j = 0; j < kN; ++j) {
        const int64_t a0 = idx_tau0(y, j);
        EXPECT_NEAR(q.M00[f.gated() ? y * kN + j : j], M[a0 * P + a0], 1e-10);
        for (int64_t e = f.first_in[j]; e < f.first_in[j + 1]; ++e) {
          const int64_t ae = idx_tau(y, e), qe = f.gated() ? y * f.E + e : e;
          EXPECT_NEAR(q.M0[qe], M[a0 * P + ae], 1e-10);
          EXPECT_NEAR(q.Md[qe], M[ae * P + ae], 1e-10);
        }
        if (!f.gated())
          for (int64_t x = 0; x < kA; ++x) {
            const int64_t ar = n0 + n1 + x * kN + j;
            EXPECT_NEAR(q.M0y[x * kN + j], M[a0 * P + ar], 1e-10);
            EXPECT_NEAR(q.M0y[x * kN + j] + eps, M[ar * P + ar], 1e-10);
          }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Ollivier, PerModel, ::testing::Values("glnn", "gnn", "ollivier_rnn"));

// The full RUOP / RBPM step solves each block: M D = G per (unit, symbol).
TEST(TransitionStep, FullStepSolvesEachBlock) {
  auto m = tiny("glnn");
  const Family f = Family::of(*m);
  const Trace tr = trace(*m, f, sequence(), Need::all);
  for (TransitionMethod meth : {TransitionMethod::ruop, TransitionMethod::rbpm}) {
    const ParamVec D = transition_direction(f, m->params(), tr, meth, 1.0);
    const std::vector<double> c = modulus(f, m->params(), tr, meth == TransitionMethod::ruop ? Modulus::ruop : Modulus::rbpm);
    FullBlocks blocks = full_blocks(f, tr, c, 1.0);
    const Tensor G0 = tr.grad.part(f.tau0.index), G = tr.grad.part(f.tau.index);
    const Tensor D0 = D.part(f.tau0.index), Dt = D.part(f.tau.index);
    for (int32_t y = 0; y < kA; ++y)
      for (int64_t j = 0; j < kN; ++j) {
        const int64_t e0 = f.first_in[j], n = 1 + f.first_in[j + 1] - e0;
        std::vector<double> d = {D0.at(y * kN + j)}, g = {G0.at(y * kN + j)};
        for (int64_t k = 1; k < n; ++k) d.push_back(Dt.at(y * f.E + e0 + k - 1)), g.push_back(G.at(y * f.E + e0 + k - 1));
        const double* M = blocks.at(f, y, j);
        for (int64_t k = 0; k < n; ++k) {
          double s = 0;
          for (int64_t l = 0; l < n; ++l) s += M[k * n + l] * d[l];
          EXPECT_NEAR(s, g[k], 1e-9 * (1 + std::abs(g[k])));
        }
      }
    // (29): the start values.
    const Tensor Gs = tr.grad.part(f.start.index), Ds = D.part(f.start.index);
    for (int64_t j = 0; j < kN; ++j) EXPECT_NEAR(Ds.at(j), Gs.at(j) / (c[j] + 1.0), 1e-12);
  }
}

// The quasi-diagonal solve: signal i's step is the i-component of the exact 2x2 solve over (bias, i),
// and the bias row of the system holds exactly.
TEST(QuasiDiagonal, TwoByTwoSolvesAndTheBiasEquation) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> n01;
  const int64_t k = 5;
  std::vector<double> G(k + 1), M0(k, 0.0), Md(k, 0.0), D(k + 1);
  double M00 = 1.0;  // weighted sums over samples, as the metrics are, plus damping
  for (int s = 0; s < 20; ++s) {
    const double w = std::abs(n01(rng));
    M00 += w;
    for (int64_t i = 0; i < k; ++i) {
      const double a = std::tanh(n01(rng));
      M0[i] += w * a;
      Md[i] += w * a * a;
    }
  }
  for (int64_t i = 0; i < k; ++i) Md[i] += 1.0;
  for (double& g : G) g = n01(rng);
  quasi_diagonal_solve(k, G.data(), M00, M0.data(), Md.data(), D.data());
  double bias_row = M00 * D[0];
  for (int64_t i = 0; i < k; ++i) {
    std::vector<double> M = {M00, M0[i], M0[i], Md[i]}, x = {G[0], G[i + 1]};
    spd_solve(2, M.data(), x.data(), "test");
    EXPECT_NEAR(D[i + 1], x[1], 1e-12);
    bias_row += M0[i] * D[i + 1];
  }
  EXPECT_NEAR(bias_row, G[0], 1e-12);
  EXPECT_THROW(quasi_diagonal_solve(k, G.data(), 0.0, M0.data(), Md.data(), D.data()), Error);
}

// QDH on the writing weights alone is Newton-like: with rate 1 it increases the training LL from the
// initialisation, and DH's direction is the gradient divided by the Hessian's diagonal.
TEST(WritingStep, QdhAndDhDirections) {
  auto m = tiny("glnn");
  const Family f = Family::of(*m);
  const tasks::Batch b = sequence();
  const Trace tr = trace(*m, f, b, Need::writing);
  const std::vector<double> eps = writing_damping(tr);
  const ParamVec dh = writing_direction(f, m->params(), tr, WritingMethod::dh, eps);
  const Tensor W0 = tr.grad.part(f.w0.index);
  for (int64_t y = 0; y < kA; ++y) {
    double h = eps[y];
    for (int64_t t = 0; t < kT; ++t) h += tr.chi[t] * tr.pi[t * kA + y] * (1 - tr.pi[t * kA + y]);
    EXPECT_NEAR(dh.part(f.w0.index).at(y), W0.at(y) / h, 1e-12);
  }
  const ParamVec qdh = writing_direction(f, m->params(), tr, WritingMethod::qdh, eps);
  EXPECT_EQ(qdh.part(f.tau.index).at(0), 0.0);
  ParamVec theta = m->params().values().clone();
  theta.axpy(0.5, qdh);
  m->params().set_values(theta);
  EXPECT_GT(trace(*m, f, b, Need::value).ll, tr.ll);
}

TEST(Methods, NamesRoundTripAndBadNamesAreErrors) {
  for (const char* n : {"rbpm", "ruop", "qd-rbpm", "qd-ruop", "fb", "rms", "bptt"})
    EXPECT_EQ(name_of(transition_method(n)), n);
  EXPECT_THROW(transition_method("natural"), Error);
  EXPECT_THROW(writing_method("newton"), Error);
}

}  // namespace
}  // namespace tg::riemannian
