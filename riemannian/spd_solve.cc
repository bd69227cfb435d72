#include "riemannian/spd_solve.h"

#include <fmt/format.h>

#include "core/error.h"

extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, double* b,
             const int* ldb, int* info);
}

namespace tg::riemannian {

void spd_solve(int64_t n, double* M, double* b, const char* what) {
  const int ni = static_cast<int>(n), one = 1;
  int info = 0;
  const char uplo = 'U';  // row-major full symmetric storage reads the same in either triangle
  dpotrf_(&uplo, &ni, M, &ni, &info);
  if (info != 0) throw Error(fmt::format("{}: metric block is not positive definite (LAPACK dpotrf info {})", what, info));
  dpotrs_(&uplo, &ni, &one, M, &ni, b, &ni, &info);
  if (info != 0) throw Error(fmt::format("{}: LAPACK dpotrs failed (info {})", what, info));
}

}  // namespace tg::riemannian
