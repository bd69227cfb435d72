// The fused cells' row loop in SIMD batches, on xsimd's instruction-set type (the engine's own by
// default; ops/lstm_cell_avx512.cc instantiates it for AVX-512). Only xsimd may be used here, and plain
// loops instead of std::copy for the tail: the AVX-512 unit must not instantiate anything another unit
// also instantiates (ops/lstm_cell_kernels.h says why). Private to ops/.
#pragma once
#include <cstdint>

#include <xsimd/xsimd.hpp>

namespace tg::ops::simd {

// Runs body(row, load, store) over each row of H columns in batches of Arch's width; the tail goes through
// a zero-padded batch, so every element takes the same code path (as in the elementwise kernels).
template <class T, class Arch = xsimd::default_arch, class Body>
inline void rows_in_batches(int64_t rows, int64_t H, Body body) {
  using Batch = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(Batch::size);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t j = 0;
    for (; j + W <= H; j += W)
      body(r, [j](const T* p) { return Batch::load_unaligned(p + j); },
           [j](T* p, const Batch& v) { v.store_unaligned(p + j); });
    if (j < H) {
      const int64_t n = H - j;
      body(r,
           [j, n](const T* p) {
             alignas(64) T buf[Batch::size] = {};  // not W: clang 14 wants W captured
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

}  // namespace tg::ops::simd
