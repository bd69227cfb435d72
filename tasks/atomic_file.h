// A file written as a whole or not at all: the bytes go to PATH.tmp, which is flushed, fsync'ed and
// renamed over PATH on commit(). Destroyed without commit() (an error, an exception), it removes
// PATH.tmp and leaves PATH as it was.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace tg::tasks {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);  // throws tg::Error naming the path if PATH.tmp cannot be created
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  void commit();
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* what);
  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

// The whole of `contents` to `path`, atomically.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace tg::tasks
