// JSON that comes from outside (configs, --set values, task files, checkpoints' state, metrics): parsed
// with a bound on nesting. nlohmann's parser itself is iterative, but destroying, copying or dumping a
// value recurses once per level, so 100,000 nested objects crash the process; 64 levels are far more
// than any tapegrad file has.
#pragma once
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace tg {

constexpr int kMaxJsonDepth = 64;

// As Json::parse(text, nullptr, allow_exceptions), but nesting deeper than kMaxJsonDepth and a key given
// twice in one object are a tg::Error naming `what` (the library keeps the last value of a repeated key
// without a word, so `{"lr": 0.1, ..., "lr": 1}` would train with 1). With allow_exceptions false, other
// syntax errors still give a discarded value.
template <class Json = nlohmann::json>
Json parse_json(std::string_view text, std::string_view what, bool allow_exceptions = true) {
  std::vector<std::unordered_set<std::string>> open;  // the keys of each object being parsed, innermost last
  auto check = [&](int depth, typename Json::parse_event_t event, Json& parsed) {
    if (depth > kMaxJsonDepth)
      throw Error(fmt::format("{}: JSON nested deeper than {} levels", what, kMaxJsonDepth));
    using Event = typename Json::parse_event_t;
    if (event == Event::object_start) {
      open.emplace_back();
    } else if (event == Event::object_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == Event::key && !open.empty() && parsed.is_string()) {
      const std::string& key = parsed.template get_ref<const typename Json::string_t&>();
      if (!open.back().insert(key).second)
        throw Error(fmt::format("{}: key '{}' appears twice in one object", what, key));
    }
    return true;
  };
  return Json::parse(text, check, allow_exceptions);
}

}  // namespace tg
