#include "tools/config_diff.h"

#include <fmt/format.h>

#include <algorithm>

namespace tg::cli {

namespace {

std::string shown(const nlohmann::json* v) {
  if (!v) return "absent";
  std::string s = v->dump();
  constexpr size_t kMax = 60;  // one error line, even for a changed list of layer sizes
  return s.size() > kMax ? s.substr(0, kMax - 3) + "..." : s;
}

// The key of the first difference below `at` (its path so far), or nullopt.
std::optional<std::string> diff(const nlohmann::json* a, const nlohmann::json* b, const std::string& at,
                                const nlohmann::json** da, const nlohmann::json** db) {
  if (a && b && a->is_object() && b->is_object()) {
    std::vector<std::string> keys;
    for (auto it = a->begin(); it != a->end(); ++it) keys.push_back(it.key());
    for (auto it = b->begin(); it != b->end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const std::string& k : keys) {
      const auto ia = a->find(k), ib = b->find(k);
      if (auto d = diff(ia != a->end() ? &*ia : nullptr, ib != b->end() ? &*ib : nullptr, at.empty() ? k : at + "." + k,
                        da, db))
        return d;
    }
    return std::nullopt;
  }
  if (a && b && a->is_array() && b->is_array() && a->size() == b->size()) {
    for (size_t i = 0; i < a->size(); ++i)
      if (auto d = diff(&(*a)[i], &(*b)[i], fmt::format("{}[{}]", at, i), da, db)) return d;
    return std::nullopt;
  }
  if (a && b && *a == *b) return std::nullopt;
  *da = a;
  *db = b;
  return at;
}

}  // namespace

std::optional<std::string> first_difference(const nlohmann::json& a, const nlohmann::json& b, std::string_view a_name,
                                            std::string_view b_name) {
  const nlohmann::json *da = nullptr, *db = nullptr;
  const std::optional<std::string> key = diff(&a, &b, "", &da, &db);
  if (!key) return std::nullopt;
  const std::string values = fmt::format("{} {}, {} {}", shown(da), a_name, shown(db), b_name);
  return key->empty() ? values : *key + ": " + values;
}

}  // namespace tg::cli
