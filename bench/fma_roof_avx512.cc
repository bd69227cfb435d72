// The FMA roof's AVX-512 loop, in a translation unit of its own compiled with -mavx512f (bench/CMakeLists.txt);
// called only when the CPU has AVX-512. The loop is fma_roof_loops.h's template on an Ops type local to this
// unit: an inline function shared with other units could be the copy the linker keeps for CPUs without it.
#include <immintrin.h>

#include "bench/fma_roof_loops.h"

namespace tg::bench::detail {

namespace {
struct Avx512 {
  using Vector = __m512;
  static Vector set1(float v) { return _mm512_set1_ps(v); }
  static Vector fmadd(Vector a, Vector b, Vector c) { return _mm512_fmadd_ps(a, b, c); }
  static Vector add(Vector a, Vector b) { return _mm512_add_ps(a, b); }
  static float sum(Vector v) { return _mm512_reduce_add_ps(v); }
};
}  // namespace

float fma_chains_avx512(int64_t iters, float x, float y) { return fma_chains<Avx512>(iters, x, y); }

}  // namespace tg::bench::detail
