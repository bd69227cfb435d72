// The tau-step (003 §5.2-5.3 and the baselines of §6): the update direction of the transition
// parameters and the start values from the engine's gradient G (25) and the adjoints B.
//   rbpm / ruop: one (d+1) x (d+1) block per (unit, symbol), damped by eps (= 1 in the paper), solved
//     by LAPACK Cholesky (27); gated models only.
//   qd-rbpm / qd-ruop: the quasi-diagonal reduction (34)-(35); for the classical RNN the signals of
//     unit j are the bias, its incoming activities and the input indicators of rho.
//   Start values (29): start_j += eta B_j^0 / (m~_j^0 + eps), with the method's modulus.
//   fb: frequency-adjusted backprop: the gradient of a parameter tied to symbol y divided by the number
//     of steps reading y, the others by the sequence length (the paper divides the rate by the
//     frequency; dividing by the count also makes the plain gradient, a sum over T steps, length-free).
//   bptt: the plain gradient divided by the sequence length.
//   rms: RMSprop over passes, G / sqrt(r), r <- 0.9 r + 0.1 G² (the paper's "divided by the root mean
//     square average of the gradient magnitude"; its exact averaging is not given).
#pragma once
#include <string>

#include "core/params.h"
#include "riemannian/family.h"
#include "riemannian/metric_blocks.h"
#include "riemannian/trace.h"

namespace tg::riemannian {

enum class TransitionMethod { rbpm, ruop, qd_rbpm, qd_ruop, fb, rms, bptt };
TransitionMethod transition_method(const std::string& name);  // "rbpm", "qd-ruop", ...; else tg::Error
std::string name_of(TransitionMethod m);

struct RmsState {
  ParamVec r;  // running mean of G², empty before the first step
};

// The direction for tau, tau0, rho and the start values (every other part 0). tr needs Need::all.
ParamVec transition_direction(const Family& f, const ParamSet& ps, const Trace& tr, TransitionMethod method,
                              double eps, RmsState* rms = nullptr);

// What the step reads besides the gradient, summed over one or more traces (independent lines add
// up: each line's modulus runs its own backward recursion from its own end).
struct TransitionMetric {
  TransitionMethod method = TransitionMethod::rbpm;
  FullBlocks blocks;                // rbpm, ruop: Σ c v vᵀ (upper triangles, undamped)
  QuasiDiagonal qd;                 // qd-rbpm, qd-ruop (undamped)
  std::vector<double> c0;           // [N]: the modulus at each trace's state 0, summed (start values, 29)
  std::vector<double> input_count;  // [A]: steps reading each symbol (fb)
  int64_t steps = 0;                // steps of all traces (fb, bptt)
};
TransitionMetric transition_metric(const Family& f, TransitionMethod method);
// Adds one trace (Need::all) at the parameters in ps.
void add_transition_metric(const Family& f, const ParamSet& ps, const Trace& tr, TransitionMetric& m);
// The direction from the summed gradient and metric (damped here by eps).
ParamVec transition_direction(const Family& f, const ParamSet& ps, const ParamVec& grad, TransitionMetric m, double eps,
                              RmsState* rms = nullptr);

}  // namespace tg::riemannian
