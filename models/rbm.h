// Restricted Boltzmann machines as graphs of ops (Sutskever's thesis, sec 2.7 and eq 2.33; the
// building block of the TRBM and RTRBM of Ch. 3). Nothing here has a hand-written gradient: the free
// energy is written with ops, and contrastive divergence is a surrogate loss whose engine gradient is
// the CD estimate.
//
// Convention: W [V,H], visible bias b [V], hidden bias c [H], data as rows v [N,V], h [N,H].
//   binary visibles:   E(v,h) = -vᵀb - hᵀc - vᵀWh,  F(v) = -vᵀb - Σ_j softplus(c_j + (vᵀW)_j)
//   Gaussian visibles (eq 2.33, variance σ²): E(v,h) = |v|²/(2σ²) - vᵀb - hᵀc - vᵀWh,
//                      F(v) = |v|²/(2σ²) - vᵀb - Σ_j softplus(c_j + (vᵀW)_j)
//   P(h_j = 1 | v) = σ(c_j + (vᵀW)_j);  binary: P(v_i = 1 | h) = σ(b_i + (Wh)_i);
//   Gaussian: v | h ~ N(σ²(b + Wh), σ² I).
// Optional dynamic biases, added row by row: c_dyn [N,H] to the hidden bias (the RTRBM's W' r_{t-1}, the
// TRBM's past-to-hidden terms) and b_dyn [N,V] to the visible bias (the TRBM's A_n v_{t-n}).
#pragma once
#include <cstdint>

#include "core/graph.h"
#include "core/params.h"
#include "core/var.h"

namespace tg::models::rbm {

struct Rbm {
  Var W, b, c;           // [V,H], [V], [H]
  Var c_dyn;             // optional [N,H], added to c
  Var b_dyn;             // optional [N,V], added to b
  bool gaussian = false; // Gaussian visibles with variance sigma²
  double sigma = 1.0;
};

struct RbmParams {
  ParamId W, b, c;
};
// W ~ N(0, scale²), biases zero.
RbmParams add_params(ParamSet& ps, int64_t V, int64_t H, double scale, Rng& rng);
Rbm bind(Graph& g, const RbmParams& p, bool gaussian = false, double sigma = 1.0);

Var hidden_input(const Rbm& m, Var v);  // c + vW (+ c_dyn)            [N,H]
Var visible_input(const Rbm& m, Var h); // b + Wh (+ b_dyn)            [N,V]
Var hidden_probs(const Rbm& m, Var v);  // P(h = 1 | v)                 [N,H]
Var visible_mean(const Rbm& m, Var h);  // E[v | h]                     [N,V]
Var free_energy(const Rbm& m, Var v);   // F(v) per row                 [N]
Var sample_hidden(const Rbm& m, Var v, Rng& rng);   // h ~ P(h | v), 0/1, no derivative
Var sample_visible(const Rbm& m, Var h, Rng& rng);  // v ~ P(v | h), no derivative

// k steps of block Gibbs sampling from v0: h ~ P(h|v), v ~ P(v|h), k times. Returns v_k (stop-gradient).
// The chain runs outside m's graph (run_chain): only its end is put on the tape.
Var gibbs(const Rbm& m, Var v0, int k, Rng& rng);

// The chain itself, on the current values of m's weights and biases, one scratch graph per step: a long
// chain over a large batch (the T·N frames of an evaluation) would otherwise keep every sample on the
// tape. `last_visible` false: the last step samples h only (v_k is then v_{k-1}). Returns v_k and h_k.
struct ChainEnd {
  Tensor v, h;
};
ChainEnd run_chain(const Rbm& m, const Tensor& v0, int k, Rng& rng, bool last_visible = true);

// CD-k as a surrogate loss: mean_n [F(v_data) - F(stop_gradient(v_k))], the chain started at the
// data. Its gradient is the CD-k estimate of -∇ mean log P(v_data) (the hidden statistics are the
// mean-field probabilities E[h|v]). v_k_out, when given, receives the chain's end.
Var cd_loss(const Rbm& m, Var v_data, int k, Rng& rng, Var* v_k_out = nullptr);
// The same surrogate for a given negative sample.
Var cd_loss_given(const Rbm& m, Var v_data, Var v_neg);

// Exact log Z of a binary RBM by enumerating the 2^V visible states: logsumexp_v(-F(v)). No dynamic biases.
// V <= 20.
Var log_partition(const Rbm& m);
// log P(v_n) per row for a binary RBM whose dynamic biases differ per row (V <= 16): [N].
Var row_log_likelihood(const Rbm& m, Var v);
// Exact mean_n log P(v_n) = -mean_n F(v_n) - log Z (binary, no dynamic biases).
Var mean_log_likelihood(const Rbm& m, Var v);

}  // namespace tg::models::rbm
