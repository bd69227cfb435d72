// JSON that comes from outside (configs, --set values, task files, checkpoints' state, metrics): parsed
// with a bound on nesting. nlohmann's parser itself is iterative, but destroying, copying or dumping a
// value recurses once per level, so 100,000 nested objects crash the process; 64 levels are far more
// than any tapegrad file has.
#pragma once
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace tg {

constexpr int kMaxJsonDepth = 64;

// As Json::parse(text, nullptr, allow_exceptions), but nesting deeper than kMaxJsonDepth is a tg::Error
// naming `what` (with allow_exceptions false, other syntax errors still give a discarded value).
template <class Json = nlohmann::json>
Json parse_json(std::string_view text, std::string_view what, bool allow_exceptions = true) {
  auto limit = [&](int depth, typename Json::parse_event_t, Json&) {
    if (depth > kMaxJsonDepth)
      throw Error(fmt::format("{}: JSON nested deeper than {} levels", what, kMaxJsonDepth));
    return true;
  };
  return Json::parse(text, limit, allow_exceptions);
}

}  // namespace tg
