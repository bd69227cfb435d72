// The FMA chains of bench/fma_roof.cc, one definition per instruction set. Private to bench/.
#pragma once
#include <cstdint>
#include <vector>

namespace tg::bench::detail {

// Runs `iters` rounds of kChains independent vector FMAs; returns a value that depends on every one, so
// no round can be optimised away. Each lives in a translation unit compiled for its instruction set.
float fma_chains_avx512(int64_t iters, float x, float y);
float fma_chains_avx2(int64_t iters, float x, float y);
float fma_chains_scalar(int64_t iters, float x, float y);

// Enough independent chains to cover the FMA latency times the pipes (4-5 cycles × 2 pipes on current
// x86 cores) with registers to spare.
constexpr int kChains = 12;

// Where chain i starts: distinct for every i, all small and positive. Static: each unit keeps its own copy
// (one built with -mavx512f must not be the copy another unit calls).
static inline float chain_start(float y, int i) { return y * static_cast<float>(1 + i); }

// The loop itself, for a vector type's operations `Ops` (set1, fmadd, add, sum). Each instruction set's
// unit instantiates it with an Ops of its own, so no instantiation is shared between units built with
// different flags (the linker would keep one copy, possibly the AVX-512 one, for every CPU).
template <class Ops>
float fma_chains(int64_t iters, float x, float y) {
  using V = typename Ops::Vector;
  V acc[kChains];
  const V vx = Ops::set1(x), vy = Ops::set1(y);
  // each chain starts elsewhere (chain_start), so no compiler may prove two equal and keep one
  for (int i = 0; i < kChains; ++i) acc[i] = Ops::set1(chain_start(y, i));
  for (int64_t k = 0; k < iters; ++k)
#pragma GCC unroll 12
    for (V& a : acc) a = Ops::fmadd(a, vx, vy);
  V total = acc[0];
  for (int i = 1; i < kChains; ++i) total = Ops::add(total, acc[i]);
  return Ops::sum(total);
}

struct FmaLoop {
  float (*run)(int64_t iters, float x, float y);
  int lanes;        // floats per vector
  const char* isa;  // "scalar", "avx2", "avx512"
};

// The loops this build has and this CPU can run, narrowest first (scalar is always there).
std::vector<FmaLoop> fma_loops();

}  // namespace tg::bench::detail
