#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace tg {

namespace {
// The permissions fopen would have given (0666 less the umask): mkstemp's are 0600. umask can only be
// read by setting it, so it is read once, before any other thread of ours writes files.
mode_t new_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp.XXXXXX") {
  if (path_.empty()) throw Error("no output file given");
  std::error_code ec;
  if (std::filesystem::is_directory(path_, ec)) throw Error(fmt::format("{}: cannot write: it is a directory", path_));
  // A unique name in PATH's directory (so the rename stays within one file system): two writers of
  // PATH, or a stale temporary file, never share it. Close-on-exec, so children (gnuplot) never hold it.
  const int fd = ::mkostemp(tmp_.data(), O_CLOEXEC);
  if (fd < 0) {
    done_ = true;  // nothing was created
    fail(fmt::format("cannot create temporary file '{}', so cannot write it", tmp_));
  }
  if (::fchmod(fd, new_file_mode()) != 0 || !(file_ = ::fdopen(fd, "wb"))) {
    const int err = errno;
    ::close(fd);
    errno = err;
    fail(fmt::format("cannot set up temporary file '{}', so cannot write it", tmp_));
  }
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!done_) ::unlink(tmp_.c_str());
}

void AtomicFile::fail(const std::string& what) {
  const int err = errno;
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (!done_) ::unlink(tmp_.c_str());
  done_ = true;
  throw Error(fmt::format("{}: {}: {}", path_, what, std::strerror(err)));
}

void AtomicFile::write(const void* data, size_t size) {
  TG_ASSERT(file_ && !done_, "write to a closed AtomicFile {}", path_);
  if (size && std::fwrite(data, 1, size, file_) != size) fail("cannot write");
}

void AtomicFile::write(std::string_view bytes) { write(bytes.data(), bytes.size()); }

void AtomicFile::commit() {
  TG_ASSERT(file_ && !done_, "commit of a closed AtomicFile {}", path_);
  // The data must be on disk before the rename makes it visible, or a crash could leave a file that
  // has the new name but not the new contents.
  if (std::fflush(file_) != 0) fail("cannot write");
  if (::fsync(::fileno(file_)) != 0) fail("cannot sync");
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) fail("cannot close");
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail(fmt::format("cannot rename '{}' to it", tmp_));
  done_ = true;
  // The rename itself is durable only once the directory is synced.
  std::string dir = std::filesystem::path(path_).parent_path().string();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail(fmt::format("written, but cannot open directory '{}' to sync it", dir));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  errno = err;
  // EINVAL: a file system that cannot sync directories (the rename is as durable as it gets there).
  if (rc != 0 && err != EINVAL) fail(fmt::format("written, but cannot sync directory '{}'", dir));
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  AtomicFile f(path);
  f.write(contents);
  f.commit();
}

}  // namespace tg
