// Site: where in user code a node was built. Every public op takes one as its last, defaulted,
// parameter so shape errors point at the caller's file:line rather than at library internals.
#pragma once
#include <cstdint>
#include <string>
#include <version>
#if __cpp_lib_source_location
#include <source_location>
#endif

namespace tg {

struct Site {
  const char* file = "";
  std::uint32_t line = 0;
#if __cpp_lib_source_location
  static Site current(std::source_location l = std::source_location::current()) {
    return Site{l.file_name(), l.line()};
  }
#else
  // clang 14 with libstdc++ 12 (Debian 12): <source_location> needs __builtin_source_location, which
  // clang has from 15. The builtins both compilers have give the same file and line at the call site.
  static Site current(const char* file = __builtin_FILE(), std::uint32_t line = __builtin_LINE()) {
    return Site{file, line};
  }
#endif
  std::string str() const;  // "models/mrnn.h:41" (path shortened to the last two components)
};

}  // namespace tg
