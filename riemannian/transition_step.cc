#include "riemannian/transition_step.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "riemannian/metric_blocks.h"
#include "riemannian/modulus.h"
#include "riemannian/quasi_diagonal.h"
#include "riemannian/spd_solve.h"

namespace tg::riemannian {

namespace {
const std::pair<TransitionMethod, const char*> kNames[] = {
    {TransitionMethod::rbpm, "rbpm"},       {TransitionMethod::ruop, "ruop"}, {TransitionMethod::qd_rbpm, "qd-rbpm"},
    {TransitionMethod::qd_ruop, "qd-ruop"}, {TransitionMethod::fb, "fb"},     {TransitionMethod::rms, "rms"},
    {TransitionMethod::bptt, "bptt"}};

std::vector<int32_t> transition_parts(const Family& f) {
  std::vector<int32_t> p = {f.tau.index, f.tau0.index};
  if (f.kind == Kind::rnn) p.push_back(f.rho.index);
  if (f.has_start) p.push_back(f.start.index);
  return p;
}

// Gradient rescaling baselines: fb, bptt, rms.
ParamVec first_order(const Family& f, const ParamSet& ps, const ParamVec& grad, const TransitionMetric& m,
                     TransitionMethod method, RmsState* rms) {
  ParamVec D = ps.zeros_like();
  const double T = static_cast<double>(m.steps);
  if (method == TransitionMethod::rms) {
    if (!rms) throw InternalError("transition_direction: rms needs its state");
    if (rms->r.size() == 0) {
      rms->r = ps.zeros_like();
      for (int32_t p : transition_parts(f)) {
        const Tensor g = grad.part(p);
        Tensor r = rms->r.part(p);
        for (int64_t k = 0; k < g.size(); ++k) r.data<double>()[k] = g.at(k) * g.at(k);
      }
    }
    for (int32_t p : transition_parts(f)) {
      const Tensor g = grad.part(p);
      double* r = rms->r.part(p).data<double>();
      double* d = D.part(p).data<double>();
      for (int64_t k = 0; k < g.size(); ++k) {
        r[k] = 0.9 * r[k] + 0.1 * g.at(k) * g.at(k);
        d[k] = r[k] > 0 ? g.at(k) / std::sqrt(r[k]) : 0.0;
      }
    }
    return D;
  }
  const std::vector<double>& count = m.input_count;
  auto per_symbol = [&](int32_t p, int64_t row) {  // a [A, row] parameter
    const double* g = grad.part(p).data<double>();
    double* d = D.part(p).data<double>();
    for (int64_t y = 0; y < f.A; ++y)
      for (int64_t k = 0; k < row; ++k)
        d[y * row + k] = method == TransitionMethod::fb ? (count[y] > 0 ? g[y * row + k] / count[y] : 0.0)
                                                        : g[y * row + k] / T;
  };
  auto plain = [&](int32_t p, double scale) {
    const Tensor g = grad.part(p);
    double* d = D.part(p).data<double>();
    for (int64_t k = 0; k < g.size(); ++k) d[k] = g.at(k) * scale;
  };
  if (f.gated()) {
    per_symbol(f.tau.index, f.E);
    per_symbol(f.tau0.index, f.N);
  } else {
    plain(f.tau.index, 1 / T);
    plain(f.tau0.index, 1 / T);
    per_symbol(f.rho.index, f.N);
  }
  if (f.has_start) plain(f.start.index, 1.0);
  return D;
}
}  // namespace

TransitionMethod transition_method(const std::string& name) {
  for (auto [m, n] : kNames)
    if (name == n) return m;
  throw Error(fmt::format("transition method '{}' is not one of rbpm, ruop, qd-rbpm, qd-ruop, fb, rms, bptt", name));
}

std::string name_of(TransitionMethod m) {
  for (auto [k, n] : kNames)
    if (k == m) return n;
  return "?";
}

TransitionMetric transition_metric(const Family& f, TransitionMethod method) {
  TransitionMetric m;
  m.method = method;
  if (method == TransitionMethod::rbpm || method == TransitionMethod::ruop) m.blocks = zero_full_blocks(f);
  if (method == TransitionMethod::qd_rbpm || method == TransitionMethod::qd_ruop) m.qd = zero_quasi_diagonal(f);
  m.c0.assign(f.N, 0.0);
  m.input_count.assign(f.A, 0.0);
  return m;
}

void add_transition_metric(const Family& f, const ParamSet& ps, const Trace& tr, TransitionMetric& m) {
  if (tr.B.empty()) throw InternalError("transition metric: the trace has no adjoints (Need::all)");
  for (int32_t x : tr.u) m.input_count[x] += 1;
  m.steps += tr.T;
  const TransitionMethod method = m.method;
  if (method == TransitionMethod::fb || method == TransitionMethod::bptt || method == TransitionMethod::rms) return;
  const bool rbpm = method == TransitionMethod::rbpm || method == TransitionMethod::qd_rbpm;
  const std::vector<double> c = modulus(f, ps, tr, rbpm ? Modulus::rbpm : Modulus::ruop);
  if (method == TransitionMethod::rbpm || method == TransitionMethod::ruop)
    add_full_blocks(f, tr, c, m.blocks);
  else
    add_quasi_diagonal(f, tr, c, m.qd);
  for (int64_t j = 0; j < f.N; ++j) m.c0[j] += c[j];
}

ParamVec transition_direction(const Family& f, const ParamSet& ps, const Trace& tr, TransitionMethod method,
                              double eps, RmsState* rms) {
  if (tr.B.empty()) throw InternalError("transition_direction: the trace has no adjoints (Need::all)");
  TransitionMetric m = transition_metric(f, method);
  add_transition_metric(f, ps, tr, m);
  return transition_direction(f, ps, tr.grad, std::move(m), eps, rms);
}

ParamVec transition_direction(const Family& f, const ParamSet& ps, const ParamVec& grad, TransitionMetric metric,
                              double eps, RmsState* rms) {
  const TransitionMethod method = metric.method;
  if (method == TransitionMethod::fb || method == TransitionMethod::bptt || method == TransitionMethod::rms)
    return first_order(f, ps, grad, metric, method, rms);
  if (!(eps > 0)) throw Error(fmt::format("transition step: damping eps = {} must be > 0", eps));
  const std::vector<double>& c0 = metric.c0;
  const int64_t N = f.N, E = f.E, A = f.A;
  ParamVec D = ps.zeros_like();
  const double* Gt = grad.part(f.tau.index).data<double>();
  const double* G0 = grad.part(f.tau0.index).data<double>();
  double* Dt = D.part(f.tau.index).data<double>();
  double* D0 = D.part(f.tau0.index).data<double>();
  std::vector<double> G, M0, Md, X;

  if (method == TransitionMethod::rbpm || method == TransitionMethod::ruop) {
    FullBlocks& blocks = metric.blocks;
    finish_full_blocks(f, blocks, eps);
    for (int32_t y = 0; y < A; ++y)
      for (int64_t j = 0; j < N; ++j) {
        const int64_t e0 = f.first_in[j], n = 1 + f.first_in[j + 1] - e0;
        G.resize(n);
        G[0] = G0[y * N + j];
        for (int64_t k = 1; k < n; ++k) G[k] = Gt[y * E + e0 + k - 1];
        spd_solve(n, blocks.at(f, y, j), G.data(), "transition step");
        D0[y * N + j] = G[0];
        for (int64_t k = 1; k < n; ++k) Dt[y * E + e0 + k - 1] = G[k];
      }
  } else {
    QuasiDiagonal& q = metric.qd;
    finish_quasi_diagonal(q, eps);
    if (f.gated()) {
      for (int64_t y = 0; y < A; ++y)
        for (int64_t j = 0; j < N; ++j) {
          const int64_t e0 = f.first_in[j], k = f.first_in[j + 1] - e0;
          G.resize(k + 1);
          X.resize(k + 1);
          G[0] = G0[y * N + j];
          for (int64_t i = 0; i < k; ++i) G[i + 1] = Gt[y * E + e0 + i];
          quasi_diagonal_solve(k, G.data(), q.M00[y * N + j], q.M0.data() + y * E + e0, q.Md.data() + y * E + e0,
                               X.data());
          D0[y * N + j] = X[0];
          for (int64_t i = 0; i < k; ++i) Dt[y * E + e0 + i] = X[i + 1];
        }
    } else {  // signals of unit j: bias, edges into j, then the A input indicators (rho[., j])
      const double* Gr = grad.part(f.rho.index).data<double>();
      double* Dr = D.part(f.rho.index).data<double>();
      for (int64_t j = 0; j < N; ++j) {
        const int64_t e0 = f.first_in[j], k = f.first_in[j + 1] - e0;
        G.assign(1 + k + A, 0.0);
        X.assign(1 + k + A, 0.0);
        M0.assign(k + A, 0.0);
        Md.assign(k + A, 0.0);
        G[0] = G0[j];
        for (int64_t i = 0; i < k; ++i) {
          G[1 + i] = Gt[e0 + i];
          M0[i] = q.M0[e0 + i];
          Md[i] = q.Md[e0 + i];
        }
        for (int64_t y = 0; y < A; ++y) {
          G[1 + k + y] = Gr[y * N + j];
          M0[k + y] = q.M0y[y * N + j];
          Md[k + y] = q.M0y[y * N + j] + eps;
        }
        quasi_diagonal_solve(k + A, G.data(), q.M00[j], M0.data(), Md.data(), X.data());
        D0[j] = X[0];
        for (int64_t i = 0; i < k; ++i) Dt[e0 + i] = X[1 + i];
        for (int64_t y = 0; y < A; ++y) Dr[y * N + j] = X[1 + k + y];
      }
    }
  }
  if (f.has_start) {  // (29): the start values as a tau with a dummy start symbol and the bias signal only
    const double* Gs = grad.part(f.start.index).data<double>();
    double* Ds = D.part(f.start.index).data<double>();
    for (int64_t j = 0; j < N; ++j) Ds[j] = Gs[j] / (c0[j] + eps);
  }
  return D;
}

}  // namespace tg::riemannian
