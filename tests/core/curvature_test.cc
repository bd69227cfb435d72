// Hessian-vector and Gauss-Newton-vector products on a small two-layer net against dense matrices
// built independently of the engine's derivative rules: finite differences of the gradient for H,
// and Jᵀ H_L J with J from finite differences of the logits and H_L written out for softmax
// cross-entropy / squared error.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "core/linearize.h"
#include "ops/ops.h"

namespace tg {
namespace {

constexpr int N = 5, D = 3, HID = 4, C = 3;

struct TwoLayer {
  ParamSet ps{DType::f64};
  ParamId w1, b1, w2, b2;
  Tensor x;
  ops::Index targets = ops::make_index({0, 2, 1, 1, 0});
  Tensor y_real;
  bool squared = false;
  TwoLayer() {
    Rng rng(21);
    w1 = ps.add("w1", {D, HID}, init::normal(0.8), &rng);
    b1 = ps.add("b1", {HID}, init::normal(0.3), &rng);
    w2 = ps.add("w2", {HID, C}, init::normal(0.8), &rng);
    b2 = ps.add("b2", {C}, init::normal(0.3), &rng);
    x = Tensor::empty({N, D}, DType::f64);
    init::normal(1.0)(x, rng);
    y_real = Tensor::empty({N, C}, DType::f64);
    init::normal(1.0)(y_real, rng);
  }
  Var logits(Graph& g) {
    g.bind(ps);
    Var h = ops::tanh(ops::matmul(g.input(x), g[w1]) + g[b1]);
    return ops::matmul(h, g[w2]) + g[b2];
  }
  Var loss(Graph& g, Var z) {
    return squared ? losses::squared_error(z, g.input(y_real)) : losses::softmax_xent(z, targets);
  }
  int P() const { return static_cast<int>(ps.numel()); }
};

using Matrix = std::vector<std::vector<double>>;  // row-major, [rows][cols]

ParamVec basis(const ParamSet& ps, int j, double scale = 1.0) {
  ParamVec e = ps.zeros_like();
  e.flat().data<double>()[j] = scale;
  return e;
}

std::vector<double> gradient_at(TwoLayer& net, const ParamVec& theta) {
  ParamSet saved = net.ps.cast(DType::f64);
  net.ps.set_values(theta);
  Graph g;
  auto [v, gr] = ad::value_and_grad(net.loss(g, net.logits(g)));
  net.ps.set_values(saved.values());
  return gr.flat().to_vector();
}

std::vector<double> logits_at(TwoLayer& net, const ParamVec& theta) {
  ParamSet saved = net.ps.cast(DType::f64);
  net.ps.set_values(theta);
  Graph g;
  std::vector<double> z = net.logits(g).value().to_vector();
  net.ps.set_values(saved.values());
  return z;
}

// d²L/dz² for the loss head, written out: softmax xent (mean over N): (diag p - p pᵀ)/N per row;
// squared error (mean over N*C): I/(N*C).
Matrix head_hessian(TwoLayer& net, const std::vector<double>& z) {
  Matrix h(N * C, std::vector<double>(N * C, 0.0));
  for (int n = 0; n < N; ++n) {
    if (net.squared) {
      for (int c = 0; c < C; ++c) h[n * C + c][n * C + c] = 1.0 / (N * C);
      continue;
    }
    double m = -1e300, s = 0;
    for (int c = 0; c < C; ++c) m = std::max(m, z[n * C + c]);
    std::vector<double> p(C);
    for (int c = 0; c < C; ++c) s += p[c] = std::exp(z[n * C + c] - m);
    for (double& q : p) q /= s;
    for (int a = 0; a < C; ++a)
      for (int b = 0; b < C; ++b) h[n * C + a][n * C + b] = ((a == b ? p[a] : 0.0) - p[a] * p[b]) / N;
  }
  return h;
}

double rel_frobenius(const Matrix& a, const Matrix& b) {
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < a[i].size(); ++j) {
      d += (a[i][j] - b[i][j]) * (a[i][j] - b[i][j]);
      n += b[i][j] * b[i][j];
    }
  return std::sqrt(d / n);
}

void expect_curvature_matches(bool squared) {
  TwoLayer net;
  net.squared = squared;
  const int P = net.P();
  const double eps = 1e-5;
  Graph g;
  Var z = net.logits(g);
  Var loss = net.loss(g, z);
  ad::Linearization lin(loss);
  const ParamVec theta = net.ps.values().clone();

  // Hessian: engine columns vs central differences of the gradient
  Matrix h_engine(P), h_fd(P, std::vector<double>(P));
  for (int j = 0; j < P; ++j) {
    h_engine[j] = lin.hvp(basis(net.ps, j)).flat().to_vector();
    std::vector<double> gp = gradient_at(net, theta.clone().axpy(1.0, basis(net.ps, j, eps)));
    std::vector<double> gm = gradient_at(net, theta.clone().axpy(1.0, basis(net.ps, j, -eps)));
    for (int i = 0; i < P; ++i) h_fd[j][i] = (gp[i] - gm[i]) / (2 * eps);
  }
  EXPECT_LT(rel_frobenius(h_engine, h_fd), 1e-8);

  // Gauss-Newton: engine columns vs Jᵀ H_L J with J from finite differences of the logits
  Matrix jac(N * C, std::vector<double>(P));
  for (int j = 0; j < P; ++j) {
    std::vector<double> zp = logits_at(net, theta.clone().axpy(1.0, basis(net.ps, j, eps)));
    std::vector<double> zm = logits_at(net, theta.clone().axpy(1.0, basis(net.ps, j, -eps)));
    for (int i = 0; i < N * C; ++i) jac[i][j] = (zp[i] - zm[i]) / (2 * eps);
  }
  Matrix hl = head_hessian(net, z.value().to_vector());
  Matrix g_dense(P, std::vector<double>(P, 0.0)), g_engine(P);
  for (int a = 0; a < P; ++a)
    for (int i = 0; i < N * C; ++i)
      for (int k = 0; k < N * C; ++k)
        if (hl[i][k] != 0)
          for (int b = 0; b < P; ++b) g_dense[a][b] += jac[i][a] * hl[i][k] * jac[k][b];
  ad::Block block{{z}, loss};
  for (int j = 0; j < P; ++j) g_engine[j] = lin.gnvp(basis(net.ps, j), block).flat().to_vector();
  EXPECT_LT(rel_frobenius(g_engine, g_dense), 1e-8);

  // symmetric and positive semidefinite on random vectors
  Rng rng(99);
  for (int k = 0; k < 20; ++k) {
    ParamVec u = ParamVec::random_normal(net.ps.layout(), DType::f64, rng);
    ParamVec v = ParamVec::random_normal(net.ps.layout(), DType::f64, rng);
    double ugv = u.dot(lin.gnvp(v, block)), vgu = v.dot(lin.gnvp(u, block));
    EXPECT_NEAR(ugv, vgu, 1e-12 * (std::abs(ugv) + 1e-300));
    EXPECT_GE(v.dot(lin.gnvp(v, block)), -1e-14);
  }
  EXPECT_EQ(lin.primal_reevaluations(), 0u);
}

TEST(Curvature, SoftmaxCrossEntropyHessianAndGaussNewtonMatchDenseMatrices) { expect_curvature_matches(false); }
TEST(Curvature, SquaredErrorHessianAndGaussNewtonMatchDenseMatrices) { expect_curvature_matches(true); }

TEST(Curvature, ExtraBlockAtTaggedIntermediates) {
  // B = G + λμ G_S: a second block at the hidden pre-activations with its own head adds linearly.
  TwoLayer net;
  Graph g;
  g.bind(net.ps);
  Var u = ops::matmul(g.input(net.x), g[net.w1]) + g[net.b1];
  g.tag(u, "preact");
  Var z = ops::matmul(ops::tanh(u), g[net.w2]) + g[net.b2];
  Var loss = losses::softmax_xent(z, net.targets);
  Var damping_head = ops::sum(ops::log(ops::add_scalar(ops::exp(ops::scale(u, 2.0)), 1.0)));  // any smooth head
  ad::Linearization lin(loss);
  Rng rng(4);
  ParamVec v = ParamVec::random_normal(net.ps.layout(), DType::f64, rng);
  ParamVec w = ParamVec::random_normal(net.ps.layout(), DType::f64, rng);
  ad::Block main{{z}, loss}, sd{g.tagged("preact"), damping_head};
  ParamVec gs = lin.gnvp(v, sd);
  // symmetric, PSD (the head is convex), and different from the main block
  EXPECT_NEAR(w.dot(gs), v.dot(lin.gnvp(w, sd)), 1e-12 * std::abs(w.dot(gs)));
  EXPECT_GT(v.dot(gs), 0);
  EXPECT_GT(lin.gnvp(v, main).clone().axpy(-1, gs).norm(), 1e-6);
}

}  // namespace
}  // namespace tg

namespace tg {
namespace {
// Structural damping's block on a recurrence: the pre-activations u_t feed each other, yet the block's
// curvature is J_uᵀ diag(1 - tanh² u) J_u with the head taken as a function of the u_t separately.
TEST(Curvature, BlockOnChainedPreactivationsTreatsThemAsIndependent) {
  ParamSet ps(DType::f64);
  Rng rng(8);
  ParamId wx = ps.add("wx", {3, 4}, init::normal(0.7), &rng), wh = ps.add("wh", {4, 4}, init::normal(0.7), &rng);
  Tensor x = Tensor::empty({2, 3}, DType::f64);
  init::normal(1.0)(x, rng);
  const int T = 4, P = static_cast<int>(ps.numel());
  auto preacts = [&](Graph& g) {
    g.bind(ps);
    std::vector<Var> us;
    Var h = ops::fill(g, {2, 4}, 0.0, DType::f64);
    for (int t = 0; t < T; ++t) {
      Var u = ops::matmul(ops::scale(g.input(x), 1.0 + t), g[wx]) + ops::matmul(h, g[wh]);
      h = ops::tanh(u);
      us.push_back(u);
    }
    return us;
  };
  Graph g;
  std::vector<Var> us = preacts(g);
  Var head;
  for (Var u : us) head = ops::add(head, ops::sum(ops::sub(ops::softplus(ops::scale(u, 2.0)), u)));  // Σ log cosh u
  ad::Linearization lin(head);
  ad::Block block{us, head};
  // dense: J from central differences of all u_t, H = diag(1 - tanh² u)
  const ParamVec theta = ps.values().clone();
  auto flat_u = [&](const ParamVec& th) {
    ps.set_values(th);
    Graph g2;
    std::vector<double> all;
    for (Var u : preacts(g2)) {
      std::vector<double> v = u.value().to_vector();
      all.insert(all.end(), v.begin(), v.end());
    }
    ps.set_values(theta);
    return all;
  };
  std::vector<double> u0 = flat_u(theta);
  const size_t U = u0.size();
  Matrix jac(U, std::vector<double>(P));
  for (int j = 0; j < P; ++j) {
    std::vector<double> up = flat_u(theta.clone().axpy(1.0, basis(ps, j, 1e-5)));
    std::vector<double> um = flat_u(theta.clone().axpy(1.0, basis(ps, j, -1e-5)));
    for (size_t i = 0; i < U; ++i) jac[i][j] = (up[i] - um[i]) / 2e-5;
  }
  Matrix dense(P, std::vector<double>(P, 0.0)), engine(P);
  for (int a = 0; a < P; ++a)
    for (int b = 0; b < P; ++b)
      for (size_t i = 0; i < U; ++i) dense[a][b] += jac[i][a] * (1 - std::tanh(u0[i]) * std::tanh(u0[i])) * jac[i][b];
  for (int j = 0; j < P; ++j) engine[j] = lin.gnvp(basis(ps, j), block).flat().to_vector();
  EXPECT_LT(rel_frobenius(engine, dense), 1e-8);
}
}  // namespace
}  // namespace tg
