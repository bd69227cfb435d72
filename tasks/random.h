// Draws for the generators, written out instead of std::uniform_*_distribution so that a seed gives
// the same sequences with every standard library (the engines are specified, distributions are not).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/params.h"

namespace tg::tasks {

// A uniform integer in [lo, hi], both included (the seeds' i[lo, hi]); unbiased by rejection.
inline int64_t uniform_int(Rng& rng, int64_t lo, int64_t hi) {
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;  // 0: all 2^64 values
  if (range == 0) return static_cast<int64_t>(rng());
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
  uint64_t x;
  do x = rng();
  while (x >= limit);
  return lo + static_cast<int64_t>(x % range);
}

// A uniform real in [0, 1) with 53 random bits (the seeds' U[0, 1]).
inline double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// A standard normal draw by the Box–Muller transform (one of its pair; the other is dropped so that
// each draw consumes exactly two numbers from the engine).
inline double standard_normal(Rng& rng) {
  const double u1 = 1.0 - uniform01(rng);  // in (0, 1]: log(u1) is finite
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

// True with probability num/den, exactly.
inline bool bernoulli(Rng& rng, int64_t num, int64_t den) { return uniform_int(rng, 0, den - 1) < num; }

}  // namespace tg::tasks
