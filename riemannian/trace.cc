#include "riemannian/trace.h"

#include <cmath>

#include <fmt/format.h>

#include "core/ad.h"
#include "core/error.h"
#include "core/graph.h"
#include "models/loss.h"

namespace tg::riemannian {

Trace trace(const models::Model& m, const Family& f, const tasks::Batch& b, Need need) {
  if (b.size() != 1) throw Error(fmt::format("riemannian: one training sequence expected, got a batch of {}", b.size()));
  if (!b.inputs.mask.empty()) throw Error("riemannian: input masks (padding) are not supported");
  Trace tr;
  tr.need = need;
  tr.T = b.steps();
  tr.N = f.N;
  tr.O = f.O;
  const int64_t T = tr.T, N = f.N, O = f.O;
  tr.u.resize(T);
  tr.y.resize(T);
  tr.chi.assign(T, 1.0);
  for (int64_t t = 0; t < T; ++t) {
    tr.u[t] = (*b.inputs.symbols[t])[0];
    tr.y[t] = (*b.targets.symbols[t])[0];
    if (!b.targets.mask.empty()) tr.chi[t] = b.targets.mask[t].at(0);
  }

  Graph g;
  models::Outputs out = m.unroll(g, b.inputs);
  Var loss = models::matching_loss(models::OutputKind::softmax, out.logits, b.targets, /*mean=*/false);
  tr.ll = -loss.value().item();

  tr.a.resize((T + 1) * N);
  tr.sp.resize((T + 1) * N);
  const ParamSet& ps = m.params();
  for (int64_t i = 0; i < N; ++i) {
    const double s0 = f.has_start ? ps.value(f.start).at(i) : 0.0;
    tr.a[i] = f.leaky() ? std::tanh(s0) : s0;
    tr.sp[i] = f.leaky() ? 1 - tr.a[i] * tr.a[i] : 1.0;
  }
  tr.pi.resize(T * O);
  tr.logits.resize(T);
  for (int64_t t = 0; t < T; ++t) {
    const double* h = out.hidden[t].value().data<double>();
    for (int64_t i = 0; i < N; ++i) {
      tr.a[(t + 1) * N + i] = h[i];
      tr.sp[(t + 1) * N + i] = 1 - h[i] * h[i];
    }
    tr.logits[t] = out.logits[t].value();
    const double* z = tr.logits[t].data<double>();
    double top = z[0], sum = 0;
    for (int64_t k = 1; k < O; ++k) top = std::max(top, z[k]);
    for (int64_t k = 0; k < O; ++k) sum += tr.pi[t * O + k] = std::exp(z[k] - top);
    for (int64_t k = 0; k < O; ++k) tr.pi[t * O + k] /= sum;
  }
  if (need == Need::value) return tr;

  // Gradients of LL: the cotangent -1 at the loss (Σ -chi ln pi).
  std::vector<Var> wrt;
  std::vector<int32_t> param_of;  // which parameter each wrt entry is
  for (int32_t p = 0; p < ps.count(); ++p) {
    if (need == Need::writing && p != f.w.index && p != f.w0.index) continue;
    wrt.push_back(g[ParamId{p}]);
    param_of.push_back(p);
  }
  const size_t n_params = wrt.size();
  if (need == Need::all) wrt.insert(wrt.end(), out.preact.begin(), out.preact.end());
  ad::Seed seed{loss, g.input(Tensor::full(loss.shape(), -1.0, DType::f64))};
  std::vector<Var> adj = ad::vjp(std::span<const ad::Seed>(&seed, 1), wrt);

  tr.grad = ps.zeros_like();
  for (size_t k = 0; k < n_params; ++k) {
    const Shape& s = ps.shape(ParamId{param_of[k]});
    Tensor v = ad::value_or_zeros(adj[k], s, DType::f64);
    Tensor dst = tr.grad.part(param_of[k]);
    std::copy(v.data<double>(), v.data<double>() + s.size(), dst.data<double>());
  }
  if (need == Need::writing) return tr;

  tr.B.assign((T + 1) * N, 0.0);
  if (f.has_start) {
    const double* g0 = tr.grad.part(f.start.index).data<double>();
    std::copy(g0, g0 + N, tr.B.begin());
  }
  for (int64_t t = 0; t < T; ++t) {
    Tensor v = ad::value_or_zeros(adj[n_params + t], Shape{1, N}, DType::f64);
    std::copy(v.data<double>(), v.data<double>() + N, tr.B.begin() + (t + 1) * N);
  }
  return tr;
}

}  // namespace tg::riemannian
