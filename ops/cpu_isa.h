// Which instruction set the fused cells' kernels run at, chosen once at run time: the engine is compiled
// for AVX2 + FMA (CMakeLists.txt), and kernels that also have an AVX-512 build (ops/lstm_cell_avx512.cc)
// use it when the CPU and the OS support it. TAPEGRAD_ISA=avx2 in the environment keeps them at AVX2 (to
// compare the two on one machine). Results differ between the two in the last bits only, and a given
// machine always takes the same path, so a run repeats bit for bit.
#pragma once

namespace tg::ops {

enum class KernelIsa { avx2, avx512 };

// The instruction set of the fused kernels in this process (fixed after the first call).
KernelIsa kernel_isa();
const char* kernel_isa_name();  // "avx2" or "avx512"

}  // namespace tg::ops
