// Test helper: whether an atomic write of `path` left a temporary file behind (core/atomic_file.h
// names them PATH.tmp.XXXXXX; PATH.tmp is checked too, the name older builds used).
#pragma once
#include <filesystem>
#include <string>

namespace tg::check {

inline bool has_temporary_files(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const std::string prefix = p.filename().string() + ".tmp";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace tg::check
