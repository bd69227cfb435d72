#include "ops/blas.h"

#include <cblas.h>

extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}

namespace tg::blas {

void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
              lda, b, ldb, beta, c, ldc);
}

void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
              lda, b, ldb, beta, c, ldc);
}

void set_threads(int n) { openblas_set_num_threads(n); }
int threads() { return openblas_get_num_threads(); }

}  // namespace tg::blas
