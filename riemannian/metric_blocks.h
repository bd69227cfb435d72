// The recurrent metrics' blocks for the transitions (003 eq. 26 and its quasi-diagonal part, 34-35).
// Each target unit j regresses its desired change onto its incoming signals with per-step weights
// c_j^{t+1} (the modulus: (B_j^{t+1})² for RUOP, the backpropagated m~_j^{t+1} for RBPM):
//   M_kk' = Σ_t c_j^{t+1} v_k^t v_k'^t + eps 1[k = k']
// Signals of unit j at step t: v_0 = 1 (the bias unit), v_e = a^t_{src e} for each edge e into j, and
// for the classical RNN also v_y = 1[u_t = y] (rho's inputs). For the gated models (GLNN, GNN) only
// steps with u_t = y touch the block of (j, y): one (d+1) x (d+1) block per (unit, symbol).
#pragma once
#include <cstdint>
#include <vector>

#include "riemannian/family.h"
#include "riemannian/trace.h"

namespace tg::riemannian {

// Full blocks of a gated model: block (y, j) is n_j x n_j, n_j = 1 + in-degree(j), row-major, signal
// order (bias, edges e in first_in[j]..first_in[j+1]).
struct FullBlocks {
  std::vector<int64_t> offset;  // [A N]: start of block y N + j in data
  std::vector<double> data;
  double* at(const Family& f, int32_t y, int64_t j) { return data.data() + offset[y * f.N + j]; }
};
FullBlocks full_blocks(const Family& f, const Trace& tr, const std::vector<double>& c, double eps);
// The same in three parts, so independent lines (traces) add up: zero blocks, add one trace's
// Σ_t c v vᵀ (upper triangles), then damp and symmetrise once.
FullBlocks zero_full_blocks(const Family& f);
void add_full_blocks(const Family& f, const Trace& tr, const std::vector<double>& c, FullBlocks& b);
void finish_full_blocks(const Family& f, FullBlocks& b, double eps);

// Quasi-diagonal parts. Gated: indexed by (y, j) and edge e: M00[y N + j], M0[y E + e], Md[y E + e].
// RNN: M00[j], M0/Md[e] for the edges, and for rho: M0y[y N + j] (= Σ_{u_t = y} c), Myy = M0y + eps.
struct QuasiDiagonal {
  std::vector<double> M00, M0, Md, M0y;
};
QuasiDiagonal quasi_diagonal_parts(const Family& f, const Trace& tr, const std::vector<double>& c, double eps);
QuasiDiagonal zero_quasi_diagonal(const Family& f);
void add_quasi_diagonal(const Family& f, const Trace& tr, const std::vector<double>& c, QuasiDiagonal& q);
void finish_quasi_diagonal(QuasiDiagonal& q, double eps);

}  // namespace tg::riemannian
