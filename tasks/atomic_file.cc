#include "tasks/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace tg::tasks {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
  if (path_.empty()) throw Error("no output file given");
  if (std::filesystem::is_directory(path_)) throw Error(fmt::format("cannot write {}: it is a directory", path_));
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw Error(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(tmp_.c_str());
}

void AtomicFile::fail(const char* what) {
  const int err = errno;
  if (file_) std::fclose(file_);
  file_ = nullptr;
  std::remove(tmp_.c_str());
  throw Error(fmt::format("cannot write {}: {} failed: {}", path_, what, std::strerror(err)));
}

void AtomicFile::write(std::string_view bytes) {
  TG_ASSERT(file_ && !committed_, "write to a closed AtomicFile {}", path_);
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail("write");
}

void AtomicFile::commit() {
  TG_ASSERT(file_ && !committed_, "commit of a closed AtomicFile {}", path_);
  if (std::fflush(file_) != 0) fail("flush");
  if (::fsync(::fileno(file_)) != 0) fail("fsync");
  if (std::fclose(file_) != 0) {
    file_ = nullptr;
    fail("close");
  }
  file_ = nullptr;
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("rename");
  committed_ = true;
  // Make the rename itself durable; a failure here cannot damage the file, so it is not an error.
  const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  AtomicFile f(path);
  f.write(contents);
  f.commit();
}

}  // namespace tg::tasks
