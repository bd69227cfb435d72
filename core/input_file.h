// Files that come from outside (configs, text corpora, vocabularies, task files, checkpoints): opened
// so that a path which is not a regular file cannot hang or exhaust the process. A FIFO would block
// open() and read() forever and /dev/zero never ends, so the path is stat'ed first, opened with
// O_NONBLOCK (a FIFO swapped in after the stat cannot block either) and fstat'ed again; anything but
// a regular file of at most `max_bytes` is one tg::Error naming what, the path and the reason:
//   cannot read text file /dev/zero: not a regular file (a character device)
//   cannot read config big.json: 70000000 bytes, more than the 67108864 a config may have
// Header-only so that it needs no new source in the engine's target list.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"

namespace tg {

// Bounds for the kinds of files tapegrad reads: far above any real file of the kind, far below what
// would exhaust memory before the content is even looked at.
constexpr int64_t kMaxJsonFileBytes = int64_t{64} << 20;    // configs, vocabularies
constexpr int64_t kMaxTextFileBytes = int64_t{4} << 30;     // text corpora (~20 bytes of RAM per byte: docs/tasks.md)
constexpr int64_t kMaxTaskFileBytes = int64_t{16} << 30;    // task files (JSON lines)
constexpr int64_t kMaxCheckpointBytes = int64_t{8} << 30;   // .npz archives (no zip64: < 4 GiB each member)

inline const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISFIFO(mode)) return "not a regular file (a FIFO)";
  if (S_ISCHR(mode)) return "not a regular file (a character device)";
  if (S_ISBLK(mode)) return "not a regular file (a block device)";
  if (S_ISSOCK(mode)) return "not a regular file (a socket)";
  return "not a regular file";
}

// An open regular file of known size; reads never go past max_bytes, even if the file grows.
class InputFile {
 public:
  InputFile(std::string path, std::string_view what, int64_t max_bytes)
      : path_(std::move(path)), what_(what), max_(max_bytes) {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) fail(errno == ENOENT ? "no such file" : std::strerror(errno));
    if (!S_ISREG(st.st_mode)) fail(file_type_name(st.st_mode));
    const int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) fail(std::strerror(errno));
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // replaced between stat and open
      ::close(fd);
      fail(file_type_name(st.st_mode));
    }
    file_ = ::fdopen(fd, "rb");
    if (!file_) {
      const int err = errno;
      ::close(fd);
      fail(std::strerror(err));
    }
    size_ = static_cast<int64_t>(st.st_size);
    if (size_ > max_) too_big(size_);
  }
  ~InputFile() {
    if (file_) std::fclose(file_);
    std::free(line_buf_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  int64_t size() const { return size_; }  // at open

  // The rest of the file, as a std::string or a std::vector<uint8_t>.
  template <class Bytes = std::string>
  Bytes read_all() {
    Bytes out;
    out.reserve(static_cast<size_t>(size_));
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) {
      read_ += static_cast<int64_t>(n);
      if (read_ > max_) too_big(read_);
      out.insert(out.end(), buf, buf + n);
    }
    if (std::ferror(file_)) fail(fmt::format("read error: {}", std::strerror(errno)));
    return out;
  }

  // The next line without its '\n'; false at the end of the file.
  bool read_line(std::string& line) {
    const ssize_t n = ::getline(&line_buf_, &line_cap_, file_);
    if (n < 0) {
      if (std::ferror(file_)) fail(fmt::format("read error: {}", std::strerror(errno)));
      line.clear();
      return false;
    }
    read_ += n;
    if (read_ > max_) too_big(read_);
    line.assign(line_buf_, static_cast<size_t>(n));
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return true;
  }

 private:
  [[noreturn]] void fail(std::string_view why) const {
    throw Error(fmt::format("cannot read {} {}: {}", what_, path_, why));
  }
  [[noreturn]] void too_big(int64_t bytes) const {
    fail(fmt::format("{} bytes, more than the {} a {} may have", bytes, max_, what_));
  }
  std::string path_, what_;
  int64_t max_, size_ = 0, read_ = 0;
  std::FILE* file_ = nullptr;
  char* line_buf_ = nullptr;  // getline(3)'s buffer
  size_t line_cap_ = 0;
};

// The whole of a regular file of at most max_bytes; `what` names the kind of file in errors.
inline std::string read_input_file(const std::string& path, std::string_view what, int64_t max_bytes) {
  return InputFile(path, what, max_bytes).read_all();
}

}  // namespace tg
