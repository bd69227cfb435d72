// Shared by the libFuzzer harnesses: a scratch file for readers that take a path, and the rule every
// harness enforces: bad input is a tg::Error (the command's one-line exit 2), never anything else.
// Any other exception escapes LLVMFuzzerTestOneInput and libFuzzer reports it as a crash, as it does
// every ASan/UBSan finding, leak, timeout (-timeout) and allocation over -rss_limit_mb.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tg::fuzz {

// One file per process under $TMPDIR (or /tmp), rewritten for every input and removed at exit.
inline const std::string& scratch_path(const char* suffix) {
  static const std::string path = [&] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/tapegrad-fuzz-" + std::to_string(getpid()) + suffix;
    static std::string removed_at_exit;
    removed_at_exit = p;
    std::atexit([] { std::remove(removed_at_exit.c_str()); });
    return p;
  }();
  return path;
}

inline const std::string& write_scratch(std::string_view bytes, const char* suffix) {
  const std::string& path = scratch_path(suffix);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) std::abort();
  if (std::fclose(f) != 0) std::abort();
  return path;
}

}  // namespace tg::fuzz
