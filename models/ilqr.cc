#include "models/ilqr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>

#include "core/ad.h"
#include "core/error.h"

namespace tg::models {

void check_ilqr(const IlqrOptions& o) {
  auto bad = [](const char* name, const std::string& rule, double v) {
    throw Error(fmt::format("ilqr: {} must be {} (got {})", name, rule, v));
  };
  if (o.max_iters < 1) bad("max_iters", ">= 1", o.max_iters);
  if (!(o.tol > 0 && std::isfinite(o.tol))) bad("tol", "> 0", o.tol);
  if (!(o.mu0 >= 0 && std::isfinite(o.mu0))) bad("mu0", ">= 0", o.mu0);
  if (!(o.mu_min > 0 && std::isfinite(o.mu_min))) bad("mu_min", "> 0", o.mu_min);
  if (!(o.mu_max > o.mu0 && o.mu_max > o.mu_min && std::isfinite(o.mu_max))) bad("mu_max", "> mu0 and mu_min", o.mu_max);
  if (!(o.mu_factor > 1 && std::isfinite(o.mu_factor))) bad("mu_factor", "> 1", o.mu_factor);
  if (o.line_search_steps < 1) bad("line_search_steps", ">= 1", o.line_search_steps);
  if (!(o.accept >= 0 && o.accept < 1)) bad("accept", "in [0, 1)", o.accept);
  if (!(o.loss_floor >= 0 && std::isfinite(o.loss_floor))) bad("loss_floor", ">= 0", o.loss_floor);
}

namespace {

constexpr int kX = 4, kU = 2;  // state and control sizes

// One reach being solved: the nominal trajectory (x̄, ū), its cost, μ, and the last backward pass.
struct Reach {
  const double* start;   // [4]
  const double* target;  // [4]
  std::vector<double> x, u;  // (T+1)×4, T×2
  double cost = 0, final_error = 0;
  double mu = 0;
  std::vector<double> k, K;  // T×2 feed-forward, T×(2×4) feedback gains
  double d1 = 0, d2 = 0;     // the model's change of L at step a: a d1 + a² d2 (≤ 0)
  int iterations = 0;
  bool done = false, converged = false;
};

// The loss is quadratic in (x_T, u), so it and its derivatives are written directly (exact); only
// the dynamics are differentiated by the engine.
std::pair<double, double> cost_of(const std::vector<double>& x, const std::vector<double>& u, const double* target,
                                  int64_t T, double alpha) {
  double final_error = 0, energy = 0;
  for (int i = 0; i < kX; ++i) final_error += 0.5 * std::pow(x[T * kX + i] - target[i], 2);
  for (double v : u) energy += 0.5 * alpha * v * v;
  return {final_error + energy, final_error};
}

// The true nonlinear rollout of the rows `rs` by `arm_step` graphs in float64, all rows in one [n,4]
// batch, with u_t of each row chosen from its x_t by `policy(row, t, x_t, u_t)`.
using Policy = std::function<void(size_t, int64_t, const double*, double*)>;
void rollout(const ArmOptions& plant, int64_t T, const std::vector<Reach*>& rs, const Policy& policy,
             std::vector<std::vector<double>>& xs, std::vector<std::vector<double>>& us) {
  const auto n = static_cast<int64_t>(rs.size());
  xs.assign(rs.size(), std::vector<double>((T + 1) * kX));
  us.assign(rs.size(), std::vector<double>(T * kU));
  std::vector<double> xt(n * kX), ut(n * kU);
  for (size_t r = 0; r < rs.size(); ++r) std::copy(rs[r]->start, rs[r]->start + kX, xt.begin() + r * kX);
  Graph g;
  Var x = g.input(Tensor::from({n, kX}, xt, DType::f64));
  for (int64_t t = 0;; ++t) {
    for (size_t r = 0; r < rs.size(); ++r) std::copy_n(xt.begin() + r * kX, kX, xs[r].begin() + t * kX);
    if (t == T) break;
    for (size_t r = 0; r < rs.size(); ++r) {
      policy(r, t, xt.data() + r * kX, ut.data() + r * kU);
      std::copy_n(ut.begin() + r * kU, kU, us[r].begin() + t * kU);
    }
    x = arm_step(x, g.input(Tensor::from({n, kU}, ut, DType::f64)), plant);
    xt = x.value().to_vector();
  }
}

// A_t = ∂x_{t+1}/∂x_t (4×4, row-major) and B_t = ∂x_{t+1}/∂u_t (4×2) along each reach's nominal
// trajectory, from the engine: one `arm_step` over all n·T rows (x̄_t, ū_t) and a JVP per column,
// tangent e_j in every row (the rows are independent arms, so one JVP gives column j of every A_t).
void linearize(const ArmOptions& plant, int64_t T, const std::vector<Reach*>& rs, std::vector<double>& A,
               std::vector<double>& B) {
  const int64_t m = static_cast<int64_t>(rs.size()) * T;
  std::vector<double> xv(m * kX), uv(m * kU);
  for (size_t r = 0; r < rs.size(); ++r) {
    std::copy_n(rs[r]->x.begin(), T * kX, xv.begin() + r * T * kX);  // x̄_0 .. x̄_{T-1}
    std::copy_n(rs[r]->u.begin(), T * kU, uv.begin() + r * T * kU);
  }
  Graph g;
  const Var ins[] = {g.input(Tensor::from({m, kX}, xv, DType::f64)), g.input(Tensor::from({m, kU}, uv, DType::f64))};
  const Var next[] = {arm_step(ins[0], ins[1], plant)};
  A.assign(m * kX * kX, 0);
  B.assign(m * kX * kU, 0);
  for (int j = 0; j < kX + kU; ++j) {
    const bool is_x = j < kX;
    const int col = is_x ? j : j - kX, width = is_x ? kX : kU;
    std::vector<double> e(m * width, 0.0);
    for (int64_t row = 0; row < m; ++row) e[row * width + col] = 1;
    Var tangents[2];
    tangents[is_x ? 0 : 1] = g.input(Tensor::from({m, width}, e, DType::f64));
    const std::vector<double> d =
        ad::value_or_zeros(ad::jvp(next, ins, tangents)[0], Shape{m, kX}, DType::f64).to_vector();
    for (int64_t row = 0; row < m; ++row)
      for (int i = 0; i < kX; ++i) {
        if (is_x)
          A[row * kX * kX + i * kX + col] = d[row * kX + i];
        else
          B[row * kX * kU + i * kU + col] = d[row * kX + i];
      }
  }
}

// The Riccati recursion of iLQR (no second derivatives of the dynamics) with Q_uu + μI:
//   Q_x = Aᵀ V_x,  Q_u = α u + Bᵀ V_x,  Q_xx = Aᵀ V_xx A,  Q_uu = α I + Bᵀ V_xx B,  Q_ux = Bᵀ V_xx A
//   k = -(Q_uu + μI)⁻¹ Q_u,  K = -(Q_uu + μI)⁻¹ Q_ux
//   V_x = Q_x + Kᵀ Q_uu k + Kᵀ Q_u + Q_uxᵀ k,  V_xx = Q_xx + Kᵀ Q_uu K + Kᵀ Q_ux + Q_uxᵀ K
// from V_x = x_T - x*, V_xx = I. False if Q_uu + μI is not positive definite at some step.
bool backward(Reach& r, const double* A, const double* B, int64_t T, double alpha) {
  double Vx[kX], Vxx[kX][kX] = {};
  for (int i = 0; i < kX; ++i) Vx[i] = r.x[T * kX + i] - r.target[i], Vxx[i][i] = 1;
  r.k.assign(T * kU, 0);
  r.K.assign(T * kU * kX, 0);
  r.d1 = r.d2 = 0;
  for (int64_t t = T - 1; t >= 0; --t) {
    const double* At = A + t * kX * kX;
    const double* Bt = B + t * kX * kU;
    const double* ut = r.u.data() + t * kU;
    double VA[kX][kX] = {}, VB[kX][kU] = {};
    for (int i = 0; i < kX; ++i)
      for (int l = 0; l < kX; ++l) {
        for (int j = 0; j < kX; ++j) VA[i][j] += Vxx[i][l] * At[l * kX + j];
        for (int j = 0; j < kU; ++j) VB[i][j] += Vxx[i][l] * Bt[l * kU + j];
      }
    double Qx[kX] = {}, Qu[kU] = {}, Qxx[kX][kX] = {}, Quu[kU][kU] = {}, Qux[kU][kX] = {};
    for (int i = 0; i < kX; ++i) {
      for (int a = 0; a < kX; ++a) {
        Qx[a] += At[i * kX + a] * Vx[i];
        for (int b = 0; b < kX; ++b) Qxx[a][b] += At[i * kX + a] * VA[i][b];
      }
      for (int a = 0; a < kU; ++a) {
        Qu[a] += Bt[i * kU + a] * Vx[i];
        for (int b = 0; b < kU; ++b) Quu[a][b] += Bt[i * kU + a] * VB[i][b];
        for (int b = 0; b < kX; ++b) Qux[a][b] += Bt[i * kU + a] * VA[i][b];
      }
    }
    for (int a = 0; a < kU; ++a) Qu[a] += alpha * ut[a], Quu[a][a] += alpha;
    Quu[0][1] = Quu[1][0] = 0.5 * (Quu[0][1] + Quu[1][0]);
    // (Q_uu + μI)⁻¹ of the symmetric 2×2, positive definite iff its (0,0) entry and determinant are > 0
    const double r00 = Quu[0][0] + r.mu, r11 = Quu[1][1] + r.mu, r01 = Quu[0][1];
    const double det = r00 * r11 - r01 * r01;
    if (!(r00 > 0 && det > 0 && std::isfinite(det))) return false;
    const double inv[kU][kU] = {{r11 / det, -r01 / det}, {-r01 / det, r00 / det}};
    double* k = r.k.data() + t * kU;
    double* K = r.K.data() + t * kU * kX;
    for (int a = 0; a < kU; ++a)
      for (int b = 0; b < kU; ++b) {
        k[a] -= inv[a][b] * Qu[b];
        for (int j = 0; j < kX; ++j) K[a * kX + j] -= inv[a][b] * Qux[b][j];
      }
    double Quu_k[kU] = {}, Quu_K[kU][kX] = {};
    for (int a = 0; a < kU; ++a)
      for (int b = 0; b < kU; ++b) {
        Quu_k[a] += Quu[a][b] * k[b];
        for (int j = 0; j < kX; ++j) Quu_K[a][j] += Quu[a][b] * K[b * kX + j];
      }
    for (int a = 0; a < kU; ++a) r.d1 += k[a] * Qu[a], r.d2 += 0.5 * k[a] * Quu_k[a];
    for (int i = 0; i < kX; ++i) {
      Vx[i] = Qx[i];
      for (int a = 0; a < kU; ++a) Vx[i] += K[a * kX + i] * (Quu_k[a] + Qu[a]) + Qux[a][i] * k[a];
      for (int j = 0; j < kX; ++j) {
        Vxx[i][j] = Qxx[i][j];
        for (int a = 0; a < kU; ++a)
          Vxx[i][j] += K[a * kX + i] * (Quu_K[a][j] + Qux[a][j]) + Qux[a][i] * K[a * kX + j];
      }
    }
    for (int i = 0; i < kX; ++i)
      for (int j = 0; j < i; ++j) Vxx[i][j] = Vxx[j][i] = 0.5 * (Vxx[i][j] + Vxx[j][i]);
  }
  return true;
}

void check_reach(const double* x, const char* what) {
  for (int i = 0; i < kX; ++i)
    if (!std::isfinite(x[i])) throw Error(fmt::format("ilqr: {} must be finite (got {} in entry {})", what, x[i], i));
}

std::vector<IlqrResult> solve(const ArmOptions& plant, const std::vector<double>& starts,
                              const std::vector<double>& targets, int64_t T, double alpha, const IlqrOptions& o) {
  check_ilqr(o);
  check_arm(plant);
  if (plant.command_noise != 0)
    throw Error(fmt::format("ilqr: plant.command_noise must be 0 (got {}): iLQR plans for the noise-free arm",
                            plant.command_noise));
  if (plant.plant_noise != 0)
    throw Error(fmt::format("ilqr: plant.plant_noise must be 0 (got {}): iLQR plans for the noise-free arm",
                            plant.plant_noise));
  if (T < 1) throw Error(fmt::format("ilqr: steps must be >= 1 (got {})", T));
  if (!(alpha >= 0 && std::isfinite(alpha))) throw Error(fmt::format("ilqr: alpha must be >= 0 (got {})", alpha));
  const size_t n = starts.size() / kX;
  if (n == 0 || starts.size() != n * kX || targets.size() != starts.size())
    throw Error(fmt::format("ilqr: need as many start as target states, 4 numbers each (got {} and {} numbers)",
                            starts.size(), targets.size()));
  std::vector<Reach> reaches(n);
  std::vector<Reach*> all;
  for (size_t r = 0; r < n; ++r) {
    Reach& R = reaches[r];
    R.start = starts.data() + r * kX;
    R.target = targets.data() + r * kX;
    check_reach(R.start, "start");
    check_reach(R.target, "target");
    R.mu = o.mu0;
    all.push_back(&R);
  }
  auto raise = [&](Reach& R) {  // false: μ passed mu_max, the reach stops unconverged
    R.mu = std::max(R.mu * o.mu_factor, o.mu_min);
    if (R.mu > o.mu_max) R.done = true;
    return !R.done;
  };
  std::vector<std::vector<double>> xs, us;
  // From u = 0.
  rollout(plant, T, all, [](size_t, int64_t, const double*, double* u) { u[0] = u[1] = 0; }, xs, us);
  for (size_t r = 0; r < n; ++r) {
    reaches[r].x = std::move(xs[r]);
    reaches[r].u = std::move(us[r]);
    std::tie(reaches[r].cost, reaches[r].final_error) = cost_of(reaches[r].x, reaches[r].u, reaches[r].target, T, alpha);
  }
  std::vector<double> A, B;
  for (;;) {
    std::vector<Reach*> active;
    for (Reach* R : all)
      if (!R->done) {
        if (R->cost <= o.loss_floor)
          R->done = R->converged = true;
        else if (R->iterations >= o.max_iters)
          R->done = true;
        else
          active.push_back(R);
      }
    if (active.empty()) break;
    linearize(plant, T, active, A, B);
    std::vector<size_t> row(n);  // a reach's block in A and B
    for (size_t i = 0; i < active.size(); ++i) row[active[i] - reaches.data()] = i;
    for (Reach* R : active) ++R->iterations;
    std::vector<Reach*> pending = active;
    while (!pending.empty()) {
      std::vector<Reach*> search;
      for (Reach* R : pending) {
        const size_t i = row[R - reaches.data()];
        bool ok = false;
        while (!(ok = backward(*R, A.data() + i * T * kX * kX, B.data() + i * T * kX * kU, T, alpha)))
          if (!raise(*R)) break;
        if (!ok) continue;
        // The model sees nothing left to gain: a stationary point, if μ is at its floor (a large μ shrinks
        // every step and its prediction, at a stationary point or not).
        if (-(R->d1 + R->d2) <= o.tol * R->cost && R->mu <= std::max(o.mu0, o.mu_min)) {
          R->done = R->converged = true;
          continue;
        }
        search.push_back(R);
      }
      // Line search, every reach from a = 1 down; a reach leaves at its first accepted step.
      double a = 1;
      for (int s = 0; s < o.line_search_steps && !search.empty(); ++s, a /= 2) {
        const Policy policy = [&](size_t r, int64_t t, const double* x, double* u) {
          const Reach& R = *search[r];
          const double* xbar = R.x.data() + t * kX;
          const double* K = R.K.data() + t * kU * kX;
          for (int c = 0; c < kU; ++c) {
            u[c] = R.u[t * kU + c] + a * R.k[t * kU + c];
            for (int j = 0; j < kX; ++j) u[c] += K[c * kX + j] * (x[j] - xbar[j]);
          }
        };
        rollout(plant, T, search, policy, xs, us);
        std::vector<Reach*> rest;
        for (size_t r = 0; r < search.size(); ++r) {
          Reach& R = *search[r];
          const auto [cost, final_error] = cost_of(xs[r], us[r], R.target, T, alpha);
          const double predicted = -(a * R.d1 + a * a * R.d2), decrease = R.cost - cost;
          if (!(decrease > 0 && decrease >= o.accept * predicted)) {
            rest.push_back(&R);
            continue;
          }
          const double relative = decrease / R.cost;
          R.x = std::move(xs[r]);
          R.u = std::move(us[r]);
          R.cost = cost;
          R.final_error = final_error;
          R.mu = std::max(R.mu / o.mu_factor, o.mu_min);
          if (relative < o.tol) R.done = R.converged = true;
        }
        search = std::move(rest);
      }
      pending.clear();
      for (Reach* R : search)  // no step accepted: more regularisation, same linearisation
        if (raise(*R)) pending.push_back(R);
    }
  }
  std::vector<IlqrResult> out(n);
  for (size_t r = 0; r < n; ++r) {
    Reach& R = reaches[r];
    out[r] = IlqrResult{.torques = std::move(R.u),
                        .states = std::move(R.x),
                        .loss = R.cost,
                        .final_error = R.final_error,
                        .iterations = R.iterations,
                        .converged = R.converged};
  }
  return out;
}

}  // namespace

IlqrResult ilqr_reach(const ArmOptions& plant, const std::array<double, 4>& start, const std::array<double, 4>& target,
                      int64_t steps, double alpha, const IlqrOptions& o) {
  return solve(plant, {start.begin(), start.end()}, {target.begin(), target.end()}, steps, alpha, o).front();
}

std::vector<IlqrResult> ilqr_reaches(const ArmOptions& plant, const ReachBatch& reaches, int64_t steps, double alpha,
                                     const IlqrOptions& o) {
  // open-loop optima of center-out's final-state cost: a batch's forces, disturbances or noise would
  // be silently left out
  if (!reaches.hand_force.empty() || !reaches.disturbance.empty() || !reaches.command_noise.empty() ||
      !reaches.plant_noise.empty())
    throw Error("ilqr: the reaches carry hand forces, disturbances or noise draws, which iLQR's noiseless center-out "
                "problem does not model");
  return solve(plant, reaches.starts, reaches.targets, steps, alpha, o);
}

std::vector<IlqrResult> ilqr_center_out(const CenterOutOptions& c, const IlqrOptions& o) {
  return ilqr_reaches(c.plant, center_out_reaches(c), c.steps, c.alpha, o);
}

}  // namespace tg::models
