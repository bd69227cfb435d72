#include "models/options.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::models {

void OptionReader::fail(const std::string& what) const {
  throw Error(fmt::format("model '{}': {}", model_, what));
}

const nlohmann::json& OptionReader::at(const std::string& key) const {
  if (!cfg_.contains(key)) fail(fmt::format("missing option '{}'", key));
  return cfg_.at(key);
}

int64_t OptionReader::count(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < 0)
    fail(fmt::format("option '{}' must be an integer >= 0 (got {})", key, v.dump()));
  return v.get<int64_t>();
}

int64_t OptionReader::size(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < 1)
    fail(fmt::format("option '{}' must be a positive integer (got {})", key, v.dump()));
  return v.get<int64_t>();
}

double OptionReader::number(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number()) fail(fmt::format("option '{}' must be a number (got {})", key, v.dump()));
  return v.get<double>();
}

bool OptionReader::flag(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_boolean()) fail(fmt::format("option '{}' must be true or false (got {})", key, v.dump()));
  return v.get<bool>();
}

std::string OptionReader::choice(const std::string& key, std::initializer_list<const char*> allowed) const {
  const nlohmann::json& v = at(key);
  std::string list;
  for (const char* a : allowed) {
    if (v.is_string() && v.get<std::string>() == a) return a;
    if (!list.empty()) list += ", ";
    list += a;
  }
  fail(fmt::format("option '{}' must be one of {} (got {})", key, list, v.dump()));
}

std::vector<int64_t> OptionReader::sizes(const std::string& key) const {
  const nlohmann::json& v = at(key);
  std::vector<int64_t> out;
  if (v.is_number_integer() && v.get<int64_t>() >= 1) return {v.get<int64_t>()};
  if (v.is_array()) {
    for (const nlohmann::json& e : v) {
      if (!e.is_number_integer() || e.get<int64_t>() < 1) {
        out.clear();
        break;
      }
      out.push_back(e.get<int64_t>());
    }
    if (!out.empty() && out.size() == v.size()) return out;
  }
  fail(fmt::format("option '{}' must be a list of positive integers such as [150,130,110] (got {})", key, v.dump()));
}

}  // namespace tg::models
