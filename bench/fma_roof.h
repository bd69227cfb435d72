// The core's float32 multiply-add throughput: the most GFLOP/s one thread can do, whatever the kernel.
// A step's matrix products can only approach it; `tapegrad bench` prints the step's products against
// it, which is what says how much of a step's time any gemm could still win (gemm_backends.md).
#pragma once

namespace tg::bench {

struct FmaRoof {
  double gflops = 0;          // float32, one thread: 2 flops per lane per fused multiply-add
  const char* isa = "none";   // the widest FMA the CPU has and the loop used: "avx512", "avx2" or "scalar"
};

// Independent chains of fused multiply-adds at the CPU's widest vector width, ~`seconds` in all; the
// best of three rounds (a roof is approached from below: interruptions only lower a round).
FmaRoof measure_fma_roof(double seconds = 0.3);

}  // namespace tg::bench
