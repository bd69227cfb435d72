// The fused LSTM cell's forward and backward kernels built for AVX-512 (this file alone is compiled with
// -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl, CMakeLists.txt): twice the lanes of the AVX2
// build for the cell's five logistic and tanh evaluations each way, which are the cell's cost. Called
// only when ops::kernel_isa() says the CPU has them. Nothing but lstm_cell_kernels.h is included
// (see there why).
#include "ops/lstm_cell_kernels.h"

namespace tg::ops::detail {

void lstm_forward_avx512(const float* a, const float* cp, float* out, int64_t B, int64_t H) {
  lstm_kernels::forward<xsimd::avx512bw, float>(a, cp, out, B, H);
}
void lstm_forward_avx512(const double* a, const double* cp, double* out, int64_t B, int64_t H) {
  lstm_kernels::forward<xsimd::avx512bw, double>(a, cp, out, B, H);
}
void lstm_backward_avx512(const float* a, const float* cp, const float* yb, float* out, int64_t B, int64_t H) {
  lstm_kernels::backward<xsimd::avx512bw, float>(a, cp, yb, out, B, H);
}
void lstm_backward_avx512(const double* a, const double* cp, const double* yb, double* out, int64_t B, int64_t H) {
  lstm_kernels::backward<xsimd::avx512bw, double>(a, cp, yb, out, B, H);
}

}  // namespace tg::ops::detail
