// The run-config reader (tools/run_config.h): integer fields take JSON integers in their type's range
// and nothing else. nlohmann's get<T>() casts floats and bools, which is undefined behaviour out of
// range: fuzz/run_config_fuzz found "seed": 8.1e19 (UBSan: float-cast-overflow).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tools/run_config.h"

namespace tg::cli {
namespace {

std::string error_of(const std::string& json_text) {
  try {
    run_config_from_json(nlohmann::json::parse(json_text), "run.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RunConfig, IntegerFieldsRejectFloatsBoolsAndOutOfRangeValues) {
  for (const char* bad : {R"({"seed": 81446744073709551614})", R"({"seed": -1})", R"({"seed": 1.5})",
                          R"({"steps": 1e30})", R"({"steps": 3.5})", R"({"steps": true})",
                          R"({"steps": 9223372036854775808})", R"({"batch": -1e300})", R"({"threads": 4294967297})",
                          R"({"threads": "2"})", R"({"eval_every": null})"}) {
    const std::string msg = error_of(bad);
    const std::string key = nlohmann::json::parse(bad).begin().key();
    EXPECT_NE(msg.find("run.json: '" + key + "'"), std::string::npos) << bad << " -> '" << msg << "'";
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(RunConfig, IntegerFieldsTakeTheirWholeRange) {
  const RunConfig c = run_config_from_json(
      nlohmann::json::parse(R"({"seed": 18446744073709551615, "steps": 9223372036854775807, "threads": 2147483647})"), "x");
  EXPECT_EQ(c.seed, UINT64_MAX);
  EXPECT_EQ(c.steps, INT64_MAX);
  EXPECT_EQ(c.threads, 2147483647);
  // JSON built in code holds non-negative integers as signed: still a valid seed.
  nlohmann::json j = nlohmann::json::object();
  j["seed"] = int64_t{5};
  EXPECT_EQ(run_config_from_json(j, "x").seed, 5u);
  // what to_json writes reads back unchanged
  EXPECT_EQ(to_json(run_config_from_json(to_json(c), "x")), to_json(c));
}

// A number too large for a double is nlohmann's out_of_range, not a parse_error: it escaped
// read_json_file without the file's name (fuzz/run_config_fuzz).
TEST(RunConfig, ReadJsonFileNamesTheFileForEveryJsonError) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tapegrad_run_config_" + std::to_string(::getpid()) + ".json")).string();
  for (const char* text : {R"({"steps": 1e400})", R"({"steps": -4467440737e51615})", R"({"steps": )"}) {
    std::ofstream(path) << text;
    try {
      read_json_file(path);
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": invalid JSON"), std::string::npos) << e.what();
    }
  }
  std::remove(path.c_str());
}

// Denormals (ops/float_env.h): flushed unless a run says keep; a run recorded before the option kept
// them and resumes doing so (the arithmetic it was trained with).
TEST(RunConfig, DenormalsAreFlushOrKeepAndOldRunsKeepThem) {
  EXPECT_NE(error_of(R"({"denormals": "sometimes"})").find("'denormals' must be flush or keep"), std::string::npos)
      << error_of(R"({"denormals": "sometimes"})");
  EXPECT_EQ(run_config_from_json(nlohmann::json::parse(R"({"denormals": "keep"})"), "run.json").denormals, "keep");
  // unset ("", as in a run recorded before the option): tools/run_setup.cc resolves it, tests/scripts/denormals.sh
  EXPECT_EQ(run_config_from_json(nlohmann::json::parse(R"({"model": "rnn"})"), "run.json").denormals, "");
}

}  // namespace
}  // namespace tg::cli
