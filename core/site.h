// Site: where in user code a node was built. Every public op takes one as its last, defaulted,
// parameter so shape errors point at the caller's file:line rather than at library internals.
#pragma once
#include <cstdint>
#include <source_location>
#include <string>

namespace tg {

struct Site {
  const char* file = "";
  std::uint32_t line = 0;
  static Site current(std::source_location l = std::source_location::current()) {
    return Site{l.file_name(), l.line()};
  }
  std::string str() const;  // "models/mrnn.h:41" (path shortened to the last two components)
};

}  // namespace tg
