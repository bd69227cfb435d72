// A file written as a whole or not at all: the one writer every file of a run goes through
// (checkpoints, configs, metrics, vocabularies, task files, plots).
//
// The bytes go to a temporary file of a unique name, PATH.tmp.XXXXXX (mkostemp, in PATH's directory,
// close-on-exec, the permissions fopen would give), so two writers of PATH never share it; commit()
// flushes and fsyncs it, renames it over PATH and fsyncs the directory, so that after commit()
// returns both the contents and the name survive a crash. Any failure, the directory sync included,
// is a tg::Error naming PATH and the cause; PATH is then as it was and the temporary file is removed.
// Destroyed without commit() (an exception), it also removes the temporary file and leaves PATH as it
// was. Only a process killed mid-write leaves one behind (PATH.tmp.*; never read by tapegrad).
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace tg {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);  // throws tg::Error naming the path if the temporary file cannot be created
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  void write(const void* data, size_t size);
  void commit();
  const std::string& path() const { return path_; }
  const std::string& temporary_path() const { return tmp_; }

 private:
  [[noreturn]] void fail(const std::string& what);
  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
  bool done_ = false;  // renamed, or failed and cleaned up: nothing left to remove
};

// The whole of `contents` to `path`, atomically.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace tg
