// What a text run trained on, as its checkpoints remember it: the characters and the CRC-32 of each part
// (train, valid, test) of the corpus. A corpus file edited at the same path since the run began makes
// `train --resume` continue on other data; comparing fingerprints catches it.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tasks/dataset.h"

namespace tg::cli {
// nullopt when `train` is not a text task.
std::optional<nlohmann::json> text_fingerprint(const tasks::Dataset& train);
// The first part where `now` differs from `saved`, in words ("the train part: 1,204 characters, was 1,210"),
// or nullopt when they agree.
std::optional<std::string> fingerprint_difference(const nlohmann::json& saved, const nlohmann::json& now);
}  // namespace tg::cli
