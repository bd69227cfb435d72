// A model that is not in tapegrad's zoo, written against the installed library (docs/library.md):
// a leaky-integrator tanh RNN with a learned leak per unit,
//   u_t = x_t W + h_{t-1} U + b,   h_t = (1 - a) ⊙ h_{t-1} + a ⊙ tanh(u_t),   a = logistic(α),
//   y_t = h_t V + c,
// trained to continue a sum of two sine waves (its own data type, not the zoo's sequence batch) by
// Adam and by Hessian-free with structural damping. It also takes a Gauss-Newton and a Hessian
// product, and saves and loads a checkpoint. Exit code 0 only if both optimizers cut the loss and the
// checkpoint reads back bit for bit.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "core/checkpoint.h"
#include "core/graph.h"
#include "models/loss.h"  // structural_damping_head
#include "ops/ops.h"
#include "optim/first_order.h"
#include "optim/hf.h"
#include "optim/objective.h"
#include "tasks/data.h"

using namespace tg;

// The data: B waves of T steps; the input at step t is the wave's value, the target the next value.
struct Waves : tasks::Data {
  int64_t T = 0, B = 0;
  std::vector<double> values;  // [B, T + 1], row-major

  static Waves draw(int64_t B, int64_t T, Rng& rng) {
    std::uniform_real_distribution<double> phase(0, 2 * std::numbers::pi), freq(0.05, 0.25);
    Waves w;
    w.T = T;
    w.B = B;
    w.values.resize(static_cast<size_t>(B * (T + 1)));
    for (int64_t b = 0; b < B; ++b) {
      const double f1 = freq(rng), f2 = freq(rng), p1 = phase(rng), p2 = phase(rng);
      for (int64_t t = 0; t <= T; ++t)
        w.values[b * (T + 1) + t] = 0.5 * std::sin(f1 * t + p1) + 0.3 * std::sin(f2 * t + p2);
    }
    return w;
  }
  // [B, 1] column of step t (offset 0: inputs, offset 1: targets).
  Tensor column(int64_t t, DType dt) const {
    std::vector<double> col(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) col[b] = values[b * (T + 1) + t];
    return Tensor::from({B, 1}, col, dt);
  }

  int64_t size() const override { return B; }
  std::unique_ptr<Data> slice(int64_t first, int64_t count) const override {
    if (first < 0 || count < 0 || first + count > B) throw Error("waves: slice out of range");
    auto w = std::make_unique<Waves>();
    w->T = T;
    w->B = count;
    w->values.assign(values.begin() + first * (T + 1), values.begin() + (first + count) * (T + 1));
    return w;
  }
  std::unique_ptr<Data> clone() const override { return std::make_unique<Waves>(*this); }
  bool same_as(const Data& other) const override {
    const auto* o = dynamic_cast<const Waves*>(&other);
    return o && o->T == T && o->B == B && o->values == values;
  }
  std::string describe() const override { return std::to_string(B) + " waves of " + std::to_string(T) + " steps"; }
};

struct LeakyRnn {
  ParamSet ps{DType::f64};
  ParamId W, U, b, alpha, V, c;
  explicit LeakyRnn(int64_t H, Rng& rng) {
    W = ps.add("W", {1, H}, init::normal(0.5), &rng);
    U = ps.add("U", {H, H}, init::normal(1.0 / std::sqrt(static_cast<double>(H))), &rng);
    b = ps.add("b", {H}, init::zeros());
    alpha = ps.add("alpha", {H}, init::constant(0.0));  // leak 0.5 to start
    V = ps.add("V", {H, 1}, init::normal(0.1), &rng);
    c = ps.add("c", {1}, init::zeros());
  }

  // The graph of one batch: the loss (squared error on the second half of the steps) and the blocks
  // HF needs, named: Gauss-Newton at the outputs, structural damping at the pre-activations.
  optim::Built build(Graph& g, const Waves& w) const {
    const DType dt = ps.dtype();
    const int64_t H = ps.shape(U)[0];
    Var a = ops::logistic(g[alpha]);
    Var h = ops::fill(g, {w.B, H}, 0.0, dt);
    std::vector<Var> outputs, preacts;
    Var loss;
    for (int64_t t = 0; t < w.T; ++t) {
      Var u = ops::add(ops::add(ops::matmul(g.input(w.column(t, dt)), g[W]), ops::matmul(h, g[U])), g[b]);
      h = ops::add(ops::mul(ops::sub(ops::ones_like(a), a), h), ops::mul(a, ops::tanh(u)));
      Var y = ops::add(ops::matmul(h, g[V]), g[c]);
      preacts.push_back(u);
      if (t >= w.T / 2) {
        outputs.push_back(y);
        loss = ops::add(loss, losses::squared_error(y, g.input(w.column(t + 1, dt))));
      }
    }
    loss = ops::scale(loss, 1.0 / static_cast<double>(outputs.size()));
    return optim::Built{
        .loss = loss,
        .curvature = ad::Block{.at = outputs, .head = loss},
        .structural = ad::Block{.at = preacts, .head = models::structural_damping_head(g, "tanh", preacts, {}, 0,
                                                                                      1.0 / static_cast<double>(w.B))},
        .outputs = outputs};
  }
};

int main() {
  Rng rng(7);
  LeakyRnn model(16, rng);
  // The builder is written for Waves; the objective checks the data type it is handed.
  optim::GraphObjective objective(model.ps, [&model](Graph& g, const Waves& w) { return model.build(g, w); });
  const Waves test = Waves::draw(200, 40, rng);
  const ParamVec theta0 = objective.params().values().clone();
  const double loss0 = objective.value(theta0, test);
  std::printf("initial test loss %.5f\n", loss0);

  // Adam: a fresh batch every step.
  auto adam = optim::make_first_order("adam", {{"lr", 0.01}});
  ParamVec theta_adam = theta0.clone();
  for (int step = 0; step < 300; ++step) adam->step(objective, theta_adam, Waves::draw(32, 40, rng));
  const double loss_adam = objective.value(theta_adam, test);
  std::printf("adam, 300 steps:  test loss %.5f\n", loss_adam);

  // Hessian-free with structural damping: CG on G + λ(I + μ G_S) over a curvature batch.
  optim::HfConfig cfg;
  cfg.lambda = 1.0;
  cfg.mu = 0.03;
  cfg.max_cg = 50;
  optim::HessianFree hf(cfg);
  ParamVec theta_hf = theta0.clone();
  for (int iter = 0; iter < 15; ++iter) {
    const Waves batch = Waves::draw(256, 40, rng);
    const auto curvature = batch.slice(0, 64);
    const optim::HfStats s = hf.step(objective, theta_hf, batch, *curvature);
    std::printf("hf iteration %2d: loss %.5f -> %.5f  lambda %.3g  cg %d\n", iter, s.loss, s.new_loss, s.lambda, s.cg_iters);
  }
  const double loss_hf = objective.value(theta_hf, test);
  std::printf("hf, 15 iterations: test loss %.5f\n", loss_hf);

  // Curvature products at the HF solution, from one linearization.
  auto ev = objective.evaluate(theta_hf, test);
  ParamVec v = ParamVec::random_normal(theta_hf.layout(), DType::f64, rng);
  const double vGv = v.dot(ev->gnvp(v)), vHv = v.dot(ev->hvp(v)), vGsv = v.dot(ev->structural_gnvp(v));
  std::printf("v'Gv %.5g  v'Hv %.5g  v'G_S v %.5g (Gauss-Newton and G_S are PSD: >= 0)\n", vGv, vHv, vGsv);

  // A checkpoint: the parameters as param/<name> arrays (numpy-readable), plus the iteration count.
  ParamSet trained = objective.params();
  trained.set_values(theta_hf);
  save_parameters("leaky_rnn.npz", trained, {NpzEntry("iteration", std::vector<int64_t>{15})});
  ParamSet loaded = model.ps;
  load_parameters("leaky_rnn.npz", loaded);
  const bool same = std::memcmp(loaded.values().flat().raw(), theta_hf.flat().raw(),
                                static_cast<size_t>(theta_hf.size()) * sizeof(double)) == 0;
  std::printf("checkpoint leaky_rnn.npz read back %s\n", same ? "bit for bit" : "DIFFERENT");

  const bool ok = loss_adam < 0.5 * loss0 && loss_hf < 0.5 * loss0 && vGv >= 0 && vGsv >= 0 && same;
  std::printf("%s\n", ok ? "example passed" : "example FAILED");
  return ok ? 0 : 1;
}
