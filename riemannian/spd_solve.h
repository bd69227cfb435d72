// Small symmetric positive definite solves with LAPACK (dpotrf + dpotrs): the per-(unit, symbol)
// metric blocks of RUOP / RBPM (003 eq. 27), solved one after another (a batch of independent blocks).
#pragma once
#include <cstdint>

namespace tg::riemannian {

// Solves M x = b in place (b becomes x; M is overwritten by its Cholesky factor). M is n x n, full
// (both triangles), row-major. Throws tg::Error naming `what` if M is not positive definite.
void spd_solve(int64_t n, double* M, double* b, const char* what);

}  // namespace tg::riemannian
