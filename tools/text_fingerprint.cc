#include "tools/text_fingerprint.h"

#include <zlib.h>

#include <fmt/format.h>

#include "tasks/text.h"

namespace tg::cli {
namespace text = tasks::text;

std::optional<nlohmann::json> text_fingerprint(const tasks::Dataset& train) {
  const auto* task = dynamic_cast<const text::TextTask*>(&train);
  if (!task) return std::nullopt;
  nlohmann::json parts = nlohmann::json::object();
  for (text::Part p : {text::Part::train, text::Part::valid, text::Part::test}) {
    const std::vector<int32_t>& ids = task->corpus().ids(p);
    // crc32_z reads at most its length argument; the ids are a contiguous int32 array
    const auto crc = crc32_z(0, reinterpret_cast<const Bytef*>(ids.data()), ids.size() * sizeof(int32_t));
    parts[text::part_name(p)] = {{"characters", ids.size()}, {"crc32", static_cast<uint32_t>(crc)}};
  }
  return parts;
}

std::optional<std::string> fingerprint_difference(const nlohmann::json& saved, const nlohmann::json& now) {
  for (const auto& [part, was] : saved.items()) {
    if (!now.contains(part)) return fmt::format("the {} part is gone", part);
    const nlohmann::json& is = now.at(part);
    if (is.value("characters", -1) != was.value("characters", -1))
      return fmt::format("the {} part has {} characters, was {}", part, is.value("characters", -1),
                         was.value("characters", -1));
    if (is.value("crc32", 0u) != was.value("crc32", 0u))
      return fmt::format("the {} part's text differs ({} characters as before)", part, is.value("characters", -1));
  }
  return std::nullopt;
}
}  // namespace tg::cli
