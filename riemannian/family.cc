#include "riemannian/family.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::riemannian {

namespace {
ParamId need(const ParamSet& ps, const std::string& name) {
  auto id = ps.find(name);
  if (!id) throw Error(fmt::format("riemannian: the model has no parameter '{}'", name));
  return *id;
}
}  // namespace

Family Family::of(const models::Model& m) {
  const auto* gm = dynamic_cast<const models::ollivier::GraphModel*>(&m);
  if (!gm) throw Error(fmt::format("riemannian: model '{}' is not one of glnn, gnn, ollivier_rnn", m.kind()));
  if (!m.io().symbolic()) throw Error("riemannian: the model must read symbols (vocab > 0), not dense inputs");
  const ParamSet& ps = m.params();
  if (ps.dtype() != DType::f64) throw Error("riemannian: the model must be float64");
  Family f;
  const std::string& k = m.kind();
  f.kind = k == "glnn" ? Kind::glnn : k == "gnn" ? Kind::gnn : Kind::rnn;
  f.graph = &gm->graph();
  f.N = f.graph->n;
  f.E = f.graph->edges();
  f.A = m.io().vocab;
  f.O = m.io().out;
  f.w = need(ps, k + "/w");
  f.w0 = need(ps, k + "/w0");
  f.tau = need(ps, k + "/tau");
  f.tau0 = need(ps, k + "/tau0");
  if (f.kind == Kind::rnn) f.rho = need(ps, k + "/rho");
  auto start = ps.find(k + (f.kind == Kind::glnn ? "/V0" : "/a0"));
  f.has_start = start.has_value();
  if (start) f.start = *start;
  f.first_in.assign(f.N + 1, 0);
  for (int64_t e = 0; e < f.E; ++e) f.first_in[f.graph->dst[e] + 1]++;
  for (int64_t j = 0; j < f.N; ++j) f.first_in[j + 1] += f.first_in[j];
  return f;
}

}  // namespace tg::riemannian
