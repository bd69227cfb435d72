#include "models/rbm.h"

#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "ops/ops.h"
#include "ops/sample.h"

namespace tg::models::rbm {

RbmParams add_params(ParamSet& ps, int64_t V, int64_t H, double scale, Rng& rng) {
  RbmParams p;
  p.W = ps.add("W", {V, H}, tg::init::normal(scale), &rng);
  p.b = ps.add("b", {V}, tg::init::zeros());
  p.c = ps.add("c", {H}, tg::init::zeros());
  return p;
}

Rbm bind(Graph& g, const RbmParams& p, bool gaussian, double sigma) {
  return Rbm{.W = g[p.W], .b = g[p.b], .c = g[p.c], .c_dyn = {}, .b_dyn = {}, .gaussian = gaussian, .sigma = sigma};
}

Var hidden_input(const Rbm& m, Var v) {
  Var x = ops::add(ops::matmul(v, m.W), m.c);
  return m.c_dyn.empty() ? x : ops::add(x, m.c_dyn);
}

Var hidden_probs(const Rbm& m, Var v) { return ops::logistic(hidden_input(m, v)); }

Var visible_input(const Rbm& m, Var h) {
  Var x = ops::add(ops::matmul(h, m.W, false, true), m.b);  // b + W h, row-wise
  return m.b_dyn.empty() ? x : ops::add(x, m.b_dyn);
}

Var visible_mean(const Rbm& m, Var h) {
  Var x = visible_input(m, h);
  return m.gaussian ? ops::scale(x, m.sigma * m.sigma) : ops::logistic(x);
}

Var free_energy(const Rbm& m, Var v) {
  Var vb = ops::sum(ops::mul(v, m.b), 1);
  if (!m.b_dyn.empty()) vb = ops::add(vb, ops::sum(ops::mul(v, m.b_dyn), 1));
  Var f = ops::neg(ops::add(vb, ops::sum(ops::softplus(hidden_input(m, v)), 1)));
  if (m.gaussian) f = ops::add(f, ops::scale(ops::sum(ops::square(v), 1), 0.5 / (m.sigma * m.sigma)));
  return f;
}

Var sample_hidden(const Rbm& m, Var v, Rng& rng) { return ops::sample_bernoulli(hidden_probs(m, v), rng); }

Var sample_visible(const Rbm& m, Var h, Rng& rng) {
  Var mu = visible_mean(m, h);
  return m.gaussian ? ops::sample_gaussian(mu, rng, m.sigma) : ops::sample_bernoulli(mu, rng);
}

ChainEnd run_chain(const Rbm& m, const Tensor& v0, int k, Rng& rng, bool last_visible) {
  ChainEnd end{v0, {}};
  for (int s = 0; s < k; ++s) {
    Graph g;
    auto copy = [&g](const Var& x) { return x.empty() ? Var{} : g.input(x.value()); };
    Rbm step = m;
    step.W = copy(m.W), step.b = copy(m.b), step.c = copy(m.c), step.c_dyn = copy(m.c_dyn), step.b_dyn = copy(m.b_dyn);
    Var h = sample_hidden(step, g.input(end.v), rng);
    end.h = h.value();
    if (s + 1 < k || last_visible) end.v = sample_visible(step, h, rng).value();
  }
  return end;
}

Var gibbs(const Rbm& m, Var v0, int k, Rng& rng) {
  return m.W.graph()->input(run_chain(m, v0.value(), k, rng).v);
}

Var cd_loss_given(const Rbm& m, Var v_data, Var v_neg) {
  return ops::mean(ops::sub(free_energy(m, v_data), free_energy(m, ops::stop_gradient(v_neg))));
}

Var cd_loss(const Rbm& m, Var v_data, int k, Rng& rng, Var* v_k_out) {
  Var vk = gibbs(m, v_data, k, rng);
  if (v_k_out) *v_k_out = vk;
  return cd_loss_given(m, v_data, vk);
}

namespace {
// The 2^V binary visible states as rows [2^V, V] (state s has bit i of s in column i), for enumeration.
Var all_binary_states(const Rbm& m) {
  const int64_t V = m.W.shape()[0], S = int64_t{1} << V;
  std::vector<double> all(static_cast<size_t>(S * V));
  for (int64_t s = 0; s < S; ++s)
    for (int64_t i = 0; i < V; ++i) all[s * V + i] = (s >> i) & 1;
  return m.W.graph()->input(Tensor::from({S, V}, all, m.W.dtype()));
}
}  // namespace

Var log_partition(const Rbm& m) {
  if (m.gaussian || !m.c_dyn.empty() || !m.b_dyn.empty())
    throw Error("rbm::log_partition: binary RBM without dynamic biases only");
  const int64_t V = m.W.shape()[0];
  if (V > 20) throw Error("rbm::log_partition: V > 20 visible units");
  return ops::logsumexp(ops::neg(free_energy(m, all_binary_states(m))), 0);
}

Var row_log_likelihood(const Rbm& m, Var v) {
  if (m.gaussian) throw Error("rbm::row_log_likelihood: binary visibles only");
  const int64_t V = m.W.shape()[0], N = v.shape()[0];
  if (V > 16) throw Error("rbm::row_log_likelihood: V > 16 visible units");
  // every row n has its own partition function (its own dynamic biases): the 2^V states are scored
  // against row n's biases, broadcast to all of them
  const Var states = all_binary_states(m);
  const int64_t S = states.shape()[0];
  std::vector<Var> logz;
  for (int64_t n = 0; n < N; ++n) {
    Rbm row = m;
    if (!m.c_dyn.empty()) row.c_dyn = ops::broadcast_to(ops::slice(m.c_dyn, 0, n, n + 1), {S, m.c_dyn.shape()[1]});
    if (!m.b_dyn.empty()) row.b_dyn = ops::broadcast_to(ops::slice(m.b_dyn, 0, n, n + 1), {S, V});
    logz.push_back(ops::reshape(ops::logsumexp(ops::neg(free_energy(row, states)), 0), {1}));
  }
  return ops::sub(ops::neg(free_energy(m, v)), ops::concat(logz, 0));
}

Var mean_log_likelihood(const Rbm& m, Var v) {
  return ops::sub(ops::neg(ops::mean(free_energy(m, v))), log_partition(m));
}

}  // namespace tg::models::rbm
