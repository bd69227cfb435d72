// The first difference between two configurations, for messages that must name what changed
// ("--resume: the options differ", "config.json does not match the checkpoint").
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tg::cli {

// The first dotted key (object keys in sorted order, depth first; list elements as key[i]) at which
// `a` and `b` differ, with both values: "model_options.hidden: 8 in the run, 9 here". A key one side
// lacks reads "absent"; long values are shortened. nullopt when they are equal (numbers compare by
// value: 8 equals 8.0). `a_name` and `b_name` follow the values in the message.
std::optional<std::string> first_difference(const nlohmann::json& a, const nlohmann::json& b,
                                            std::string_view a_name = "in the run", std::string_view b_name = "here");

}  // namespace tg::cli
