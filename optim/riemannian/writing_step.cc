#include "optim/riemannian/writing_step.h"

#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "optim/riemannian/quasi_diagonal.h"

namespace tg::optim::riemannian {

WritingMethod writing_method(const std::string& name) {
  if (name == "qdh") return WritingMethod::qdh;
  if (name == "dh") return WritingMethod::dh;
  throw Error(fmt::format("writing method '{}' is not one of qdh, dh", name));
}

std::vector<double> writing_damping(const Trace& tr) {
  std::vector<double> eps(tr.O, 0.0);
  for (int64_t t = 0; t < tr.T; ++t) eps[tr.y[t]] += 1.0 / static_cast<double>(tr.T);
  for (double& e : eps) e += std::numeric_limits<double>::epsilon();
  return eps;
}

ParamVec writing_direction(const Family& f, const ParamSet& ps, const Trace& tr, WritingMethod method,
                           const std::vector<double>& eps_y) {
  if (tr.grad.size() == 0) throw InternalError("writing_direction: the trace has no gradient");
  const int64_t N = f.N, O = f.O;
  // h00[y], h0[i y], hd[i y]
  std::vector<double> h00(eps_y), h0(N * O, 0.0), hd(N * O, 0.0);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t y = 0; y < O; ++y) hd[i * O + y] = eps_y[y];
  std::vector<double> q(O);
  for (int64_t t = 0; t < tr.T; ++t) {
    if (tr.chi[t] == 0) continue;
    const double* p = tr.pi.data() + t * O;
    const double* a = tr.a_at(t + 1);
    for (int64_t y = 0; y < O; ++y) {
      q[y] = tr.chi[t] * p[y] * (1 - p[y]);
      h00[y] += q[y];
    }
    for (int64_t i = 0; i < N; ++i) {
      const double ai = a[i];
      double* r0 = h0.data() + i * O;
      double* rd = hd.data() + i * O;
      for (int64_t y = 0; y < O; ++y) {
        r0[y] += ai * q[y];
        rd[y] += ai * ai * q[y];
      }
    }
  }
  ParamVec D = ps.zeros_like();
  const double* W = tr.grad.part(f.w.index).data<double>();
  const double* W0 = tr.grad.part(f.w0.index).data<double>();
  double* Dw = D.part(f.w.index).data<double>();
  double* Dw0 = D.part(f.w0.index).data<double>();
  if (method == WritingMethod::dh) {
    for (int64_t y = 0; y < O; ++y) Dw0[y] = W0[y] / h00[y];
    for (int64_t k = 0; k < N * O; ++k) Dw[k] = W[k] / hd[k];
    return D;
  }
  std::vector<double> G(N + 1), M0(N), Md(N), X(N + 1);
  for (int64_t y = 0; y < O; ++y) {
    G[0] = W0[y];
    for (int64_t i = 0; i < N; ++i) {
      G[i + 1] = W[i * O + y];
      M0[i] = h0[i * O + y];
      Md[i] = hd[i * O + y];
    }
    quasi_diagonal_solve(N, G.data(), h00[y], M0.data(), Md.data(), X.data());
    Dw0[y] = X[0];
    for (int64_t i = 0; i < N; ++i) Dw[i * O + y] = X[i + 1];
  }
  return D;
}

}  // namespace tg::optim::riemannian
