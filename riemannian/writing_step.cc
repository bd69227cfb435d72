#include "riemannian/writing_step.h"

#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "riemannian/quasi_diagonal.h"

namespace tg::riemannian {

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

std::vector<double> writing_damping(const tasks::Batch& seq, int64_t O) {
  if (seq.size() != 1) throw Error(fmt::format("riemannian: one training sequence expected, got a batch of {}", seq.size()));
  std::vector<double> eps(O, 0.0);
  const int64_t T = seq.steps();
  for (int64_t t = 0; t < T; ++t) eps[(*seq.targets.symbols[t])[0]] += 1.0 / static_cast<double>(T);
  for (double& e : eps) e += std::numeric_limits<double>::epsilon();
  return eps;
}

WritingCurvature writing_curvature(const Family& f, const std::vector<double>& eps_y) {
  const int64_t N = f.N, O = f.O;
  WritingCurvature h;
  h.h00 = eps_y;
  h.h0.assign(N * O, 0.0);
  h.hd.assign(N * O, 0.0);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t y = 0; y < O; ++y) h.hd[i * O + y] = eps_y[y];
  return h;
}

void add_writing_curvature(const Family& f, const Trace& tr, WritingCurvature& h) {
  const int64_t N = f.N, O = f.O;
  std::vector<double> q(O);
  for (int64_t t = 0; t < tr.T; ++t) {
    if (tr.chi[t] == 0) continue;
    const double* p = tr.pi.data() + t * O;
    const double* a = tr.a_at(t + 1);
    for (int64_t y = 0; y < O; ++y) {
      q[y] = tr.chi[t] * p[y] * (1 - p[y]);
      h.h00[y] += q[y];
    }
    for (int64_t i = 0; i < N; ++i) {
      const double ai = a[i];
      double* r0 = h.h0.data() + i * O;
      double* rd = h.hd.data() + i * O;
      for (int64_t y = 0; y < O; ++y) {
        r0[y] += ai * q[y];
        rd[y] += ai * ai * q[y];
      }
    }
  }
}

ParamVec writing_direction(const Family& f, const ParamSet& ps, const Trace& tr, WritingMethod method,
                           const std::vector<double>& eps_y) {
  if (tr.grad.size() == 0) throw InternalError("writing_direction: the trace has no gradient");
  WritingCurvature h = writing_curvature(f, eps_y);
  add_writing_curvature(f, tr, h);
  return writing_direction(f, ps, tr.grad, h, method);
}

ParamVec writing_direction(const Family& f, const ParamSet& ps, const ParamVec& grad, const WritingCurvature& h,
                           WritingMethod method) {
  if (grad.size() == 0) throw InternalError("writing_direction: no gradient");
  const int64_t N = f.N, O = f.O;
  const std::vector<double>&h00 = h.h00, &h0 = h.h0, &hd = h.hd;
  ParamVec D = ps.zeros_like();
  const double* W = grad.part(f.w.index).data<double>();
  const double* W0 = grad.part(f.w0.index).data<double>();
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

}  // namespace tg::riemannian
