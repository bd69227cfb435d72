// core/atomic_file.h: temporary files of unique names, so concurrent writers never share one.
#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/harness/error_of.h"
#include "tests/harness/temp_files.h"

namespace tg {
namespace {
namespace fs = std::filesystem;

struct Dir {
  fs::path p = fs::temp_directory_path() / fs::path("tg_atomic_file_" + std::to_string(::getpid()));
  Dir() { fs::create_directories(p); }
  ~Dir() { fs::remove_all(p); }
  std::string operator/(const std::string& n) const { return (p / n).string(); }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AtomicFile, TwoWritersOfOnePathDoNotShareATemporaryFile) {
  // With a fixed PATH.tmp the second writer truncated the first one's file, the first commit renamed
  // it away, and the second commit failed ("cannot rename") after writing into the renamed file.
  Dir d;
  const std::string path = d / "ckpt.npz";
  AtomicFile a(path), b(path);
  EXPECT_NE(a.temporary_path(), b.temporary_path());
  a.write("first writer\n");
  b.write("second\n");
  a.commit();
  EXPECT_EQ(contents(path), "first writer\n");
  b.commit();
  EXPECT_EQ(contents(path), "second\n");
  EXPECT_FALSE(check::has_temporary_files(path));
}

TEST(AtomicFile, AnotherFileNamedPathTmpIsLeftAlone) {
  Dir d;
  const std::string path = d / "config.json";
  std::ofstream(path + ".tmp") << "someone else's";
  write_file_atomically(path, "{}\n");
  EXPECT_EQ(contents(path), "{}\n");
  EXPECT_EQ(contents(path + ".tmp"), "someone else's");
}

TEST(AtomicFile, AbandonedWritesLeaveNothingAndFilesGetTheUsualPermissions) {
  Dir d;
  const std::string path = d / "metrics.jsonl";
  {
    AtomicFile f(path);
    f.write("partial");
    EXPECT_TRUE(fs::exists(f.temporary_path()));
  }  // destroyed without commit: as after an exception
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(check::has_temporary_files(path));
  write_file_atomically(path, "x\n");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);  // as fopen would create it, not mkstemp's 0600
}

}  // namespace
}  // namespace tg
