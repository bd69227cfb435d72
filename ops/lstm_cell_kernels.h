// The fused LSTM cell's two transcendental-heavy kernels (forward and one-off backward) as templates on
// xsimd's instruction-set type, so that one source compiles for AVX2 (ops/lstm_cell.cc, the engine's
// flags) and for AVX-512 (ops/lstm_cell_avx512.cc, its own flags), picked at run time (ops/cpu_isa.h).
// Private to ops/. Only xsimd and this file's own code may be used here: the AVX-512 translation unit
// must not instantiate anything another unit also instantiates (an inline function or template both
// emit is kept once by the linker, and the AVX-512 copy would then run on CPUs without it). Hence plain
// loops instead of std::copy for the tail.
#pragma once
#include <cstdint>

#include <xsimd/xsimd.hpp>

#include "ops/logistic_kernel.h"

namespace tg::ops::detail::lstm_kernels {

// body(row, load, store) over each row of H columns in batches of Arch's width; the tail through a
// zero-padded batch, so every element takes the same code path (as fused::rows_in_batches).
template <class Arch, class T, class Body>
inline void rows(int64_t n_rows, int64_t H, Body body) {
  using Batch = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(Batch::size);
  for (int64_t r = 0; r < n_rows; ++r) {
    int64_t j = 0;
    for (; j + W <= H; j += W)
      body(r, [j](const T* p) { return Batch::load_unaligned(p + j); },
           [j](T* p, const Batch& v) { v.store_unaligned(p + j); });
    if (j < H) {
      const int64_t n = H - j;
      body(r,
           [j, n](const T* p) {
             alignas(64) T buf[Batch::size] = {};
             for (int64_t q = 0; q < n; ++q) buf[q] = p[j + q];
             return Batch::load_aligned(buf);
           },
           [j, n](T* p, const Batch& v) {
             alignas(64) T buf[Batch::size];
             v.store_aligned(buf);
             for (int64_t q = 0; q < n; ++q) p[j + q] = buf[q];
           });
    }
  }
}

// a [B,4H] (gates i, f, o, g), c_prev [B,H] -> out [c; h] [2B,H]
template <class Arch, class T>
void forward(const T* a, const T* cp, T* out, int64_t B, int64_t H) {
  rows<Arch, T>(B, H, [&](int64_t r, auto ld, auto st) {
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
  rows<Arch, T>(B, H, [&](int64_t r, auto ld, auto st) {
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
