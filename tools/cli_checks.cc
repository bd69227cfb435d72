#include "tools/cli_checks.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include <fmt/format.h>

namespace tg::cli {
namespace {
// The text read as CLI11 2.1 then stores it (strtoll / strtoull / strtold, base 0: "0x10" is 16 and "017" is
// 15), so that the value checked is the value stored; but the whole text must be the number, a too large one
// is an error instead of a saturated value, and an unsigned one has no minus sign instead of wrapping round.
template <class T>
std::string read_number(const std::string& text, T& value, const char* what) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_floating_point_v<T>) {
    value = static_cast<T>(std::strtold(begin, &end));
  } else if constexpr (std::is_signed_v<T>) {
    value = static_cast<T>(std::strtoll(begin, &end, 0));
  } else {
    if (text.find('-') != std::string::npos) return fmt::format("'{}' is not {}", text, what);
    value = static_cast<T>(std::strtoull(begin, &end, 0));
  }
  if (text.empty() || end != begin + text.size() || end == begin) return fmt::format("'{}' is not {}", text, what);
  if (errno == ERANGE) return fmt::format("{} is out of range", text);
  return "";
}

// "INT in [1 - 1024]"; an open end (the type's largest value) is left out of the help text.
template <class T>
std::string bounds_text(const char* type, T lo, T hi) {
  if (hi == std::numeric_limits<T>::max()) return fmt::format("{} >= {}", type, lo);
  return fmt::format("{} in [{} - {}]", type, lo, hi);
}

template <class T>
CLI::Validator whole_in(T lo, T hi, const char* what) {
  return CLI::Validator(
      [lo, hi, what](std::string& text) -> std::string {
        T v{};
        if (std::string bad = read_number(text, v, what); !bad.empty()) return bad;
        if (v < lo || v > hi)
          return hi == std::numeric_limits<T>::max() ? fmt::format("{} must be >= {}", text, lo)
                                                     : fmt::format("{} is outside [{}, {}]", text, lo, hi);
        return "";
      },
      bounds_text("INT", lo, hi));
}

CLI::Validator real(double lo, double hi, bool open_low, std::string description) {
  return CLI::Validator(
      [lo, hi, open_low](std::string& text) -> std::string {
        double v = 0;
        if (std::string bad = read_number(text, v, "a number"); !bad.empty()) return bad;
        if (!std::isfinite(v)) return fmt::format("{} is not a finite number", text);
        if (open_low && !(v > lo)) return fmt::format("{} must be > {:g}", text, lo);
        if (v < lo) return fmt::format("{} must be >= {:g}", text, lo);
        if (v > hi) return fmt::format("{} is outside [{:g}, {:g}]", text, lo, hi);
        return "";
      },
      std::move(description));
}
// Text that is not empty: "an empty WHAT" otherwise.
CLI::Validator not_empty(std::string what, std::string description) {
  return CLI::Validator(
      [what](std::string& text) { return text.empty() ? "an empty " + what : std::string(); }, std::move(description));
}
}  // namespace

CLI::Validator integer_in(int64_t lo, int64_t hi) { return whole_in(lo, hi, "an integer"); }
CLI::Validator unsigned_in(uint64_t lo, uint64_t hi) { return whole_in(lo, hi, "a whole number >= 0"); }
CLI::Validator number_in(double lo, double hi) {
  return real(lo, hi, false, fmt::format("FLOAT in [{:g} - {:g}]", lo, hi));
}
CLI::Validator positive_number() { return real(0.0, std::numeric_limits<double>::max(), true, "FLOAT > 0"); }
CLI::Validator non_negative_number() { return real(0.0, std::numeric_limits<double>::max(), false, "FLOAT >= 0"); }
CLI::Validator non_empty_name() { return not_empty("name", "NAME"); }
CLI::Validator non_empty_path() { return not_empty("path", "PATH"); }
CLI::Validator png_path() {
  return CLI::Validator(
      [](std::string& text) {
        std::string tail = text.size() >= 4 ? text.substr(text.size() - 4) : text;
        for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return tail == ".png" ? std::string() : fmt::format("'{}' does not end in .png (the PNG to write)", text);
      },
      "PATH.png");
}
}  // namespace tg::cli
