#include "models/gated_autoencoder.h"

#include <cmath>

#include "ops/ops.h"

namespace tg::models {

GaeLayer add_gae_layer(ParamSet& ps, const std::string& scope, int64_t in, int64_t factors, int64_t mappings,
                       bool biases, double init_scale, Rng& rng) {
  GaeLayer l;
  l.in = in, l.factors = factors, l.mappings = mappings, l.biases = biases;
  const double filter_std = init_scale / std::sqrt(static_cast<double>(in));
  l.U = ps.add(scope + "/U", {factors, in}, init::normal(filter_std), &rng);
  l.V = ps.add(scope + "/V", {factors, in}, init::normal(filter_std), &rng);
  l.W = ps.add(scope + "/W", {mappings, factors}, init::normal(init_scale / std::sqrt(static_cast<double>(factors))), &rng);
  if (biases) {
    l.b_m = ps.add(scope + "/b_m", {mappings}, init::constant(-2.0));
    l.b_out = ps.add(scope + "/b_out", {in}, init::zeros());
  }
  return l;
}

Var gae_preactivation(Graph& g, const GaeLayer& l, Var x, Var y) {
  const Var factors = ops::mul(ops::matmul(x, g[l.U], false, true), ops::matmul(y, g[l.V], false, true));
  const Var u = ops::matmul(factors, g[l.W], false, true);
  return l.biases ? ops::add(u, g[l.b_m]) : u;
}

Var gae_mappings(Graph& g, const GaeLayer& l, Var x, Var y) { return ops::logistic(gae_preactivation(g, l, x, y)); }

Var gae_forward(Graph& g, const GaeLayer& l, Var x, Var m) {
  const Var y = ops::matmul(ops::mul(ops::matmul(x, g[l.U], false, true), ops::matmul(m, g[l.W])), g[l.V]);
  return l.biases ? ops::add(y, g[l.b_out]) : y;
}

Var gae_backward(Graph& g, const GaeLayer& l, Var y, Var m) {
  const Var x = ops::matmul(ops::mul(ops::matmul(y, g[l.V], false, true), ops::matmul(m, g[l.W])), g[l.U]);
  return l.biases ? ops::add(x, g[l.b_out]) : x;
}

}  // namespace tg::models
