// The w-step (003 §5.1): the writing weights' update direction from the engine's gradient
//   W_iy = Σ_t chi_t a_i (1[y_t = y] - pi_t(y))   (17)   (read from the trace, never recomputed)
// and the Hessian / Fisher entries (18)-(19), h_ii^y = eps_y + Σ_t chi_t a_i² pi(1-pi) (i = 0: a_0 = 1),
// h_0i^y = Σ_t chi_t a_i pi(1-pi).
//   QDH: the quasi-diagonal inverse (20)-(21) (invariant to affine changes of each unit's activity);
//   DH: the inverse diagonal, w_iy += eta W_iy / h_ii^y (the non-invariant baseline).
#pragma once
#include <string>
#include <vector>

#include "core/params.h"
#include "riemannian/family.h"
#include "riemannian/trace.h"
#include "tasks/task.h"

namespace tg::riemannian {

enum class WritingMethod { qdh, dh };
WritingMethod writing_method(const std::string& name);  // "qdh" | "dh"; else tg::Error

// eps_y = the relative frequency of y among the training targets + machine epsilon (the paper's
// "frequency of y in the training sequence"; relative, as it uses "frequency" for nu~).
std::vector<double> writing_damping(const Trace& tr);
// The same from the training sequence itself (it does not depend on the parameters).
std::vector<double> writing_damping(const tasks::Batch& seq, int64_t O);

// The entries (18)-(19), summed over the steps of one or more traces (independent lines add up):
// h00[y], h0[i O + y], hd[i O + y], started at the damping eps_y (h00, hd).
struct WritingCurvature {
  std::vector<double> h00, h0, hd;
};
WritingCurvature writing_curvature(const Family& f, const std::vector<double>& eps_y);
void add_writing_curvature(const Family& f, const Trace& tr, WritingCurvature& h);

// The direction from the summed gradient (w, w0 parts) and curvature.
ParamVec writing_direction(const Family& f, const ParamSet& ps, const ParamVec& grad, const WritingCurvature& h,
                           WritingMethod method);

// The direction D (w += eta D[w], w0 += eta D[w0]; every other part 0). tr needs Need::writing.
ParamVec writing_direction(const Family& f, const ParamSet& ps, const Trace& tr, WritingMethod method,
                           const std::vector<double>& eps_y);

}  // namespace tg::riemannian
