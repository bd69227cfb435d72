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

struct FmaLoop {
  float (*run)(int64_t iters, float x, float y);
  int lanes;        // floats per vector
  const char* isa;  // "scalar", "avx2", "avx512"
};

// The loops this build has and this CPU can run, narrowest first (scalar is always there).
std::vector<FmaLoop> fma_loops();

}  // namespace tg::bench::detail
