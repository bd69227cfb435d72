#include "riemannian/metric_blocks.h"

#include "core/error.h"

namespace tg::riemannian {

FullBlocks zero_full_blocks(const Family& f) {
  if (!f.gated()) throw Error("full RUOP/RBPM blocks need a gated model (glnn, gnn): use qd-ruop / qd-rbpm for the RNN");
  const int64_t N = f.N, A = f.A;
  FullBlocks b;
  b.offset.resize(A * N);
  int64_t total = 0;
  for (int64_t y = 0; y < A; ++y)
    for (int64_t j = 0; j < N; ++j) {
      const int64_t n = 1 + f.first_in[j + 1] - f.first_in[j];
      b.offset[y * N + j] = total;
      total += n * n;
    }
  b.data.assign(total, 0.0);
  return b;
}

void add_full_blocks(const Family& f, const Trace& tr, const std::vector<double>& c, FullBlocks& b) {
  const int64_t N = f.N;
  std::vector<double> v;
  const auto& src = f.graph->src;
  for (int64_t t = 0; t < tr.T; ++t) {
    const int32_t y = tr.u[t];
    const double* a = tr.a_at(t);
    const double* cj = c.data() + (t + 1) * N;
    for (int64_t j = 0; j < N; ++j) {
      const double w = cj[j];
      if (w == 0) continue;
      const int64_t e0 = f.first_in[j], n = 1 + f.first_in[j + 1] - e0;
      v.resize(n);
      v[0] = 1;
      for (int64_t k = 1; k < n; ++k) v[k] = a[src[e0 + k - 1]];
      double* M = b.at(f, y, j);
      for (int64_t k = 0; k < n; ++k) {
        const double wk = w * v[k];
        for (int64_t l = k; l < n; ++l) M[k * n + l] += wk * v[l];
      }
    }
  }
}

void finish_full_blocks(const Family& f, FullBlocks& b, double eps) {
  for (int64_t y = 0; y < f.A; ++y)
    for (int64_t j = 0; j < f.N; ++j) {
      const int64_t n = 1 + f.first_in[j + 1] - f.first_in[j];
      double* M = b.at(f, static_cast<int32_t>(y), j);
      for (int64_t k = 0; k < n; ++k) {
        M[k * n + k] += eps;
        for (int64_t l = k + 1; l < n; ++l) M[l * n + k] = M[k * n + l];
      }
    }
}

FullBlocks full_blocks(const Family& f, const Trace& tr, const std::vector<double>& c, double eps) {
  FullBlocks b = zero_full_blocks(f);
  add_full_blocks(f, tr, c, b);
  finish_full_blocks(f, b, eps);
  return b;
}

QuasiDiagonal zero_quasi_diagonal(const Family& f) {
  const int64_t N = f.N, E = f.E, A = f.A;
  const bool gated = f.gated();
  QuasiDiagonal q;
  q.M00.assign(gated ? A * N : N, 0.0);
  q.M0.assign(gated ? A * E : E, 0.0);
  q.Md.assign(gated ? A * E : E, 0.0);
  if (!gated) q.M0y.assign(A * N, 0.0);
  return q;
}

void add_quasi_diagonal(const Family& f, const Trace& tr, const std::vector<double>& c, QuasiDiagonal& q) {
  const int64_t N = f.N, E = f.E;
  const bool gated = f.gated();
  const auto& src = f.graph->src;
  const auto& dst = f.graph->dst;
  for (int64_t t = 0; t < tr.T; ++t) {
    const int32_t y = tr.u[t];
    const double* a = tr.a_at(t);
    const double* cj = c.data() + (t + 1) * N;
    double* M00 = q.M00.data() + (gated ? y * N : 0);
    double* M0 = q.M0.data() + (gated ? y * E : 0);
    double* Md = q.Md.data() + (gated ? y * E : 0);
    for (int64_t j = 0; j < N; ++j) M00[j] += cj[j];
    if (!gated)
      for (int64_t j = 0; j < N; ++j) q.M0y[y * N + j] += cj[j];
    for (int64_t e = 0; e < E; ++e) {
      const double w = cj[dst[e]] * a[src[e]];
      M0[e] += w;
      Md[e] += w * a[src[e]];
    }
  }
}

void finish_quasi_diagonal(QuasiDiagonal& q, double eps) {
  for (double& x : q.M00) x += eps;
  for (double& x : q.Md) x += eps;
}

QuasiDiagonal quasi_diagonal_parts(const Family& f, const Trace& tr, const std::vector<double>& c, double eps) {
  QuasiDiagonal q = zero_quasi_diagonal(f);
  add_quasi_diagonal(f, tr, c, q);
  finish_quasi_diagonal(q, eps);
  return q;
}

}  // namespace tg::riemannian
