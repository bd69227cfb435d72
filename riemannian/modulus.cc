#include "riemannian/modulus.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::riemannian {

void unit_jacobian(const Family& f, const ParamSet& ps, const Trace& tr, int64_t t, double* J) {
  const auto& g = *f.graph;
  const double* sp = tr.sp.data() + t * f.N;
  const double* tau = ps.value(f.tau).data<double>() + (f.gated() ? tr.u[t] * f.E : 0);
  for (int64_t e = 0; e < f.E; ++e) {
    const int32_t i = g.src[e];
    J[e] = (f.leaky() && i == g.dst[e] ? 1.0 : 0.0) + tau[e] * sp[i];
  }
}

std::vector<double> output_variance(const Family& f, const ParamSet& ps, const double* pi) {
  const double* w = ps.value(f.w).data<double>();
  std::vector<double> v(f.N);
  for (int64_t i = 0; i < f.N; ++i) {
    double m1 = 0, m2 = 0;
    for (int64_t y = 0; y < f.O; ++y) {
      const double wy = w[i * f.O + y];
      m1 += pi[y] * wy;
      m2 += pi[y] * wy * wy;
    }
    v[i] = std::max(0.0, m2 - m1 * m1);
  }
  return v;
}

std::vector<double> modulus(const Family& f, const ParamSet& ps, const Trace& tr, Modulus kind) {
  const int64_t T = tr.T, N = f.N;
  std::vector<double> m((T + 1) * N, 0.0);
  if (kind == Modulus::ruop) {
    if (tr.B.empty()) throw InternalError("modulus: RUOP needs the adjoints B (Need::all)");
    for (size_t k = 0; k < m.size(); ++k) m[k] = tr.B[k] * tr.B[k];
    return m;
  }
  std::vector<double> J(f.E);
  for (int64_t s = T; s >= 0; --s) {
    double* ms = m.data() + s * N;
    if (s >= 1 && tr.chi[s - 1] != 0) {  // the output of step s-1 reads state s
      std::vector<double> var = output_variance(f, ps, tr.pi.data() + (s - 1) * f.O);
      const double* sp = tr.sp.data() + s * N;
      for (int64_t i = 0; i < N; ++i) ms[i] = sp[i] * sp[i] * tr.chi[s - 1] * var[i];
    }
    if (s < T) {
      unit_jacobian(f, ps, tr, s, J.data());
      const double* next = m.data() + (s + 1) * N;
      for (int64_t e = 0; e < f.E; ++e) ms[f.graph->src[e]] += J[e] * J[e] * next[f.graph->dst[e]];
    }
  }
  return m;
}

}  // namespace tg::riemannian
