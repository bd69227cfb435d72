// libFuzzer harness for the run-config reader (tools/run_config.h): --config FILE and a run
// directory's config.json on --resume, eval and sample. Reads the file, resolves the config, and
// checks that what to_json writes reads back as the same config. The first line of an input is also
// tried as a --set assignment on the parsed JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tools/run_config.h"
#include "fuzz/fuzz_util.h"

namespace cli = tg::cli;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string& path = tg::fuzz::write_scratch(bytes, ".json");
  nlohmann::json j;
  try {
    j = cli::read_json_file(path);
  } catch (const tg::Error&) {
    return 0;
  }
  try {
    const cli::RunConfig c = cli::run_config_from_json(j, path);
    const nlohmann::json back = cli::to_json(c);
    if (cli::to_json(cli::run_config_from_json(back, "round trip")) != back) std::abort();  // not a fixed point
  } catch (const tg::Error&) {
  }
  try {
    const std::string first_line(bytes.substr(0, bytes.find('\n')));
    if (j.is_object()) cli::apply_set(j, first_line);
  } catch (const tg::Error&) {
  }
  return 0;
}
