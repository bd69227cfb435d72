// Preconditioned CG with Martens' diagonal preconditioner: it solves SPD systems, and on badly scaled
// problems it needs far fewer iterations than plain CG.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "optim/cg.h"
#include "optim/precondition.h"
#include "tests/optim/random_orthonormal.h"

namespace tg::optim {
namespace {

// A = S C S: C = Q diag(1..cond) Qᵀ well conditioned, S = diag(10^u), u evenly spaced in [-span, span].
struct Scaled {
  int n;
  std::vector<double> a;
  ParamSet ps{DType::f64};
  Scaled(int n_, double cond, double span) : n(n_), a(n_ * n_, 0.0) {
    ps.add("x", {n});
    Rng rng(17);
    const std::vector<std::vector<double>> q = random_orthonormal_rows(n, rng);
    std::vector<double> s(n);
    for (int i = 0; i < n; ++i) s[i] = std::pow(10.0, n > 1 ? -span + 2 * span * i / (n - 1) : 0.0);
    for (int k = 0; k < n; ++k) {
      const double lambda = std::pow(cond, n > 1 ? double(k) / (n - 1) : 0.0);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) a[i * n + j] += s[i] * lambda * q[k][i] * q[k][j] * s[j];
    }
  }
  LinearOp op() const {
    return [this](const ParamVec& x) {
      ParamVec y = x.clone().fill(0);
      const double* xs = x.flat().data<double>();
      double* ys = y.flat().data<double>();
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) ys[i] += a[i * n + j] * xs[j];
      return y;
    };
  }
  std::vector<double> diagonal() const {
    std::vector<double> d(n);
    for (int i = 0; i < n; ++i) d[i] = a[i * n + i];
    return d;
  }
};

CgResult solve(const Scaled& p, const ParamVec& b, std::function<ParamVec(const ParamVec&)> pre, int max_iters) {
  CgOptions opt;
  opt.max_iters = max_iters;
  opt.progress_stop = false;
  opt.residual_tol = 1e-10;
  opt.precondition = std::move(pre);
  return conjugate_gradient(p.op(), b, p.ps.zeros_like(), opt);
}

TEST(PreconditionedCg, SolvesABadlyScaledSpdSystemInFewerIterations) {
  const int n = 60;
  Scaled p(n, 10.0, 2.0);  // diagonal scales 1e-2 .. 1e2: cond(A) ~ 1e9
  Rng rng(3);
  ParamVec b = ParamVec::random_normal(p.ps.layout(), DType::f64, rng);
  CgResult plain = solve(p, b, {}, 20 * n);
  // α = 1, λ = 0: Jacobi; α = 0.75 with a small λ: Martens' form
  CgResult jacobi = solve(p, b, diagonal_preconditioner(p.diagonal(), 0.0, 1.0), 20 * n);
  CgResult martens = solve(p, b, diagonal_preconditioner(p.diagonal(), 1e-6, 0.75), 20 * n);
  for (const CgResult* r : {&jacobi, &martens}) {
    ParamVec resid = p.op()(r->x).axpy(-1.0, b);
    EXPECT_EQ(r->stop, "residual");
    EXPECT_LT(resid.norm() / b.norm(), 1e-10);
    for (size_t i = 1; i < r->q.size(); ++i) EXPECT_LE(r->q[i], r->q[i - 1] + 1e-9 * std::abs(r->q[i - 1]));
  }
  std::printf("n = %d, scales 1e-2..1e2: CG %d iterations (stop: %s), PCG alpha=1 %d, PCG alpha=0.75 %d\n", n,
              plain.iters, plain.stop.c_str(), jacobi.iters, martens.iters);
  EXPECT_LT(jacobi.iters, plain.iters / 3);
  EXPECT_LT(martens.iters, plain.iters / 2);
}

TEST(PreconditionedCg, ExactDiagonalPreconditionerSolvesADiagonalSystemInOneIteration) {
  const int n = 40;
  ParamSet ps(DType::f64);
  ps.add("x", {n});
  std::vector<double> d(n);
  for (int i = 0; i < n; ++i) d[i] = std::pow(10.0, -4 + 8.0 * i / (n - 1));
  LinearOp A = [&](const ParamVec& x) {
    ParamVec y = x.clone();
    for (int i = 0; i < n; ++i) y.flat().data<double>()[i] *= d[i];
    return y;
  };
  Rng rng(1);
  ParamVec b = ParamVec::random_normal(ps.layout(), DType::f64, rng);
  CgOptions opt;
  opt.progress_stop = false;
  opt.max_iters = 400;
  CgResult plain = conjugate_gradient(A, b, ps.zeros_like(), opt);
  opt.precondition = diagonal_preconditioner(d, 0.0, 1.0);
  CgResult pcg = conjugate_gradient(A, b, ps.zeros_like(), opt);
  std::printf("diagonal 1e-4..1e4, n = %d: CG %d iterations, PCG %d\n", n, plain.iters, pcg.iters);
  EXPECT_EQ(pcg.iters, 1);
  EXPECT_GT(plain.iters, 10);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(pcg.x.flat().at(i), b.flat().at(i) / d[i], 1e-9 * std::abs(b.flat().at(i) / d[i]));
}

TEST(DiagonalPreconditioner, IsTheInverseOfDiagPlusLambdaToTheAlpha) {
  ParamSet ps(DType::f64);
  ps.add("x", {3});
  auto pre = diagonal_preconditioner({4.0, 0.0, 9.0}, 0.5, 0.75);
  ParamVec x = ps.zeros_like().fill(2.0);
  ParamVec y = pre(x);
  EXPECT_DOUBLE_EQ(y.flat().at(0), 2.0 * std::pow(4.5, -0.75));
  EXPECT_DOUBLE_EQ(y.flat().at(1), 2.0 * std::pow(0.5, -0.75));
  EXPECT_DOUBLE_EQ(y.flat().at(2), 2.0 * std::pow(9.5, -0.75));
  EXPECT_EQ(diagonal_preconditioner({4.0, 0.0, 9.0}, 0.0, 0.75)(x).flat().at(1), 2.0);  // d + λ = 0: unscaled
  EXPECT_THROW(diagonal_preconditioner({1.0}, 0.0, 0.75)(x), Error);  // wrong size
  EXPECT_THROW(diagonal_preconditioner({std::nan("")}, 0.0, 0.75), Error);
}

}  // namespace
}  // namespace tg::optim
