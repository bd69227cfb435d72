#include "ops/cpu_isa.h"

#include <cstdlib>
#include <string_view>

namespace tg::ops {

namespace {
KernelIsa detect() {
#if defined(TAPEGRAD_HAVE_AVX512_KERNELS) && (defined(__x86_64__) || defined(__i386__))
  const char* forced = std::getenv("TAPEGRAD_ISA");
  if (forced && std::string_view(forced) == "avx2") return KernelIsa::avx2;
  // libgcc's checks include the OS's support for the AVX-512 register state (XGETBV)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vl"))
    return KernelIsa::avx512;
#endif
  return KernelIsa::avx2;
}
}  // namespace

KernelIsa kernel_isa() {
  static const KernelIsa isa = detect();
  return isa;
}

const char* kernel_isa_name() { return kernel_isa() == KernelIsa::avx512 ? "avx512" : "avx2"; }

}  // namespace tg::ops
