#include "tasks/options.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace tg::tasks {

void OptionReader::fail(const std::string& key, const std::string& what) const {
  throw Error(fmt::format("task '{}': option '{}' {}", task_, key, what));
}

const nlohmann::json& OptionReader::at(const std::string& key) const {
  if (!cfg_.contains(key)) throw Error(fmt::format("task '{}': missing option '{}'", task_, key));
  return cfg_.at(key);
}

int64_t OptionReader::integer(const std::string& key, int64_t lo, int64_t hi) const {
  const nlohmann::json& v = at(key);
  auto range = [&] {
    return hi == INT64_MAX ? fmt::format(">= {}", lo) : fmt::format("in [{}, {}]", lo, hi);
  };
  int64_t x = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail(key, fmt::format("must be an integer {} (got {})", range(), v.dump()));
    x = v.get<int64_t>();
  } else if (v.is_number_float() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>()) &&
             std::fabs(v.get<double>()) < 9e15) {
    x = static_cast<int64_t>(v.get<double>());  // 100.0 from a JSON writer is still 100
  } else {
    fail(key, fmt::format("must be an integer {} (got {})", range(), v.dump()));
  }
  if (x < lo || x > hi) fail(key, fmt::format("must be an integer {} (got {})", range(), x));
  return x;
}

double OptionReader::number(const std::string& key, double lo, double hi) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
    fail(key, fmt::format("must be a number in [{}, {}] (got {})", lo, hi, v.dump()));
  return v.get<double>();
}

std::string OptionReader::string(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_string()) fail(key, fmt::format("must be a string (got {})", v.dump()));
  return v.get<std::string>();
}

std::string OptionReader::choice(const std::string& key, std::initializer_list<const char*> allowed) const {
  const nlohmann::json& v = at(key);
  std::string list;
  for (const char* a : allowed) {
    if (v.is_string() && v.get<std::string>() == a) return a;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  fail(key, fmt::format("must be one of {} (got {})", list, v.dump()));
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

}  // namespace tg::tasks
