// The core's float32 multiply-add throughput: the most GFLOP/s one thread can do, whatever the kernel.
// A step's matrix products can only approach it; `tapegrad bench` prints the step's products against
// it, which is what says how much of a step's time any gemm could still win (gemm_backends.md).
#pragma once

namespace tg::bench {

struct FmaRoof {
  double gflops = 0;          // float32, one thread: 2 flops per lane per fused multiply-add; 0: not measured
  const char* isa = "none";   // the loop used, the widest FMA both the CPU and this build have: "avx512", "avx2"
};

// Independent chains of fused multiply-adds at the widest vector width the CPU and this build share, ~`seconds`
// in all; the best of three rounds (a roof is approached from below: interruptions only lower a round). A build
// without vector FMAs measures nothing (gflops 0).
FmaRoof measure_fma_roof(double seconds = 0.3);

}  // namespace tg::bench
