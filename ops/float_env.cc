#include "ops/float_env.h"

#include <fmt/format.h>

#include "core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define TG_HAVE_MXCSR 1
#endif

namespace tg::fenv {

#ifdef TG_HAVE_MXCSR
// MXCSR bit 15 is flush-to-zero, bit 6 denormals-are-zero (Intel SDM vol. 1, 10.2.3).
constexpr unsigned kFlushBits = 0x8000u | 0x0040u;
void set_flush_denormals(bool flush) {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(flush ? (csr | kFlushBits) : (csr & ~kFlushBits));
}
bool flushing_denormals() { return (_mm_getcsr() & kFlushBits) == kFlushBits; }
bool flush_supported() { return true; }
#else
void set_flush_denormals(bool) {}
bool flushing_denormals() { return false; }
bool flush_supported() { return false; }
#endif

std::string resolve_denormals(const std::string& choice) {
  if (choice.empty()) return flush_supported() ? "flush" : "keep";  // what will happen, not what was hoped
  if (choice == "keep") return "keep";
  if (choice == "flush") {
    if (!flush_supported()) throw Error("denormals=flush: this CPU has no flush-to-zero mode (use keep)");
    return "flush";
  }
  throw Error(fmt::format("denormals must be flush or keep, got \"{}\"", choice));
}

}  // namespace tg::fenv
