// Internal to optim/: reading an optimizer's options from JSON (user values merged over defaults),
// with errors that name the optimizer, the key and the known keys.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "optim/schedule.h"

namespace tg::optim::detail {

// user over defaults; an unknown key is a tg::Error listing the known ones.
inline nlohmann::json merge_options(const std::string& who, const nlohmann::json& defaults, const nlohmann::json& user) {
  if (!user.is_null() && !user.is_object()) throw Error(fmt::format("{}: options must be a JSON object, not {}", who, user.dump()));
  nlohmann::json out = defaults;
  if (user.is_null()) return out;
  for (auto it = user.begin(); it != user.end(); ++it) {
    if (!defaults.contains(it.key())) {
      std::string known;
      for (auto d = defaults.begin(); d != defaults.end(); ++d) known += (known.empty() ? "" : ", ") + d.key();
      throw Error(fmt::format("{}: unknown option '{}' (known: {})", who, it.key(), known));
    }
    out[it.key()] = it.value();
  }
  return out;
}

class OptionReader {
 public:
  OptionReader(std::string who, const nlohmann::json& resolved) : who_(std::move(who)), j_(resolved) {}

  double number(const char* key, double lo, double hi, bool lo_open = false, bool hi_open = false) const {
    const nlohmann::json& v = at(key);
    if (!v.is_number()) bad(key, "a number");
    const double x = v.get<double>();
    if (!(lo_open ? x > lo : x >= lo) || !(hi_open ? x < hi : x <= hi))
      throw Error(fmt::format("{}: option '{}' must be in {}{}, {}{}, not {}", who_, key, lo_open ? "(" : "[", lo, hi,
                              hi_open ? ")" : "]", x));
    return x;
  }
  int64_t integer(const char* key, int64_t lo) const {
    const nlohmann::json& v = at(key);
    if (!v.is_number_integer()) bad(key, "an integer");
    const int64_t x = v.get<int64_t>();
    if (x < lo) throw Error(fmt::format("{}: option '{}' must be >= {}, not {}", who_, key, lo, x));
    return x;
  }
  std::string text(const char* key) const {
    const nlohmann::json& v = at(key);
    if (!v.is_string()) bad(key, "a string");
    return v.get<std::string>();
  }
  Schedule schedule(const char* key) const {
    try {
      return Schedule::from_json(at(key));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: option '{}': {}", who_, key, e.what()));
    }
  }

 private:
  const nlohmann::json& at(const char* key) const {
    if (!j_.contains(key)) throw Error(fmt::format("{}: missing option '{}'", who_, key));
    return j_.at(key);
  }
  [[noreturn]] void bad(const char* key, const char* want) const {
    throw Error(fmt::format("{}: option '{}' must be {}, not {}", who_, key, want, j_.at(key).dump()));
  }
  std::string who_;
  const nlohmann::json& j_;
};

}  // namespace tg::optim::detail
