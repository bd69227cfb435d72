// The RBM as graphs (models/rbm.h): (a) the engine's gradient of the CD surrogate is the textbook
// CD formula for the same chain samples; (b) averaged over many chains, the CD-k gradient approaches
// the exact log-likelihood gradient (by enumeration) as k grows; (c) the sampling-free parts pass the
// gradient check at order 2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/ad.h"
#include "core/graph.h"
#include "gradcheck/rbm_specs.h"
#include "models/rbm.h"
#include "ops/ops.h"
#include "ops/sample.h"

namespace tg {
namespace {
namespace r = models::rbm;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

Tensor binary_rows(int64_t n, int64_t d, Rng& rng, double p = 0.5) {
  Tensor t = ops::uniform_draws({n, d}, DType::f64, rng);
  for (int64_t i = 0; i < t.size(); ++i) t.data<double>()[i] = t.data<double>()[i] < p ? 1.0 : 0.0;
  return t;
}

// (a) for binary and Gaussian visibles, with and without a dynamic hidden bias
void check_cd_formula(bool gaussian, bool dyn) {
  const int64_t V = 6, H = 4, N = 5;
  const double sigma = gaussian ? 0.7 : 1.0;
  Rng rng(11);
  ParamSet ps(DType::f64);
  r::RbmParams p = r::add_params(ps, V, H, 0.5, rng);
  // non-zero biases
  for (ParamId id : {p.b, p.c}) {
    Tensor t = ps.value(id);
    for (int64_t i = 0; i < t.size(); ++i) t.data<double>()[i] = 0.3 * std::sin(1.0 + i);
  }
  Tensor vd = gaussian ? ops::normal_draws({N, V}, DType::f64, rng) : binary_rows(N, V, rng);
  Tensor cd = ops::normal_draws({N, H}, DType::f64, rng);
  Graph g;
  g.bind(ps);
  r::Rbm m = r::bind(g, p, gaussian, sigma);
  if (dyn) m.c_dyn = g.input(cd);
  Var vk;
  Var loss = r::cd_loss(m, g.input(vd), 3, rng, &vk);
  std::vector<Var> wrt{m.W, m.b, m.c};
  if (dyn) wrt.push_back(m.c_dyn);
  std::vector<Var> gr = ad::grad(loss, wrt);
  const Tensor W = ps.value(p.W), b = ps.value(p.b), c = ps.value(p.c), vkt = vk.value();
  // textbook: dW = -(<v h^T>_data - <v h^T>_k), h = E[h|v]; db = -(<v>_data - <v>_k); dc = -(<h>_data - <h>_k)
  auto hprob = [&](const Tensor& v, int64_t n, int64_t j) {
    double x = c.at(j) + (dyn ? cd.at(n * H + j) : 0.0);
    for (int64_t i = 0; i < V; ++i) x += v.at(n * V + i) * W.at(i * H + j);
    return sigmoid(x);
  };
  double worst = 0;
  bool moved = false;
  for (int64_t i = 0; i < V; ++i)
    for (int64_t j = 0; j < H; ++j) {
      double s = 0;
      for (int64_t n = 0; n < N; ++n) s += vd.at(n * V + i) * hprob(vd, n, j) - vkt.at(n * V + i) * hprob(vkt, n, j);
      worst = std::max(worst, std::abs(gr[0].value().at(i * H + j) + s / N));
    }
  for (int64_t i = 0; i < V; ++i) {
    double s = 0;
    for (int64_t n = 0; n < N; ++n) s += vd.at(n * V + i) - vkt.at(n * V + i), moved |= vd.at(n * V + i) != vkt.at(n * V + i);
    worst = std::max(worst, std::abs(gr[1].value().at(i) + s / N));
  }
  for (int64_t j = 0; j < H; ++j) {
    double s = 0;
    for (int64_t n = 0; n < N; ++n) {
      const double d = hprob(vd, n, j) - hprob(vkt, n, j);
      s += d;
      if (dyn) worst = std::max(worst, std::abs(gr[3].value().at(n * H + j) + d / N));
    }
    worst = std::max(worst, std::abs(gr[2].value().at(j) + s / N));
  }
  std::printf("CD surrogate vs textbook formula (%s visibles%s): worst |difference| %.3g\n",
              gaussian ? "Gaussian" : "binary", dyn ? ", dynamic hidden bias" : "", worst);
  EXPECT_TRUE(moved) << "the chain never left the data";
  EXPECT_LT(worst, 1e-12);
}

TEST(Rbm, CdSurrogateGradientIsTheTextbookFormula) {
  check_cd_formula(false, false);
  check_cd_formula(false, true);
  check_cd_formula(true, false);
  check_cd_formula(true, true);
}

TEST(Rbm, FreeEnergyMatchesTheEnergySummedOverHiddens) {
  // exp(-F(v)) = sum_h exp(-E(v,h)) for a tiny binary RBM, and log Z from the free energy equals the
  // double sum over (v, h)
  const int64_t V = 3, H = 2;
  Rng rng(2);
  ParamSet ps(DType::f64);
  r::RbmParams p = r::add_params(ps, V, H, 1.0, rng);
  for (ParamId id : {p.b, p.c}) {
    Tensor t = ps.value(id);
    for (int64_t i = 0; i < t.size(); ++i) t.data<double>()[i] = 0.4 * std::cos(2.0 + i);
  }
  Graph g;
  g.bind(ps);
  r::Rbm m = r::bind(g, p);
  const Tensor W = ps.value(p.W), b = ps.value(p.b), c = ps.value(p.c);
  double z = 0, worst = 0;
  for (int vs = 0; vs < (1 << V); ++vs) {
    double zv = 0;  // Σ_h exp(-E(v, h))
    for (int hs = 0; hs < (1 << H); ++hs) {
      double e = 0;
      for (int i = 0; i < V; ++i) e += ((vs >> i) & 1) * b.at(i);
      for (int j = 0; j < H; ++j) e += ((hs >> j) & 1) * c.at(j);
      for (int i = 0; i < V; ++i)
        for (int j = 0; j < H; ++j) e += ((vs >> i) & 1) * ((hs >> j) & 1) * W.at(i * H + j);
      zv += std::exp(e);
    }
    z += zv;
    std::vector<double> v(V);
    for (int i = 0; i < V; ++i) v[i] = (vs >> i) & 1;
    const double f = r::free_energy(m, g.input(Tensor::from({1, V}, v, DType::f64))).value().at(0);
    worst = std::max(worst, std::abs(std::exp(-f) - zv) / zv);
  }
  EXPECT_LT(worst, 1e-13);
  EXPECT_NEAR(r::log_partition(m).value().at(0), std::log(z), 1e-13);
}

// k Gibbs steps from v at the set's current values (rbm::run_chain keeps the chain off the tape).
Tensor run_chain(const ParamSet& ps, const r::RbmParams& p, const Tensor& v, int k, Rng& rng) {
  Graph g;
  g.bind(ps);
  return r::run_chain(r::bind(g, p), v, k, rng).v;
}

TEST(Rbm, AveragedCdGradientApproachesTheExactGradientAsKGrows) {
  const int64_t V = 6, H = 4, N = 8, R = 2000;  // N data vectors, R chains each
  Rng rng(5);
  ParamSet ps(DType::f64);
  r::RbmParams p = r::add_params(ps, V, H, 1.5, rng);
  Tensor data = binary_rows(N, V, rng, 0.3);
  // exact: gradient of -mean log P(data) (the sign of the CD surrogate)
  std::vector<double> exact;
  {
    Graph g;
    g.bind(ps);
    auto [val, grad] = ad::value_and_grad(ops::neg(r::mean_log_likelihood(r::bind(g, p), g.input(data))));
    for (int64_t i = 0; i < grad.size(); ++i) exact.push_back(grad.flat().at(i));
    std::printf("exact mean log-likelihood %.6f, |exact gradient| %.4f\n", -val, [&] {
      double s = 0;
      for (double e : exact) s += e * e;
      return std::sqrt(s);
    }());
  }
  // R copies of the data, so the CD gradient is the mean over R chains per data vector
  std::vector<double> rep(static_cast<size_t>(N * R * V));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t i = 0; i < N * V; ++i) rep[r * N * V + i] = data.at(i);
  const Tensor vd = Tensor::from({N * R, V}, rep, DType::f64);
  double norm = 0;
  for (double e : exact) norm += e * e;
  norm = std::sqrt(norm);
  std::vector<double> errs;
  for (int k : {1, 3, 10, 100, 1000}) {
    Tensor vk = run_chain(ps, p, vd, k, rng);
    Graph g;
    g.bind(ps);
    r::Rbm m = r::bind(g, p);
    auto [val, grad] = ad::value_and_grad(r::cd_loss_given(m, g.input(vd), g.input(vk)));
    double e = 0;
    for (int64_t i = 0; i < grad.size(); ++i) e += std::pow(grad.flat().at(i) - exact[i], 2);
    errs.push_back(std::sqrt(e) / norm);
    std::printf("CD-%-4d averaged over %lld chains: |g_cd - g_exact| / |g_exact| = %.4f\n", k,
                static_cast<long long>(N * R), errs.back());
  }
  EXPECT_GT(errs[0], 2 * errs[3]);  // CD-1's bias is well above the Monte Carlo noise of CD-100
  EXPECT_LT(errs[3], 0.05);
  EXPECT_LT(errs[4], 0.05);
}

TEST(Rbm, GradcheckRowsPassAtOrderTwo) {
  for (const check::RbmSpec& spec : check::rbm_specs()) {
    check::Options opt;
    opt.order = 2;
    const check::Report rep = check::check_rbm(spec, opt);
    std::printf("%-28s worst %.1e (fd1 %.1e dot1 %.1e fd2 %.1e dot2 %.1e)\n", spec.name.c_str(), rep.worst, rep.fd1,
                rep.dot1, rep.fd2, rep.dot2);
    EXPECT_TRUE(rep.ok) << spec.name << ": " << rep.failure;
  }
}

TEST(Rbm, GibbsChainIsDeterministicBySeed) {
  auto chain = [](uint64_t seed) {
    Rng init(1), rng(seed);
    ParamSet ps(DType::f64);
    r::RbmParams p = r::add_params(ps, 5, 3, 1.0, init);
    Tensor v = binary_rows(4, 5, init);
    Tensor out = run_chain(ps, p, v, 5, rng);
    std::vector<double> x;
    for (int64_t i = 0; i < out.size(); ++i) x.push_back(out.at(i));
    return x;
  };
  EXPECT_EQ(chain(3), chain(3));
  EXPECT_NE(chain(3), chain(4));
}

}  // namespace
}  // namespace tg
