// What the fused cells (ops/lstm_cell.cc, ops/gru_update.cc) share: a row loop in SIMD batches, and the
// rules of a fused op that has a reference graph of ordinary ops (its derivatives are that graph's, so
// second order works through the fused op).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "core/ad.h"
#include "core/primitive.h"
#include "ops/ops.h"
#include "ops/simd_rows.h"

namespace tg::ops::fused {

// Runs body(row, load, store) over each row of H columns in SIMD batches (ops/simd_rows.h).
using simd::rows_in_batches;

// Derivatives of the cells' nonlinearities from their outputs, as graphs (the reference graphs' pieces).
inline Var d_logistic(Var y, Site s) { return mul(y, 1.0 - VarAt(y, s), s); }  // y (1 - y)
inline Var d_tanh(Var y, Site s) { return 1.0 - VarAt(square(y, s), s); }      // 1 - y^2

// Whether input i is a node that an earlier input already is (gru_update(a, a, h)): ad::jvp and ad::vjp
// treat a node once however often it is listed, so only its first place may carry its derivative.
inline bool repeats_earlier(std::span<const Var> x, size_t i) {
  for (size_t j = 0; j < i; ++j)
    if (x[j].id() == x[i].id()) return true;
  return false;
}

// The rules of a fused op with a reference graph: the derivatives of that graph, its inputs taken as
// independent variables (whatever connects them further up the tape). An input listed twice gets its
// tangent, and gives its cotangent, once: ad::jvp would add its two (equal) tangents, and ad::vjp returns
// the node's whole cotangent at each place, which the caller would add twice.
template <Var (*Reference)(std::span<const Var>, Site)>
Var reference_jvp(const RuleArgs& r, std::span<const Var> d) {
  const Var ref = Reference(r.x, r.site);
  std::vector<Var> once(d.begin(), d.end());
  for (size_t i = 0; i < once.size(); ++i)
    if (repeats_earlier(r.x, i)) once[i] = Var();
  return ad::jvp(std::span<const Var>(&ref, 1), r.x, once)[0];
}
template <Var (*Reference)(std::span<const Var>, Site)>
void reference_vjp(const RuleArgs& r, Var y_bar, std::span<const bool> need, std::span<Var> x_bar) {
  const ad::Seed seed{Reference(r.x, r.site), y_bar};
  const std::vector<Var> g = ad::vjp(std::span<const ad::Seed>(&seed, 1), r.x, true);
  for (size_t i = 0; i < g.size(); ++i)
    if (need[i] && !repeats_earlier(r.x, i)) x_bar[i] = g[i];
}

}  // namespace tg::ops::fused
