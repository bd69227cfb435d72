// A file written as a whole or not at all: the one writer every file of a run goes through
// (checkpoints, configs, metrics, vocabularies, task files, plots).
//
// The bytes go to PATH.tmp (close-on-exec); commit() flushes and fsyncs it, renames it over PATH and
// fsyncs the directory, so that after commit() returns both the contents and the name survive a
// crash. Any failure, the directory sync included, is a tg::Error naming PATH and the cause; PATH is
// then as it was and PATH.tmp is removed. Destroyed without commit() (an exception), it also removes
// PATH.tmp and leaves PATH as it was.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace tg {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);  // throws tg::Error naming the path if PATH.tmp cannot be created
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  void write(const void* data, size_t size);
  void commit();
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what);
  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
  bool done_ = false;  // renamed, or failed and cleaned up: nothing left to remove
};

// The whole of `contents` to `path`, atomically.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace tg
