#include "riemannian/lines.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/ad.h"
#include "core/error.h"
#include "core/graph.h"
#include "models/loss.h"
#include "ops/ops.h"

namespace tg::riemannian {

LineSplit split_lines(const tasks::Batch& seq, int32_t newline) {
  if (seq.size() != 1) throw Error(fmt::format("line batching: one sequence expected, got a batch of {}", seq.size()));
  if (!seq.inputs.mask.empty()) throw Error("line batching: input masks (padding) are not supported");
  LineSplit s;
  s.begin.push_back(0);
  const int64_t T = seq.steps();
  for (int64_t t = 0; t < T; ++t)
    if ((*seq.targets.symbols[t])[0] == newline || t + 1 == T) s.begin.push_back(t + 1);
  return s;
}

tasks::Batch line_chunk(const tasks::Batch& seq, const LineSplit& s, int64_t first, int64_t count) {
  if (first < 0 || count < 1 || first + count > s.lines())
    throw InternalError(fmt::format("line_chunk: lines [{}, {}) of {}", first, first + count, s.lines()));
  int64_t T = 0;
  bool padded = false;
  for (int64_t k = 0; k < count; ++k) T = std::max(T, s.length(first + k));
  for (int64_t k = 0; k < count; ++k) padded = padded || s.length(first + k) < T;
  const bool masked = padded || !seq.targets.mask.empty();
  tasks::Batch b;
  b.inputs.T = T;
  b.inputs.B = count;
  std::vector<int32_t> u(count), y(count);
  std::vector<double> chi(count);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t k = 0; k < count; ++k) {
      const int64_t l = first + k;
      if (t < s.length(l)) {
        const int64_t g = s.begin[l] + t;
        u[k] = (*seq.inputs.symbols[g])[0];
        y[k] = (*seq.targets.symbols[g])[0];
        chi[k] = seq.targets.mask.empty() ? 1.0 : seq.targets.mask[g].at(0);
      } else {  // padding: any valid symbol, no loss
        u[k] = y[k] = 0;
        chi[k] = 0;
      }
    }
    b.inputs.symbols.push_back(ops::make_index(u));
    b.targets.symbols.push_back(ops::make_index(y));
    if (masked) b.targets.mask.push_back(Tensor::from(Shape{count}, chi, DType::f64));
  }
  return b;
}

ChunkTrace trace_chunk(const models::Model& m, const Family& f, const tasks::Batch& chunk,
                       const std::vector<int64_t>& lengths, Need need) {
  const int64_t K = chunk.size(), T = chunk.steps(), N = f.N, O = f.O;
  if (static_cast<int64_t>(lengths.size()) != K) throw InternalError("trace_chunk: one length per line expected");
  for (const Tensor& mt : chunk.targets.mask)
    if (mt.dtype() != DType::f64) throw InternalError("trace_chunk: float64 target masks expected (line_chunk's)");
  ChunkTrace ct;
  Graph g;
  models::Outputs out = m.unroll(g, chunk.inputs);
  bool any = chunk.targets.mask.empty();
  for (const Tensor& mt : chunk.targets.mask)
    for (int64_t k = 0; k < K && !any; ++k) any = mt.at(k) != 0;
  Var loss;  // absent when no step of the chunk is scored (LL 0, gradient 0)
  if (any) {
    loss = models::matching_loss(models::OutputKind::softmax, out.logits, chunk.targets, /*mean=*/false);
    ct.ll = -loss.value().item();
  }
  ct.logits.resize(T);
  for (int64_t t = 0; t < T; ++t) ct.logits[t] = out.logits[t].value();

  const ParamSet& ps = m.params();
  std::vector<double> a0(N), sp0(N);
  for (int64_t i = 0; i < N; ++i) {  // as trace(): the start state of every line
    const double s0 = f.has_start ? ps.value(f.start).at(i) : 0.0;
    a0[i] = f.leaky() ? std::tanh(s0) : s0;
    sp0[i] = f.leaky() ? 1 - a0[i] * a0[i] : 1.0;
  }
  ct.grad = ps.zeros_like();
  if (need == Need::value) return ct;  // scoring reads the chunk's logits only
  ct.lines.resize(K);
  for (int64_t k = 0; k < K; ++k) {
    Trace& tr = ct.lines[k];
    const int64_t L = lengths[k];
    if (L < 1 || L > T) throw InternalError(fmt::format("trace_chunk: line length {} in a chunk of {} steps", L, T));
    tr.need = need;
    tr.T = L;
    tr.N = N;
    tr.O = O;
    tr.u.resize(L);
    tr.y.resize(L);
    tr.chi.assign(L, 1.0);
    tr.a.resize((L + 1) * N);
    tr.sp.resize((L + 1) * N);
    tr.pi.resize(L * O);
    std::copy(a0.begin(), a0.end(), tr.a.begin());
    std::copy(sp0.begin(), sp0.end(), tr.sp.begin());
  }
  // Step-major, so each step's batch tensors are read once (the per-line arithmetic is the same).
  for (int64_t t = 0; t < T; ++t) {
    const std::vector<int32_t>&us = *chunk.inputs.symbols[t], &ys = *chunk.targets.symbols[t];
    const double* mask = chunk.targets.mask.empty() ? nullptr : chunk.targets.mask[t].data<double>();
    const Tensor hidden = out.hidden[t].value();
    const double* hb = hidden.data<double>();
    const double* zb = ct.logits[t].data<double>();
    for (int64_t k = 0; k < K; ++k) {
      Trace& tr = ct.lines[k];
      if (t >= tr.T) continue;
      tr.u[t] = us[k];
      tr.y[t] = ys[k];
      if (mask) tr.chi[t] = mask[k];
      const double* h = hb + k * N;
      for (int64_t i = 0; i < N; ++i) {
        tr.a[(t + 1) * N + i] = h[i];
        tr.sp[(t + 1) * N + i] = 1 - h[i] * h[i];
      }
      const double* z = zb + k * O;
      double* p = tr.pi.data() + t * O;
      double top = z[0], sum = 0;
      for (int64_t c = 1; c < O; ++c) top = std::max(top, z[c]);
      for (int64_t c = 0; c < O; ++c) sum += p[c] = std::exp(z[c] - top);
      for (int64_t c = 0; c < O; ++c) p[c] /= sum;
      if (tr.chi[t] != 0) tr.ll += tr.chi[t] * (z[tr.y[t]] - top - std::log(sum));
    }
  }
  if (!any) {
    if (need == Need::all)
      for (Trace& tr : ct.lines) tr.B.assign((tr.T + 1) * N, 0.0);
    return ct;
  }

  // Gradients of LL (cotangent -1 at the loss), and for Need::all the adjoints at every step's
  // pre-activation and at the start state (the batch's per-line copy of V0 / a0: each line's B^0).
  std::vector<Var> wrt;
  std::vector<int32_t> param_of;
  for (int32_t p = 0; p < ps.count(); ++p) {
    if (need == Need::writing && p != f.w.index && p != f.w0.index) continue;
    wrt.push_back(g[ParamId{p}]);
    param_of.push_back(p);
  }
  const size_t n_params = wrt.size();
  Var start;
  if (need == Need::all) {
    wrt.insert(wrt.end(), out.preact.begin(), out.preact.end());
    if (f.has_start) {
      std::vector<Var> tagged = g.tagged("start_state");
      if (tagged.size() != 1)
        throw InternalError(fmt::format("trace_chunk: {} nodes tagged start_state (the model must tag one)", tagged.size()));
      start = tagged[0];
      wrt.push_back(start);
    }
  }
  ad::Seed seed{loss, g.input(Tensor::full(loss.shape(), -1.0, DType::f64))};
  std::vector<Var> adj = ad::vjp(std::span<const ad::Seed>(&seed, 1), wrt);
  for (size_t k = 0; k < n_params; ++k) {
    const Shape& s = ps.shape(ParamId{param_of[k]});
    Tensor v = ad::value_or_zeros(adj[k], s, DType::f64);
    Tensor dst = ct.grad.part(param_of[k]);
    std::copy(v.data<double>(), v.data<double>() + s.size(), dst.data<double>());
  }
  if (need == Need::writing) return ct;

  std::vector<Tensor> B(T);
  for (int64_t t = 0; t < T; ++t) B[t] = ad::value_or_zeros(adj[n_params + t], Shape{K, N}, DType::f64);
  Tensor B0 = f.has_start ? ad::value_or_zeros(adj.back(), Shape{K, N}, DType::f64) : Tensor{};
  for (int64_t k = 0; k < K; ++k) {
    Trace& tr = ct.lines[k];
    tr.B.assign((tr.T + 1) * N, 0.0);
    if (f.has_start) std::copy(B0.data<double>() + k * N, B0.data<double>() + (k + 1) * N, tr.B.begin());
    for (int64_t t = 0; t < tr.T; ++t)
      std::copy(B[t].data<double>() + k * N, B[t].data<double>() + (k + 1) * N, tr.B.begin() + (t + 1) * N);
  }
  return ct;
}

}  // namespace tg::riemannian
