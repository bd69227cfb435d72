// The FMA roof's AVX-512 loop, in a translation unit of its own compiled with -mavx512f (bench/CMakeLists.txt);
// called only when the CPU has AVX-512. Intrinsics and nothing inline from elsewhere: a shared inline
// function instantiated here could be the copy the linker keeps for CPUs without AVX-512.
#include <immintrin.h>

#include "bench/fma_roof_loops.h"

namespace tg::bench::detail {

float fma_chains_avx512(int64_t iters, float x, float y) {
  __m512 acc[kChains];
  const __m512 vx = _mm512_set1_ps(x), vy = _mm512_set1_ps(y);
  for (__m512& a : acc) a = vy;
  for (int64_t k = 0; k < iters; ++k)
#pragma GCC unroll 12
    for (__m512& a : acc) a = _mm512_fmadd_ps(a, vx, vy);
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

}  // namespace tg::bench::detail
