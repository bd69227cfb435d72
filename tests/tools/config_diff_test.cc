// tools/config_diff.h: the first differing dotted key of two configurations, with both values.
#include "tools/config_diff.h"

#include <gtest/gtest.h>

namespace tg::cli {
namespace {
using nlohmann::json;

TEST(ConfigDiff, NamesTheFirstDifferingDottedKeyWithBothValues) {
  const json run = {{"model", "rnn"}, {"model_options", {{"hidden", 8}, {"activation", "tanh"}}}, {"seed", 1}};
  EXPECT_EQ(first_difference(run, run), std::nullopt);
  json here = run;
  here["model_options"]["hidden"] = 9;
  EXPECT_EQ(first_difference(run, here), "model_options.hidden: 8 in the run, 9 here");
  here["model_options"]["activation"] = "relu";  // sorted keys: activation comes first
  EXPECT_EQ(first_difference(run, here, "in the checkpoint", "in config.json"),
            "model_options.activation: \"tanh\" in the checkpoint, \"relu\" in config.json");
}

TEST(ConfigDiff, MissingKeysListsAndNumbers) {
  EXPECT_EQ(first_difference(json{{"a", {{"b", 1}}}}, json{{"a", json::object()}}), "a.b: 1 in the run, absent here");
  EXPECT_EQ(first_difference(json{{"split", {0.9, 0.05, 0.05}}}, json{{"split", {0.9, 0.1, 0.0}}}),
            "split[1]: 0.05 in the run, 0.1 here");
  EXPECT_EQ(first_difference(json{{"layers", {1, 2}}}, json{{"layers", {1, 2, 3}}}),
            "layers: [1,2] in the run, [1,2,3] here");
  EXPECT_EQ(first_difference(json{{"steps", 8}}, json{{"steps", 8.0}}), std::nullopt);
  EXPECT_EQ(first_difference(json(1), json("1")), "1 in the run, \"1\" here");
  const std::string long_text(100, 'x');
  EXPECT_EQ(first_difference(json{{"f", long_text}}, json{{"f", "y"}}),
            "f: \"" + std::string(56, 'x') + "... in the run, \"y\" here");
}

}  // namespace
}  // namespace tg::cli
