// The per-unit, per-state weights of the recurrent metrics (003 §3.4-3.5):
//   RUOP: m~_i^s = (B_i^s)²                                                          (23)
//   RBPM: m~_i^s = s'(V_i^s)² chi Var_{pi^s}(w_i) + Σ_{e = i -> j} (J^s_e)² m~_j^{s+1}   (24)/(63)
// with the UNIT-LEVEL Jacobian entries J^s_e = dV_j^{s+1}/dV_i^s = [leaky, i = j] + tau_{e, u_s} s'(V_i^s)
// (64). The self-loop of the GLNN contributes (1 + tau_ii s')², not 1 + (tau_ii s')²: the digest's
// pitfall of squaring per-op Jacobians, which would make m~ grow on long sequences.
// For the GNN/RNN the start state is a0 itself (s' = 1 at s = 0, no output there).
#pragma once
#include <vector>

#include "core/params.h"
#include "riemannian/family.h"
#include "riemannian/trace.h"

namespace tg::riemannian {

enum class Modulus { ruop, rbpm };

// J[e] = dV_{dst e}^{t+1} / dV_{src e}^t at step t (values of the parameters in ps, activities in tr).
void unit_jacobian(const Family& f, const ParamSet& ps, const Trace& tr, int64_t t, double* J);

// Var_{pi}(w_i) = Σ_y pi_y w_iy² - (Σ_y pi_y w_iy)², for every unit i: [N].
std::vector<double> output_variance(const Family& f, const ParamSet& ps, const double* pi);

// [(T+1) N]: m~^s for s = 0..T (needs Need::all for RUOP).
std::vector<double> modulus(const Family& f, const ParamSet& ps, const Trace& tr, Modulus kind);

}  // namespace tg::riemannian
