// libFuzzer harness for the .npz reader (core/npz.h): checkpoints and RNG states come from disk.
// From bytes in memory and from a file (the path NpzArchive and --resume take), then every array
// through the typed accessors a checkpoint load uses.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/npz.h"
#include "fuzz/fuzz_util.h"

namespace {
void use(const tg::NpzEntry& e) {
  try {
    (void)e.count();
    if (e.dtype == "<i8") (void)e.int64s();
    if (e.dtype == "<f4" || e.dtype == "<f8") {
      (void)e.doubles();
      (void)tg::to_tensor(e);
    }
    if (e.dtype == "|u1") (void)e.bytes();
  } catch (const tg::Error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    for (const tg::NpzEntry& e : tg::read_npz_bytes("fuzz.npz", std::vector<uint8_t>(data, data + size))) use(e);
  } catch (const tg::Error&) {
  }
  try {
    const std::string& path = tg::fuzz::write_scratch({reinterpret_cast<const char*>(data), size}, ".npz");
    tg::NpzArchive a(path);
    for (const auto& [name, e] : a.entries()) {
      use(e);
      try {
        (void)a.tensor(name);
      } catch (const tg::Error&) {
      }
    }
    (void)a.contains("theta");
    try {
      (void)a.at("no such array");
    } catch (const tg::Error&) {
    }
  } catch (const tg::Error&) {
  }
  return 0;
}
