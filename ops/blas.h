// Thin wrappers over CBLAS gemm. Kept in their own translation unit because <cblas.h> clashes with
// xtensor-blas's bundled declarations.
#pragma once

namespace tg::blas {
// C[m,n] = alpha op(A) op(B) + beta C, row-major; op(A) is [m,k], op(B) is [k,n].
void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc);
void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc);
void set_threads(int n);  // OpenBLAS threads
int threads();
}  // namespace tg::blas
