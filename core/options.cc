#include "core/options.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace tg {

namespace {
bool same_kind(const nlohmann::json& def, const nlohmann::json& v) {
  if (def.is_number()) return v.is_number();
  if (def.is_string()) return v.is_string();
  if (def.is_boolean()) return v.is_boolean();
  if (def.is_array()) return v.is_array();
  if (def.is_object()) return v.is_object();
  return true;
}
const char* kind_name(const nlohmann::json& def) {
  if (def.is_number()) return "a number";
  if (def.is_string()) return "a string";
  if (def.is_boolean()) return "true or false";
  if (def.is_array()) return "a list";
  return "an object";
}
}  // namespace

nlohmann::json merge_options(std::string_view who, const nlohmann::json& defaults, const nlohmann::json& user,
                             bool check_kinds) {
  nlohmann::json out = defaults;
  if (user.is_null()) return out;
  if (!user.is_object()) throw Error(fmt::format("{}: options must be a JSON object (got {})", who, user.dump()));
  for (auto it = user.begin(); it != user.end(); ++it) {
    if (!defaults.contains(it.key())) {
      std::string known;
      for (auto d = defaults.begin(); d != defaults.end(); ++d) known += (known.empty() ? "" : ", ") + d.key();
      throw Error(fmt::format("{}: unknown option '{}' (options: {})", who, it.key(), known));
    }
    if (check_kinds && !same_kind(defaults[it.key()], it.value()))
      throw Error(fmt::format("{}: option '{}' must be {} (got {})", who, it.key(), kind_name(defaults[it.key()]),
                              it.value().dump()));
    out[it.key()] = it.value();
  }
  return out;
}

void OptionReader::fail(const std::string& what) const { throw Error(fmt::format("{}: {}", who_, what)); }

void OptionReader::fail(const std::string& key, const std::string& what) const {
  throw Error(fmt::format("{}: option '{}' {}", who_, key, what));
}

const nlohmann::json& OptionReader::at(const std::string& key) const {
  if (!j_.contains(key)) fail(fmt::format("missing option '{}'", key));
  return j_.at(key);
}

int64_t OptionReader::integer(const std::string& key, int64_t lo, int64_t hi) const {
  const nlohmann::json& v = at(key);
  auto range = [&] {
    if (hi == std::numeric_limits<int64_t>::max()) return fmt::format(">= {}", lo);
    return fmt::format("in [{}, {}]", lo, hi);
  };
  int64_t x = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(key, fmt::format("must be an integer {} (got {})", range(), v.dump()));
    x = v.get<int64_t>();
  } else if (v.is_number_float() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>()) &&
             std::fabs(v.get<double>()) < 9e15) {
    x = static_cast<int64_t>(v.get<double>());
  } else {
    fail(key, fmt::format("must be an integer {} (got {})", range(), v.dump()));
  }
  if (x < lo || x > hi) fail(key, fmt::format("must be an integer {} (got {})", range(), x));
  return x;
}

int64_t OptionReader::size(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < 1)
    fail(key, fmt::format("must be a positive integer (got {})", v.dump()));
  return v.get<int64_t>();
}

int64_t OptionReader::count(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < 0)
    fail(key, fmt::format("must be an integer >= 0 (got {})", v.dump()));
  return v.get<int64_t>();
}

double OptionReader::number(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(key, fmt::format("must be a number (got {})", v.dump()));
  return v.get<double>();
}

double OptionReader::number(const std::string& key, double lo, double hi, bool lo_open, bool hi_open) const {
  const nlohmann::json& v = at(key);
  const bool ok = v.is_number() && std::isfinite(v.get<double>()) &&
                  (lo_open ? v.get<double>() > lo : v.get<double>() >= lo) &&
                  (hi_open ? v.get<double>() < hi : v.get<double>() <= hi);
  if (!ok)
    fail(key, fmt::format("must be a number in {}{}, {}{} (got {})", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]",
                          v.dump()));
  return v.get<double>();
}

std::vector<double> OptionReader::numbers(const std::string& key, size_t count, double lo, double hi) const {
  const nlohmann::json& v = at(key);
  std::vector<double> out;
  if (v.is_array() && v.size() == count) {
    for (const nlohmann::json& e : v) {
      if (!e.is_number() || !std::isfinite(e.get<double>()) || e.get<double>() < lo || e.get<double>() > hi) break;
      out.push_back(e.get<double>());
    }
  }
  if (out.size() != count)
    fail(key, fmt::format("must be a list of {} numbers in [{}, {}] (got {})", count, lo, hi, v.dump()));
  return out;
}

bool OptionReader::flag(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_boolean()) fail(key, fmt::format("must be true or false (got {})", v.dump()));
  return v.get<bool>();
}

std::string OptionReader::string(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_string()) fail(key, fmt::format("must be a string (got {})", v.dump()));
  return v.get<std::string>();
}

std::string OptionReader::choice(const std::string& key, std::initializer_list<const char*> allowed) const {
  return choice(key, std::vector<const char*>(allowed));
}

std::string OptionReader::choice(const std::string& key, const std::vector<const char*>& allowed) const {
  const nlohmann::json& v = at(key);
  std::string list;
  for (const char* a : allowed) {
    if (v.is_string() && v.get<std::string>() == a) return a;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  fail(key, fmt::format("must be one of {} (got {})", list, v.dump()));
}

std::vector<int64_t> OptionReader::sizes(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (v.is_number_integer() && v.get<int64_t>() >= 1) return {v.get<int64_t>()};
  std::vector<int64_t> out;
  if (v.is_array()) {
    for (const nlohmann::json& e : v) {
      if (!e.is_number_integer() || e.get<int64_t>() < 1) break;
      out.push_back(e.get<int64_t>());
    }
    if (!out.empty() && out.size() == v.size()) return out;
  }
  fail(key, fmt::format("must be a list of positive integers such as [150,130,110] (got {})", v.dump()));
}

}  // namespace tg
