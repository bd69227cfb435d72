// JSON from outside (core/json.h): a key given twice in one object is one error naming the input and the
// key (the library alone keeps the last value silently); the same key in different objects is fine;
// nesting past the bound is an error too.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/json.h"

namespace tg {
namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_json(text, "cfg.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ParseJson, AKeyTwiceInOneObjectIsAnError) {
  EXPECT_EQ(error_of(R"({"lr": 0.1, "steps": 5, "lr": 1})"), "cfg.json: key 'lr' appears twice in one object");
  EXPECT_EQ(error_of(R"({"model_options": {"hidden": 8, "hidden": 9}})"),
            "cfg.json: key 'hidden' appears twice in one object");
  EXPECT_EQ(error_of(R"([{"a": 1}, {"b": 2, "b": 3}])"), "cfg.json: key 'b' appears twice in one object");
  EXPECT_THROW((void)parse_json<nlohmann::ordered_json>(R"({"x": 1, "x": 1})", "f"), Error);
}

TEST(ParseJson, TheSameKeyInDifferentObjectsIsFine) {
  EXPECT_EQ(error_of(R"({"a": {"a": {"a": 1}}, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]})"), "");
  EXPECT_EQ(parse_json(R"({"a": {"b": 1}, "b": 2})", "f")["b"], 2);
}

TEST(ParseJson, NestingPastTheBoundIsAnError) {
  const std::string deep = std::string(kMaxJsonDepth + 5, '[') + std::string(kMaxJsonDepth + 5, ']');
  EXPECT_NE(error_of(deep).find("nested deeper than"), std::string::npos);
}

}  // namespace
}  // namespace tg
