#include "models/ctc.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "ops/ops.h"

namespace tg::models {

namespace {
// "-∞" (above): far below any path's log-probability, yet small enough that exp's argument reduction
// (xsimd converts x·log2 e to a 64-bit integer) stays defined: -1e30 overflowed it (UBSan)
constexpr double kLogZero = -1e15;

// A [B, S] constant of `values` (row-major) in dtype dt.
Var constant(Graph& g, int64_t B, int64_t S, const std::vector<double>& values, DType dt) {
  return g.input(Tensor::from({B, S}, values, dt));
}

// α shifted by k states towards higher s, -∞ flowing in: [B, S].
Var shifted(Graph& g, Var alpha, int64_t k, DType dt) {
  const int64_t B = alpha.shape()[0], S = alpha.shape()[1];
  if (k >= S) return ops::fill(g, {B, S}, kLogZero, dt);
  const std::vector<Var> parts{ops::fill(g, {B, k}, kLogZero, dt), ops::slice(alpha, 1, 0, S - k)};
  return ops::concat(parts, 1);
}
}  // namespace

int64_t ctc_min_steps(const std::vector<int32_t>& labels) {
  int64_t n = static_cast<int64_t>(labels.size());
  for (size_t i = 1; i < labels.size(); ++i) n += labels[i] == labels[i - 1];
  return n;
}

Var ctc_neg_log_likelihood(Graph& g, std::span<const Var> logits, const CtcBatch& batch) {
  if (logits.empty()) throw Error("ctc: no logits steps");
  const int64_t T = static_cast<int64_t>(logits.size()), B = logits[0].shape()[0], C = logits[0].shape()[1];
  const DType dt = logits[0].dtype();
  if (static_cast<int64_t>(batch.labels.size()) != B || static_cast<int64_t>(batch.lengths.size()) != B)
    throw ShapeError(fmt::format("ctc: {} label sequences and {} lengths for a batch of {}", batch.labels.size(),
                                 batch.lengths.size(), B));
  if (batch.blank < 0 || batch.blank >= C) throw Error(fmt::format("ctc: blank {} outside [0, {})", batch.blank, C));
  for (const Var& z : logits)
    if (z.shape() != Shape{B, C}) throw ShapeError(fmt::format("ctc: logits {} and {}", z.shape().str(), logits[0].shape().str()));
  int64_t S = 1;
  for (int64_t b = 0; b < B; ++b) {
    const auto& l = batch.labels[static_cast<size_t>(b)];
    for (int32_t c : l)
      if (c < 0 || c >= C || c == batch.blank)
        throw Error(fmt::format("ctc: sequence {} has label {} (labels are in [0, {}) and never the blank {})", b, c, C,
                                batch.blank));
    const int64_t len = batch.lengths[static_cast<size_t>(b)];
    if (len < 1 || len > T) throw Error(fmt::format("ctc: sequence {} has length {} (logits have {} steps)", b, len, T));
    if (ctc_min_steps(l) > len)
      throw Error(fmt::format("ctc: sequence {}'s {} labels need at least {} steps, it has {}: probability 0", b,
                              l.size(), ctc_min_steps(l), len));
    S = std::max<int64_t>(S, 2 * static_cast<int64_t>(l.size()) + 1);
  }
  // the extended labels (padded with blanks), where the skip s-2 -> s is allowed, where α starts and ends
  std::vector<int32_t> rows;  // b * C + l'_s: the entries of the [B*C, 1] log-probabilities to gather
  std::vector<double> skip(static_cast<size_t>(B * S), kLogZero), start(static_cast<size_t>(B * S), kLogZero),
      end(static_cast<size_t>(B * S), kLogZero);
  for (int64_t b = 0; b < B; ++b) {
    const auto& l = batch.labels[static_cast<size_t>(b)];
    const int64_t Sb = 2 * static_cast<int64_t>(l.size()) + 1;
    for (int64_t s = 0; s < S; ++s) {
      const int32_t ls = s < Sb && s % 2 == 1 ? l[static_cast<size_t>(s / 2)] : batch.blank;
      rows.push_back(static_cast<int32_t>(b * C + ls));
      if (s < Sb && s % 2 == 1 && s >= 3 && l[static_cast<size_t>(s / 2)] != l[static_cast<size_t>(s / 2 - 1)])
        skip[static_cast<size_t>(b * S + s)] = 0;
      if (s < 2) start[static_cast<size_t>(b * S + s)] = 0;
      if (s == Sb - 1 || (Sb > 1 && s == Sb - 2)) end[static_cast<size_t>(b * S + s)] = 0;
    }
  }
  const ops::Index gather = ops::make_index(std::move(rows));
  auto emissions = [&](int64_t t) {  // log y_t(l'_s): [B, S]
    const Var logp = ops::reshape(ops::log_softmax(logits[static_cast<size_t>(t)], 1), {B * C, 1});
    return ops::reshape(ops::gather_rows(logp, gather), {B, S});
  };
  const Var skip_mask = constant(g, B, S, skip, dt);
  Var alpha = ops::add(emissions(0), constant(g, B, S, start, dt));
  for (int64_t t = 1; t < T; ++t) {
    const std::vector<Var> ways{ops::reshape(alpha, {B, S, 1}), ops::reshape(shifted(g, alpha, 1, dt), {B, S, 1}),
                                ops::reshape(ops::add(shifted(g, alpha, 2, dt), skip_mask), {B, S, 1})};
    const Var next = ops::add(ops::logsumexp(ops::concat(ways, 2), 2), emissions(t));
    bool all_running = true;
    std::vector<double> running(static_cast<size_t>(B * S));
    for (int64_t b = 0; b < B; ++b) {
      const bool on = t < batch.lengths[static_cast<size_t>(b)];
      all_running &= on;
      std::fill_n(running.begin() + b * S, S, on ? 1.0 : 0.0);
    }
    alpha = all_running ? next : ops::where(constant(g, B, S, running, dt), next, alpha);
  }
  return ops::neg(ops::logsumexp(ops::add(alpha, constant(g, B, S, end, dt)), 1));
}

}  // namespace tg::models
