// The IDX reader (tasks/idx): files it writes itself, plain and gzip, read back exactly; hostile files
// (truncated, trailing bytes, unknown types, absurd or zero dimensions, corrupt gzip, not a regular
// file) are one error each, before any large allocation; Debian's Fashion-MNIST when installed.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "tasks/idx.h"

namespace tg::tasks {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}
std::string be32(uint32_t v) {
  return bytes_of({static_cast<int>(v >> 24 & 255), static_cast<int>(v >> 16 & 255), static_cast<int>(v >> 8 & 255),
                   static_cast<int>(v & 255)});
}

class Idx : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("idx_test_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& content) {
    const std::string p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  std::string write_gz(const std::string& name, const std::string& content) {
    const std::string p = (dir / name).string();
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
    gzclose(f);
    return p;
  }
  std::string error_of(const std::string& path, int64_t max_values = int64_t{1} << 31) {
    try {
      read_idx(path, max_values);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

// A 2 x 3 image of unsigned bytes, and its values.
const std::string kImage = bytes_of({0, 0, 0x08, 2}) + be32(2) + be32(3) + bytes_of({0, 1, 2, 253, 254, 255});

TEST_F(Idx, ReadsPlainAndGzipFilesOfEveryType) {
  for (const std::string& p : {write("a.idx", kImage), write_gz("a.idx.gz", kImage)}) {
    const IdxArray a = read_idx(p);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3})) << p;
    EXPECT_EQ(a.values, (std::vector<float>{0, 1, 2, 253, 254, 255})) << p;
  }
  const IdxArray s = read_idx(write("s.idx", bytes_of({0, 0, 0x09, 1}) + be32(2) + bytes_of({0xff, 5})));
  EXPECT_EQ(s.values, (std::vector<float>{-1, 5}));
  const IdxArray h = read_idx(write("h.idx", bytes_of({0, 0, 0x0B, 1}) + be32(1) + bytes_of({0xff, 0xfe})));
  EXPECT_EQ(h.values, (std::vector<float>{-2}));
  const IdxArray i = read_idx(write("i.idx", bytes_of({0, 0, 0x0C, 1}) + be32(1) + be32(70000)));
  EXPECT_EQ(i.values, (std::vector<float>{70000}));
  const IdxArray f = read_idx(write("f.idx", bytes_of({0, 0, 0x0D, 1}) + be32(1) + be32(0x3fc00000)));  // 1.5f
  EXPECT_EQ(f.values, (std::vector<float>{1.5f}));
  const IdxArray d = read_idx(write("d.idx", bytes_of({0, 0, 0x0E, 1}) + be32(1) + be32(0xc0040000) + be32(0)));  // -2.5
  EXPECT_EQ(d.values, (std::vector<float>{-2.5f}));
}

TEST_F(Idx, HostileFilesAreOneClearError) {
  struct Case {
    const char* name;
    std::string content;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"empty", "", "truncated"},
      {"short_magic", bytes_of({0, 0}), "truncated"},
      {"not_idx", "P5\n28 28\n255\n", "not an IDX file"},
      {"bad_type", bytes_of({0, 0, 0x07, 1}) + be32(1) + bytes_of({1}), "unknown IDX element type 0x07"},
      {"no_dims", bytes_of({0, 0, 0x08, 0}), "no dimensions"},
      {"zero_dim", bytes_of({0, 0, 0x08, 2}) + be32(0) + be32(3), "dimension 0 is 0"},
      {"truncated_dims", bytes_of({0, 0, 0x08, 3}) + be32(2), "dimension 1"},
      {"truncated_data", kImage.substr(0, kImage.size() - 2), "truncated: the data"},
      {"trailing", kImage + "x", "bytes after the 6 values"},
      // 4 x 2^31 values from a 27-byte file: refused from the header, nothing allocated
      {"huge", bytes_of({0, 0, 0x08, 4}) + be32(0xffffffff) + be32(0xffffffff) + be32(0xffffffff) + be32(2) + "abc",
       "dimension 0 is 4294967295"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(write(std::string(c.name) + ".idx", c.content));
    EXPECT_NE(msg.find(c.says), std::string::npos) << c.name << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << c.name;
    const std::string gz = error_of(write_gz(std::string(c.name) + ".idx.gz", c.content));
    EXPECT_NE(gz.find(c.says), std::string::npos) << c.name << " (gzip): " << gz;
  }
  // a declared size above the caller's bound
  EXPECT_NE(error_of(write("big.idx", kImage), 5).find("more than 5 values"), std::string::npos);
  // a gzip stream cut short, and one with a flipped byte
  std::string gz;
  {
    const std::string p = write_gz("ok.idx.gz", kImage + std::string(5000, 'x'));
    std::ifstream in(p, std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NE(error_of(write("cut.idx.gz", gz.substr(0, gz.size() / 2))).find("truncated"), std::string::npos);
  std::string flipped = gz;
  flipped[12] = static_cast<char>(flipped[12] ^ 0x55);
  EXPECT_FALSE(error_of(write("flip.idx.gz", flipped)).empty());
  // not a regular file
  EXPECT_NE(error_of("/dev/zero").find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of(dir.string()).find("directory"), std::string::npos);
}

// Debian's dataset-fashion-mnist (scripts/setup.sh installs it): the test set's images and labels.
TEST_F(Idx, ReadsDebiansFashionMnist) {
  const std::string root = "/usr/share/datasets/fashion-mnist/";
  if (!fs::exists(root + "t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const IdxArray images = read_idx(root + "t10k-images-idx3-ubyte.gz");
  const IdxArray labels = read_idx(root + "t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(images.shape, (std::vector<int64_t>{10000, 28, 28}));
  EXPECT_EQ(labels.shape, (std::vector<int64_t>{10000}));
  float lo = 255, hi = 0;
  for (float v : images.values) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 255);
  std::vector<int> per_class(10, 0);
  for (float v : labels.values) {
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 9);
    ++per_class[static_cast<int>(v)];
  }
  for (int k = 0; k < 10; ++k) EXPECT_EQ(per_class[k], 1000) << "class " << k;  // the test set is balanced
}

}  // namespace
}  // namespace tg::tasks
