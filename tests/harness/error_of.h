// Test helpers for error messages.
#pragma once
#include <exception>
#include <functional>
#include <string>

#include "core/error.h"

namespace tg::check {

// The message of the tg::Error that f throws; anything else (no throw, another exception) is reported.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("NOT A tg::Error: ") + e.what();
  }
  return "NO ERROR";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace tg::check
