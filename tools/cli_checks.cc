#include "tools/cli_checks.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>

#include <fmt/format.h>

namespace tg::cli {
namespace {
// std::from_chars over the whole text: no sign for unsigned types, no leading '+' or spaces, no trailing
// characters; its result_out_of_range names an overflow instead of saturating.
template <class T>
std::string parse_whole(const std::string& text, T& value, const char* what) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) return fmt::format("{} is too large a number", text);
  if (ec != std::errc() || ptr != end || text.empty()) return fmt::format("'{}' is not {}", text, what);
  return "";
}

template <class T>
CLI::Validator whole_in(T lo, T hi, const char* what) {
  return CLI::Validator(
      [lo, hi, what](std::string& text) -> std::string {
        T v{};
        if (std::string bad = parse_whole(text, v, what); !bad.empty()) return bad;
        if (v < lo || v > hi) return fmt::format("{} is outside [{}, {}]", text, lo, hi);
        return "";
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

CLI::Validator real(double lo, double hi, bool open_low, std::string description) {
  return CLI::Validator(
      [lo, hi, open_low](std::string& text) -> std::string {
        double v = 0;
        if (std::string bad = parse_whole(text, v, "a number"); !bad.empty()) return bad;
        if (!std::isfinite(v)) return fmt::format("{} is not a finite number", text);
        if (open_low && !(v > lo)) return fmt::format("{} must be > {:g}", text, lo);
        if (v < lo || v > hi) return fmt::format("{} is outside [{:g}, {:g}]", text, lo, hi);
        return "";
      },
      std::move(description));
}
}  // namespace

CLI::Validator integer_in(int64_t lo, int64_t hi) { return whole_in(lo, hi, "an integer"); }
CLI::Validator unsigned_in(uint64_t lo, uint64_t hi) { return whole_in(lo, hi, "a whole number >= 0"); }
CLI::Validator number_in(double lo, double hi) {
  return real(lo, hi, false, fmt::format("FLOAT in [{:g} - {:g}]", lo, hi));
}
CLI::Validator positive_number() {
  return real(0.0, std::numeric_limits<double>::max(), true, "FLOAT > 0");
}
CLI::Validator non_negative_number() {
  return real(0.0, std::numeric_limits<double>::max(), false, "FLOAT >= 0");
}
CLI::Validator non_empty_name() {
  return CLI::Validator([](std::string& text) { return text.empty() ? std::string("an empty name") : std::string(); },
                        "NAME");
}
}  // namespace tg::cli
