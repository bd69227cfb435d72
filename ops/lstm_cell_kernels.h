// The fused LSTM cell's two transcendental-heavy kernels (forward and one-off backward) as templates on
// xsimd's instruction-set type, so that one source compiles for AVX2 (ops/lstm_cell.cc, the engine's
// flags) and for AVX-512 (ops/lstm_cell_avx512.cc, its own flags), picked at run time (ops/cpu_isa.h).
// Private to ops/. Only xsimd and this file's own code may be used here: the AVX-512 translation unit
// must not instantiate anything another unit also instantiates (an inline function or template both
// emit is kept once by the linker, and the AVX-512 copy would then run on CPUs without it); the row loop
// (ops/simd_rows.h) keeps to the same rule.
#pragma once
#include <cstdint>

#include <xsimd/xsimd.hpp>

#include "ops/logistic_kernel.h"
#include "ops/simd_rows.h"

namespace tg::ops::detail::lstm_kernels {

// a [B,4H] (gates i, f, o, g), c_prev [B,H] -> out [c; h] [2B,H]
template <class Arch, class T>
void forward(const T* a, const T* cp, T* out, int64_t B, int64_t H) {
  simd::rows_in_batches<T, Arch>(B, H, [&](int64_t r, auto ld, auto st) {
    const T* ar = a + r * 4 * H;
    const auto i = logistic_batch(ld(ar)), f = logistic_batch(ld(ar + H)), o = logistic_batch(ld(ar + 2 * H));
    const auto g = xsimd::tanh(ld(ar + 3 * H));
    const auto c = f * ld(cp + r * H) + i * g;
    st(out + r * H, c);
    st(out + (B + r) * H, o * xsimd::tanh(c));
  });
}

// a, c_prev, y_bar [c_bar; h_bar] -> out [a_bar (as [B,4H]); c_prev_bar]. Gates are recomputed from a:
// cheaper than keeping them, and the step's working set stays the size of its inputs.
template <class Arch, class T>
void backward(const T* a, const T* cp, const T* yb, T* out, int64_t B, int64_t H) {
  using Batch = xsimd::batch<T, Arch>;
  simd::rows_in_batches<T, Arch>(B, H, [&](int64_t r, auto ld, auto st) {
    const T* ar = a + r * 4 * H;
    const Batch one(1);
    const Batch i = logistic_batch(ld(ar)), f = logistic_batch(ld(ar + H)), o = logistic_batch(ld(ar + 2 * H));
    const Batch g = xsimd::tanh(ld(ar + 3 * H));
    const Batch c_prev = ld(cp + r * H);
    const Batch tc = xsimd::tanh(f * c_prev + i * g);
    const Batch h_bar = ld(yb + (B + r) * H);
    const Batch c_bar = ld(yb + r * H) + h_bar * o * (one - tc * tc);  // through h = o tanh(c) too
    T* o_r = out + r * 4 * H;
    st(o_r, c_bar * g * i * (one - i));
    st(o_r + H, c_bar * c_prev * f * (one - f));
    st(o_r + 2 * H, h_bar * tc * o * (one - o));
    st(o_r + 3 * H, c_bar * i * (one - g * g));
    st(out + (4 * B + r) * H, c_bar * f);
  });
}

}  // namespace tg::ops::detail::lstm_kernels
