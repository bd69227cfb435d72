#include "bench/fma_roof.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>

#if defined(__FMA__)
#include <immintrin.h>
#endif

#include "bench/fma_roof_loops.h"

namespace tg::bench {
namespace detail {

#if defined(__FMA__)
namespace {
struct Avx2 {
  using Vector = __m256;
  static Vector set1(float v) { return _mm256_set1_ps(v); }
  static Vector fmadd(Vector a, Vector b, Vector c) { return _mm256_fmadd_ps(a, b, c); }
  static Vector add(Vector a, Vector b) { return _mm256_add_ps(a, b); }
  static float sum(Vector v) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    float s = 0;
    for (float l : lanes) s += l;
    return s;
  }
};
}  // namespace

float fma_chains_avx2(int64_t iters, float x, float y) { return fma_chains<Avx2>(iters, x, y); }
#endif

namespace {
struct Scalar {
  using Vector = float;
  static Vector set1(float v) { return v; }
  static Vector fmadd(Vector a, Vector b, Vector c) { return std::fma(a, b, c); }
  static Vector add(Vector a, Vector b) { return a + b; }
  static float sum(Vector v) { return v; }
};
}  // namespace

float fma_chains_scalar(int64_t iters, float x, float y) { return fma_chains<Scalar>(iters, x, y); }

std::vector<FmaLoop> fma_loops() {
  std::vector<FmaLoop> loops = {{fma_chains_scalar, 1, "scalar"}};
#if defined(__FMA__)
  loops.push_back({fma_chains_avx2, 8, "avx2"});
#endif
#if defined(TAPEGRAD_HAVE_AVX512_ROOF) && (defined(__x86_64__) || defined(__i386__))
  if (__builtin_cpu_supports("avx512f")) loops.push_back({fma_chains_avx512, 16, "avx512"});
#endif
  return loops;
}

}  // namespace detail

FmaRoof measure_fma_roof(double seconds) {
  using clock = std::chrono::steady_clock;
  const detail::FmaLoop loop = detail::fma_loops().back();
  // A build without vector FMAs (TAPEGRAD_SIMD off, or not x86) has only the scalar loop, whose std::fma may
  // be a library call: far below what the CPU's gemm reaches, so no roof at all rather than a false one.
  if (loop.lanes == 1) return {0, "none (this build has no vector FMA loop)"};
  // x < 1 and y small keep every chain finite and normal: a = a x + y tends to y / (1 - x)
  const float x = 0.999f, y = 1e-3f;
  volatile float sink = loop.run(1000, x, y);  // warm-up: the wide units power up on first use
  // size a round from a short probe so three rounds take about `seconds`
  int64_t iters = 1 << 16;
  auto t0 = clock::now();
  sink = loop.run(iters, x, y);
  const double probe = std::chrono::duration<double>(clock::now() - t0).count();
  iters = std::max<int64_t>(iters, static_cast<int64_t>(iters * (seconds / 3) / std::max(probe, 1e-6)));
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    t0 = clock::now();
    sink = loop.run(iters, x, y);
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    best = std::max(best, 2.0 * loop.lanes * detail::kChains * static_cast<double>(iters) / s * 1e-9);
  }
  (void)sink;
  return {best, loop.isa};
}

}  // namespace tg::bench
