// The quasi-diagonal solve (003 eqs 20-21 for the writing weights, 34-35 for the transitions): of a
// metric over signals 0 (the always-on bias) and 1..k keep only the diagonal and the bias row. Signal
// i's step is the i-component of the exact 2x2 solve over (bias, i), i.e. a regression on the signal
// with its weighted mean removed; the bias then satisfies its own equation given the others' steps.
// Invariant to affine changes of each signal.
#pragma once
#include <cstdint>

namespace tg::riemannian {

// G[0..k]: the gradient; M00, M0[1..k], Md[1..k]: the metric's bias-bias, bias-signal and diagonal
// entries (damping already added). Writes the update direction D[0..k]:
//   D_i = (G_i - G_0 M0_i/M00) / (Md_i - M0_i²/M00)   (i >= 1)
//   D_0 = G_0/M00 - Σ_i (M0_i/M00) D_i
// Throws tg::Error if M00 <= 0 or a reduced diagonal is not positive.
void quasi_diagonal_solve(int64_t k, const double* G, double M00, const double* M0, const double* Md, double* D);

}  // namespace tg::riemannian
