// The two-link arm plant (models/arm_plant.h) against a plain-C++ model written here: the rigid-body
// equations coded again, an RK4 integrator at Δt = 1e-4 and the kinetic energy from the segments'
// velocities (not from M). Energy conservation without viscosity, monotone loss with it, the graph's
// Euler steps against the reference (one step to rounding, whole trajectories to first order in Δt),
// forward kinematics and Jᵀ F at hand-computed configurations, the feedback delay, float64 gradient
// checks through unrolled steps, and the argument errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gradcheck/gradcheck.h"
#include "models/arm_plant.h"
#include "ops/ops.h"
#include "tests/harness/error_of.h"

namespace tg::models {
namespace {

using State = std::array<double, 4>;  // θ, φ, θ̇, φ̇
using Pair = std::array<double, 2>;

// ---- the reference, in plain doubles ------------------------------------------------------------

// q̈ from M q̈ = τ - C - B q̇, with M and C built from the joint-referred inertias.
Pair reference_acceleration(const ArmParams& p, bool viscosity, const State& x, const Pair& tau) {
  const double shoulder_inertia = p.i1 + p.m1 * p.s1 * p.s1;  // upper arm about the shoulder
  const double elbow_inertia = p.i2 + p.m2 * p.s2 * p.s2;     // forearm about the elbow
  const double coupling = p.m2 * p.l1 * p.s2;
  const double c = std::cos(x[1]), sn = std::sin(x[1]);
  const double M[2][2] = {{shoulder_inertia + elbow_inertia + p.m2 * p.l1 * p.l1 + 2 * coupling * c,
                           elbow_inertia + coupling * c},
                          {elbow_inertia + coupling * c, elbow_inertia}};
  const double C[2] = {-coupling * sn * x[3] * (2 * x[2] + x[3]), coupling * sn * x[2] * x[2]};
  double r[2] = {tau[0] - C[0], tau[1] - C[1]};
  if (viscosity) {
    r[0] -= p.b11 * x[2] + p.b12 * x[3];
    r[1] -= p.b21 * x[2] + p.b22 * x[3];
  }
  const double det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
  return {(M[1][1] * r[0] - M[0][1] * r[1]) / det, (M[0][0] * r[1] - M[1][0] * r[0]) / det};
}

State derivative(const ArmParams& p, bool viscosity, const State& x, const Pair& tau) {
  const Pair a = reference_acceleration(p, viscosity, x, tau);
  return {x[2], x[3], a[0], a[1]};
}

State axpy(const State& x, double h, const State& d) {
  return {x[0] + h * d[0], x[1] + h * d[1], x[2] + h * d[2], x[3] + h * d[3]};
}

State rk4_step(const ArmParams& p, bool viscosity, const State& x, const Pair& tau, double h) {
  const State k1 = derivative(p, viscosity, x, tau);
  const State k2 = derivative(p, viscosity, axpy(x, h / 2, k1), tau);
  const State k3 = derivative(p, viscosity, axpy(x, h / 2, k2), tau);
  const State k4 = derivative(p, viscosity, axpy(x, h, k3), tau);
  State y;
  for (int i = 0; i < 4; ++i) y[i] = x[i] + h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  return y;
}

// Kinetic energy from the centres of mass' velocities and the segments' spins (no gravity: the
// arm moves in the horizontal plane), independent of how M is written.
double kinetic_energy(const ArmParams& p, const State& x) {
  const double w1 = x[2], w2 = x[2] + x[3];  // absolute angular velocities of upper arm and forearm
  const double forearm = x[0] + x[1];
  const double vx = -p.l1 * std::sin(x[0]) * w1 - p.s2 * std::sin(forearm) * w2;
  const double vy = p.l1 * std::cos(x[0]) * w1 + p.s2 * std::cos(forearm) * w2;
  return 0.5 * p.m1 * (p.s1 * w1) * (p.s1 * w1) + 0.5 * p.i1 * w1 * w1 + 0.5 * p.m2 * (vx * vx + vy * vy) +
         0.5 * p.i2 * w2 * w2;
}

// Starting states: moderate and fast motions, elbow bent both ways and nearly straight.
const std::vector<State> kStarts = {{0.3, 1.2, 2.0, -3.0}, {-0.5, 0.1, -4.0, 5.0}, {1.0, 2.5, 1.0, 1.0}};

double max_abs_diff(const State& a, const State& b) {
  double m = 0;
  for (int i = 0; i < 4; ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// ---- the graph ----------------------------------------------------------------------------------

Var batch_of(Graph& g, const std::vector<State>& xs) {
  std::vector<double> v;
  for (const State& x : xs) v.insert(v.end(), x.begin(), x.end());
  return g.input(Tensor::from({static_cast<int64_t>(xs.size()), 4}, v, DType::f64));
}
Var pairs_of(Graph& g, const std::vector<Pair>& ps) {
  std::vector<double> v;
  for (const Pair& p : ps) v.insert(v.end(), p.begin(), p.end());
  return g.input(Tensor::from({static_cast<int64_t>(ps.size()), 2}, v, DType::f64));
}
State row(Var x, int64_t n) {
  const Tensor& t = x.value();
  return {t.at(4 * n), t.at(4 * n + 1), t.at(4 * n + 2), t.at(4 * n + 3)};
}

// Every state of a torque-free graph trajectory of `seconds` at step dt, for each start.
std::vector<std::vector<State>> graph_trajectories(const ArmOptions& o, double seconds) {
  Graph g;
  Var x = batch_of(g, kStarts);
  const Var u = g.input(Tensor::zeros({2}, DType::f64));
  const int steps = static_cast<int>(std::lround(seconds / o.dt));
  std::vector<std::vector<State>> out(kStarts.size());
  for (int t = 0; t <= steps; ++t) {
    for (size_t n = 0; n < kStarts.size(); ++n) out[n].push_back(row(x, static_cast<int64_t>(n)));
    if (t < steps) x = arm_step(x, u, o);
  }
  return out;
}

State rk4_final(const ArmParams& p, bool viscosity, State x, double seconds, double h) {
  const int steps = static_cast<int>(std::lround(seconds / h));
  for (int t = 0; t < steps; ++t) x = rk4_step(p, viscosity, x, {0, 0}, h);
  return x;
}

// ---- energy ------------------------------------------------------------------------------------

// Without viscosity, torques or noise the arm conserves its kinetic energy. RK4 at 1e-4 s over 1 s
// holds it to its own truncation error (~h⁴); a wrong Coriolis term or inertia matrix would not.
TEST(ArmPlant, ReferenceConservesEnergyWithoutViscosity) {
  const ArmParams p;
  for (const State& start : kStarts) {
    const double e0 = kinetic_energy(p, start);
    double drift = 0;
    State x = start;
    for (int t = 0; t < 10000; ++t) {
      x = rk4_step(p, false, x, {0, 0}, 1e-4);
      drift = std::max(drift, std::abs(kinetic_energy(p, x) / e0 - 1));
    }
    std::printf("start (%.1f %.1f %.1f %.1f): E0 = %.6f J, RK4 1e-4 s over 1 s: max |E/E0 - 1| = %.2e\n",
                start[0], start[1], start[2], start[3], e0, drift);
    EXPECT_LT(drift, 1e-10);
  }
}

// The graph's Euler trajectory converges to the RK4 one at first order: Euler's global error is
// K Δt + O(Δt²), so halving Δt must halve it (ratio 2 within 10%), and Richardson's extrapolation
// 2 x(Δt/2) - x(Δt) must cancel the first-order term, leaving at most a tenth of the error at Δt.
// A graph integrating other equations than the reference would leave an error that does not shrink.
TEST(ArmPlant, GraphEulerConvergesToTheRk4Reference) {
  const ArmParams p;
  ArmOptions coarse{.viscosity = false}, fine{.viscosity = false};
  coarse.dt = 1e-3;
  fine.dt = 5e-4;
  const auto xc = graph_trajectories(coarse, 1.0), xf = graph_trajectories(fine, 1.0);
  for (size_t n = 0; n < kStarts.size(); ++n) {
    const State ref = rk4_final(p, false, kStarts[n], 1.0, 1e-4);
    const State& c = xc[n].back();
    const State& f = xf[n].back();
    State extrapolated;
    for (int i = 0; i < 4; ++i) extrapolated[i] = 2 * f[i] - c[i];
    const double ec = max_abs_diff(c, ref), ef = max_abs_diff(f, ref), ex = max_abs_diff(extrapolated, ref);
    const double energy_drift = std::abs(kinetic_energy(p, c) / kinetic_energy(p, kStarts[n]) - 1);
    std::printf("start %zu: |Euler - RK4| at 1 s: %.3e (dt 1e-3), %.3e (dt 5e-4), ratio %.3f; "
                "extrapolated %.2e; Euler 1e-3 energy drift %.2e\n",
                n, ec, ef, ec / ef, ex, energy_drift);
    EXPECT_NEAR(ec / ef, 2.0, 0.2);
    EXPECT_LT(ex, 0.1 * ec);
  }
}

// One graph step equals one Euler step of the reference to rounding, with every option on.
TEST(ArmPlant, GraphStepMatchesTheReferenceEulerStep) {
  ArmOptions o;
  o.command_noise = 0.3;
  o.plant_noise = 0.01;
  o.disturbance = {0.2, -0.1};
  o.hand_force = {1.5, -2.0};
  const ArmParams& p = o.arm;
  const std::vector<Pair> u = {{0.5, -0.2}, {-1.0, 0.7}, {0.0, 0.3}}, eps_u = {{0.4, -1.2}, {1.1, 0.2}, {-0.3, 0.9}},
                          per_row = {{0.05, 0.0}, {0.0, -0.2}, {0.1, 0.1}}, force = {{0, 1}, {-1, 0}, {0.5, 0.5}};
  const std::vector<State> eps_f = {{0.1, -0.2, 0.3, 1.0}, {-1.0, 0.5, 0.0, 0.2}, {0.7, 0.7, -0.4, -0.1}};
  Graph g;
  const Var next = arm_step(batch_of(g, kStarts), pairs_of(g, u), o,
                            {.command_noise = pairs_of(g, eps_u), .plant_noise = batch_of(g, eps_f),
                             .disturbance = pairs_of(g, per_row), .hand_force = pairs_of(g, force)});
  for (size_t n = 0; n < kStarts.size(); ++n) {
    const State& x = kStarts[n];
    const double f[2] = {o.hand_force[0] + force[n][0], o.hand_force[1] + force[n][1]};
    const double s1 = std::sin(x[0]), c1 = std::cos(x[0]), s12 = std::sin(x[0] + x[1]), c12 = std::cos(x[0] + x[1]);
    const Pair jt_f = {(-p.l1 * s1 - p.l2 * s12) * f[0] + (p.l1 * c1 + p.l2 * c12) * f[1],
                       -p.l2 * s12 * f[0] + p.l2 * c12 * f[1]};
    Pair tau;
    for (int j = 0; j < 2; ++j)
      tau[j] = u[n][j] * (1 + o.command_noise * eps_u[n][j]) + o.disturbance[j] + per_row[n][j] + jt_f[j];
    State want = axpy(x, o.dt, derivative(p, true, x, tau));
    for (int i = 0; i < 4; ++i) want[i] += o.plant_noise * eps_f[n][i];
    EXPECT_LT(max_abs_diff(row(next, static_cast<int64_t>(n)), want), 1e-14) << "row " << n;
  }
}

// With viscosity on (B positive definite) and no torque, dE/dt = -q̇ᵀ B q̇ < 0: the energy of the
// graph's Euler trajectory falls at every step, at the thesis's Δt = 0.01 s and at 1e-3 s, and what
// it loses over 1 s is the work of the viscous torques, Σ Δt q̇ᵀ B q̇, up to Euler's O(Δt) error:
// within 1% of E0 at 1e-3 s, where Euler's own energy error without viscosity is 5e-4 E0.
TEST(ArmPlant, ViscosityMakesEnergyFallAtEveryStep) {
  const ArmParams p;
  for (double dt : {0.01, 1e-3}) {
    ArmOptions o;
    o.dt = dt;
    const auto xs = graph_trajectories(o, 1.0);
    for (size_t n = 0; n < xs.size(); ++n) {
      const double e0 = kinetic_energy(p, xs[n][0]);
      double prev = e0, dissipated = 0;
      int rises = 0;
      for (size_t t = 1; t < xs[n].size(); ++t) {
        const State& x = xs[n][t - 1];
        dissipated += dt * (x[2] * (p.b11 * x[2] + p.b12 * x[3]) + x[3] * (p.b21 * x[2] + p.b22 * x[3]));
        const double e = kinetic_energy(p, xs[n][t]);
        rises += e >= prev;
        prev = e;
      }
      const double imbalance = std::abs(e0 - prev - dissipated) / e0;
      std::printf("dt %.0e start %zu: E %.4f -> %.4f J over 1 s, %d rises in %zu steps, viscous work %.4f J, "
                  "|E0 - E - work| / E0 = %.1e\n",
                  dt, n, e0, prev, rises, xs[n].size() - 1, dissipated, imbalance);
      EXPECT_EQ(rises, 0);
      if (dt == 1e-3) {
        EXPECT_LT(imbalance, 0.01);
      }
    }
  }
}

// ---- kinematics, forces, delay --------------------------------------------------------------------

TEST(ArmPlant, HandPositionAtHandComputedConfigurations) {
  const ArmParams p;  // l1 = 0.30, l2 = 0.33
  Graph g;
  // θ = 0, φ = π/2: upper arm along x, forearm along y -> (l1, l2); θ = π/2, φ = 0: straight up
  // -> (0, l1 + l2); θ = π, φ = -π/2: upper arm along -x, forearm along +y -> (-l1, l2)
  const Var hand = hand_position(batch_of(g, {{0, M_PI / 2, 5, 5}, {M_PI / 2, 0, 0, 0}, {M_PI, -M_PI / 2, 0, 0}}), p);
  const double want[3][2] = {{0.30, 0.33}, {0.0, 0.63}, {-0.30, 0.33}};
  ASSERT_EQ(hand.shape(), (Shape{3, 2}));
  for (int n = 0; n < 3; ++n)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(hand.value().at(2 * n + j), want[n][j], 1e-15) << n << "," << j;
}

// At θ = 0, φ = π/2 the Jacobian is [-l2, -l2; l1, 0]: a push along +x at the hand turns both joints
// by -l2 F; a push along +y turns only the shoulder, by l1 F (the forearm points along it).
TEST(ArmPlant, HandForceActsThroughTheJacobianTranspose) {
  const ArmParams p;
  Graph g;
  const Var x = batch_of(g, {{0, M_PI / 2, 0, 0}, {0, M_PI / 2, 0, 0}});
  const Var tau = hand_force_torque(x, pairs_of(g, {{2, 0}, {0, 2}}), p);
  const double want[2][2] = {{-0.66, -0.66}, {0.60, 0.0}};
  for (int n = 0; n < 2; ++n)
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(tau.value().at(2 * n + j), want[n][j], 1e-15) << n << "," << j;
}

TEST(ArmPlant, FeedbackDelayShowsTheStateOfDelayStepsAgo) {
  Graph g;
  std::vector<Var> xs;
  for (int t = 0; t < 6; ++t) xs.push_back(batch_of(g, {{double(t), 0, 0, 0}}));
  FeedbackDelay late(2, xs[0]), now(0, xs[0]);
  for (int t = 0; t < 5; ++t) {
    EXPECT_EQ(late.observed(), xs[std::max(0, t - 2)]) << "t = " << t;
    EXPECT_EQ(now.observed(), xs[t]) << "t = " << t;
    late.push(xs[t + 1]);
    now.push(xs[t + 1]);
  }
}

// The inertia matrix's determinant a3 (a1 - a3) - a2² cos² φ stays positive even for an arm whose
// segments have no inertia about their centres of mass (point masses), which the
// joint-inertia formulation the thesis warns about (§6.6) can get wrong.
TEST(ArmPlant, InertiaMatrixIsPositiveDefiniteAtEveryElbowAngle) {
  for (ArmParams p : {ArmParams{}, ArmParams{.i1 = 0, .i2 = 0}}) {
    const ArmInertia k = arm_inertia(p);
    EXPECT_GT(k.a3 * (k.a1 - k.a3) - k.a2 * k.a2, 0);
    Graph g;
    std::vector<State> xs;
    for (int i = 0; i <= 64; ++i) xs.push_back({0, -M_PI + i * M_PI / 32, 0, 0});
    const Var shoulder_torque = g.input(Tensor::from({2}, std::vector<double>{1, 0}, DType::f64));
    const Var a = arm_acceleration(batch_of(g, xs), shoulder_torque, p, false);
    for (int64_t i = 0; i < a.value().size(); ++i) EXPECT_TRUE(std::isfinite(a.value().at(i)));
  }
  const ArmInertia k = arm_inertia({});  // Li & Todorov's a1, a2, a3 from their joint inertias
  EXPECT_NEAR(k.a1, 0.025 + 0.045 + 1.0 * 0.30 * 0.30, 1e-15);
  EXPECT_NEAR(k.a2, 1.0 * 0.30 * 0.16, 1e-15);
  EXPECT_NEAR(k.a3, 0.045, 1e-15);
}

// ---- gradients ------------------------------------------------------------------------------------

// Three unrolled steps as a function of the start state and the three torques, with the options on
// (noise draws fixed as data), through the hand position too: first and second order, float64.
TEST(ArmPlant, UnrolledStepsPassTheGradientCheckAtOrderTwo) {
  for (bool options_on : {false, true}) {
    ArmOptions o;
    if (options_on) {
      o.command_noise = 0.2;
      o.disturbance = {0.1, -0.3};
      o.hand_force = {0.5, 1.0};
      o.plant_noise = 0.01;
    } else {
      o.viscosity = false;
    }
    o.dt = 0.05;  // a larger step than the thesis's so that three steps move the arm visibly
    const check::Fn unrolled = [&](Graph& g, std::span<const Var> in) {
      ArmStepInputs extra;
      if (options_on) {
        extra.command_noise = pairs_of(g, {{0.5, -1.0}, {1.5, 0.3}});
        extra.plant_noise = batch_of(g, {{0.1, 0.2, -0.3, 0.4}, {-0.5, 0.6, 0.7, -0.8}});
      }
      Var x = in[0];
      for (int t = 1; t <= 3; ++t) x = arm_step(x, in[t], o, extra);
      return std::vector<Var>{x, hand_position(x, o.arm)};
    };
    const check::Report r =
        check::check_fn(unrolled, check::random_inputs({{2, 4}, {2, 2}, {2, 2}, {2, 2}}, -1.5, 1.5, 11));
    std::printf("options %s: worst %.1e (fd %.1e dot %.1e fd2 %.1e dot2 %.1e)\n", options_on ? "on" : "off",
                r.worst, r.fd1, r.dot1, r.fd2, r.dot2);
    EXPECT_TRUE(r.ok) << r.failure;
    EXPECT_EQ(r.primal_reevals, 0u);
  }
}

// ---- errors -------------------------------------------------------------------------------------

TEST(ArmPlant, BadArgumentsAreNamed) {
  using check::contains;
  using check::error_of;
  EXPECT_TRUE(contains(error_of([] { check_arm({.dt = 0}); }), "dt must be > 0"));
  EXPECT_TRUE(contains(error_of([] { check_arm({.arm = {.m2 = -1}}); }), "m2 must be > 0"));
  EXPECT_TRUE(contains(error_of([] { check_arm({.command_noise = -0.1}); }), "command_noise must be >= 0"));
  EXPECT_TRUE(contains(error_of([] { check_arm({.feedback_delay = -1}); }), "feedback_delay"));
  EXPECT_EQ(error_of([] { check_arm({}); }), "NO ERROR");
  Graph g;
  const Var x = batch_of(g, kStarts);
  const Var u = pairs_of(g, {{0, 0}, {0, 0}, {0, 0}});
  EXPECT_TRUE(contains(error_of([&] { arm_step(pairs_of(g, {{0, 0}}), u, {}); }), "state must be [N,4]"));
  EXPECT_TRUE(contains(error_of([&] { arm_step(x, pairs_of(g, {{0, 0}}), {}); }), "torque must be [N,2] or [2]"));
  EXPECT_TRUE(contains(error_of([&] { arm_step(x, u, {.command_noise = 0.1}); }), "needs the draws"));
  EXPECT_TRUE(contains(error_of([&] { arm_step(x, u, {.plant_noise = 0.1}); }), "needs the draws"));
}

}  // namespace
}  // namespace tg::models
