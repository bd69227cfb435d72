// core/input_file.h: files from outside are regular files of bounded size, read without blocking.
#include "core/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/harness/error_of.h"

namespace tg {
namespace {
using check::error_of;
namespace fs = std::filesystem;

struct Dir {
  fs::path p = fs::temp_directory_path() / fs::path("tg_input_file_" + std::to_string(::getpid()));
  Dir() { fs::create_directories(p); }
  ~Dir() { fs::remove_all(p); }
  std::string operator/(const std::string& n) const { return (p / n).string(); }
};

TEST(InputFile, ReadsRegularFilesWholeOrByLine) {
  Dir d;
  const std::string f = d / "a.txt";
  std::ofstream(f) << "one\ntwo\r\nthree";
  EXPECT_EQ(read_input_file(f, "text", 100), "one\ntwo\r\nthree");
  InputFile in(f, "text", 100);
  EXPECT_EQ(in.size(), 14);
  std::string line;
  ASSERT_TRUE(in.read_line(line));
  EXPECT_EQ(line, "one");
  ASSERT_TRUE(in.read_line(line));
  EXPECT_EQ(line, "two\r");
  ASSERT_TRUE(in.read_line(line));
  EXPECT_EQ(line, "three");
  EXPECT_FALSE(in.read_line(line));
}

TEST(InputFile, RefusesWhatIsNotARegularFileOrTooBig) {
  Dir d;
  const std::string f = d / "a.json", fifo = d / "fifo";
  std::ofstream(f) << "0123456789";
  EXPECT_EQ(error_of([&] { read_input_file(f, "config", 9); }),
            "cannot read config " + f + ": 10 bytes, more than the 9 a config may have");
  EXPECT_EQ(error_of([&] { read_input_file(d / "none", "config", 9); }), "cannot read config " + d / "none" + ": no such file");
  EXPECT_EQ(error_of([&] { read_input_file(d.p.string(), "config", 9); }),
            "cannot read config " + d.p.string() + ": it is a directory");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);  // nobody writes it: an open without O_NONBLOCK would hang
  EXPECT_EQ(error_of([&] { read_input_file(fifo, "config", 9); }), "cannot read config " + fifo + ": not a regular file (a FIFO)");
  EXPECT_EQ(error_of([&] { read_input_file("/dev/zero", "config", 9); }),
            "cannot read config /dev/zero: not a regular file (a character device)");
}

}  // namespace
}  // namespace tg
