// The matrix products every matmul runs. Kept in their own translation unit because <cblas.h> clashes
// with xtensor-blas's bundled declarations.
//
// float32 products of at least kOneDnnMinWork multiply-adds go to oneDNN's sgemm when libdnnl.so.2 can
// be loaded at run time (it picks its kernels by the CPU's instruction set itself); the others, and
// every float64 product, go to OpenBLAS. Measured on this project's AVX-512 machine, one thread, on an
// LSTM step's shapes (H = 256 / 512): oneDNN 158 / 180 GFLOP/s, OpenBLAS 113 / 152 (its SkylakeX
// kernels), BLIS 96 / 99; below ~2^17 multiply-adds OpenBLAS's small-matrix kernels have less call
// overhead (docs/results/gemm_backends.md). The choice depends only on the shape, never on timing, so results
// are reproducible for a given backend and thread count. A float32 weight that many products share (a
// recurrence's W_h) is packed once for oneDNN's matmul primitive instead (ops/packed_gemm.h).
#pragma once
#include <cstdint>
#include <string>

namespace tg::blas {
// C[m,n] = alpha op(A) op(B) + beta C, row-major; op(A) is [m,k], op(B) is [k,n].
void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc);
void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc);

// The float32 backend: "auto" (oneDNN for large products when it loads and its thread count can be
// set, else OpenBLAS), "openblas" (OpenBLAS for everything) or "onednn" (as auto, but an error when
// oneDNN cannot be used); "" means the environment variable TAPEGRAD_GEMM's choice, or auto.
void set_gemm_backend(const std::string& choice);
// The backend `choice` ("" / auto / openblas / onednn) comes to on this machine: "onednn" or
// "openblas" (what a run records, so that it resumes on the same products).
std::string resolve_gemm_backend(const std::string& choice);
// What float32 products run on now, e.g. "onednn (>= 131072 multiply-adds; smaller: openblas)".
std::string gemm_backend();
// Whether oneDNN's sgemm could be loaded, and why not when it could not.
bool onednn_available(std::string* why_not = nullptr);
constexpr long kOneDnnMinWork = 1L << 17;

// The gemm clock: while on, every float32 product adds its wall time to a process-wide total (all threads),
// so `tapegrad bench` can compare a step's own products with the same shapes run alone (issue 25's
// "same-shape GEMM efficiency"). Off by default: two clock reads per product are ~10% of a tiny one.
void count_gemm_time(bool on);
void reset_gemm_clock();
double gemm_clock_ms();  // the total since the last reset
// For the other product paths (ops/packed_gemm.cc): whether the clock is on, and a product's time.
bool gemm_clock_on();
void add_gemm_time(int64_t ns);

// Whether large float32 products go to oneDNN now (set_gemm_backend's choice).
bool onednn_in_use();

// OpenBLAS's threads (one count for the process) and the threads of oneDNN's products called from
// this thread (OpenMP keeps a count per thread; a thread that never sets one gets OpenMP's default,
// every core).
void set_threads(int n);
int threads();
// oneDNN's products called from this thread run on it alone: for the threads that split a batch
// between them (core/fork_join.h), so that their products do not fork again.
void use_one_thread_here();
}  // namespace tg::blas
