// PNG image grids (tools/image_grid): files read back with libpng have the grid's size and exact grey
// levels (scaled pixels, grey separators and empty cells, clamping, NaN); sizes that do not match and
// writes that cannot happen are one error naming the file, and leave no file or temporary behind and an
// existing file as it was.
#include <gtest/gtest.h>
#include <png.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "tests/harness/error_of.h"
#include "tests/harness/temp_files.h"
#include "tools/image_grid.h"

namespace tg::cli {
namespace {
namespace fs = std::filesystem;

using check::contains;
using check::error_of;
using check::has_temporary_files;

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "tapegrad-image-grid-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  int64_t entries() const { return std::distance(fs::directory_iterator(path_), fs::directory_iterator()); }

 private:
  fs::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct GreyPng {
  int64_t width = 0, height = 0;
  std::vector<uint8_t> pixels;
  int at(int64_t y, int64_t x) const { return pixels.at(static_cast<size_t>(y * width + x)); }
};

// Reads `path` with libpng; the file itself must be 8-bit grayscale without alpha.
GreyPng read_png(const std::string& path) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  GreyPng png;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    ADD_FAILURE() << path << ": " << image.message;
    return png;
  }
  EXPECT_EQ(image.format, static_cast<png_uint_32>(PNG_FORMAT_GRAY)) << "not 8-bit grayscale";
  image.format = PNG_FORMAT_GRAY;
  png.width = image.width;
  png.height = image.height;
  png.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, png.pixels.data(), 0, nullptr)) ADD_FAILURE() << path << ": " << image.message;
  return png;
}

// Image k of a 3×5 grid cell: pixel (y, x) = (10k + 5y + x) / 255 exactly, so every pixel is traceable.
std::vector<float> numbered_images(int count) {
  std::vector<float> images;
  for (int k = 0; k < count; ++k)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x) images.push_back(static_cast<float>(10 * k + 5 * y + x) / 255.0f);
  return images;
}

ImageGrid grid_2x3() {
  ImageGrid g;
  g.height = 3;
  g.width = 5;
  g.rows = 2;
  g.cols = 3;
  g.border = 2;
  g.scale = 4;
  return g;
}

TEST(ImageGrid, SizeIsCellsTimesScalePlusBordersBetween) {
  ScratchDir dir;
  const ImageGrid g = grid_2x3();
  EXPECT_EQ(grid_png_width(g), 3 * 5 * 4 + 2 * 2);
  EXPECT_EQ(grid_png_height(g), 2 * 3 * 4 + 1 * 2);
  write_png_grid(dir / "grid.png", numbered_images(6), g);
  const GreyPng png = read_png(dir / "grid.png");
  EXPECT_EQ(png.width, 64);
  EXPECT_EQ(png.height, 26);

  ImageGrid plain = g;
  plain.border = 0;
  plain.scale = 1;
  write_png_grid(dir / "plain.png", numbered_images(6), plain);
  const GreyPng small = read_png(dir / "plain.png");
  EXPECT_EQ(small.width, 15);
  EXPECT_EQ(small.height, 6);
  EXPECT_EQ(small.at(4, 7), 10 * 4 + 5 * 1 + 2);  // image 4 (row 1, column 1), its pixel (1, 2)
}

TEST(ImageGrid, EveryPixelIsWhereTheGridPutsIt) {
  ScratchDir dir;
  const ImageGrid g = grid_2x3();
  write_png_grid(dir / "grid.png", numbered_images(5), g);  // the sixth cell stays empty
  const GreyPng png = read_png(dir / "grid.png");
  ASSERT_EQ(png.pixels.size(), 64u * 26u);
  for (int64_t y = 0; y < png.height; ++y) {
    for (int64_t x = 0; x < png.width; ++x) {
      const int64_t cell_y = y / (3 * 4 + 2), in_y = y % (3 * 4 + 2);
      const int64_t cell_x = x / (5 * 4 + 2), in_x = x % (5 * 4 + 2);
      const int64_t k = cell_y * 3 + cell_x;
      int expected = kGridGrey;  // separator, or the empty sixth cell
      if (in_y < 12 && in_x < 20 && k < 5) expected = static_cast<int>(10 * k + 5 * (in_y / 4) + in_x / 4);
      ASSERT_EQ(png.at(y, x), expected) << "at row " << y << ", column " << x;
    }
  }
}

TEST(ImageGrid, ValuesAreClampedAndNaNIsGrey) {
  ScratchDir dir;
  ImageGrid g;
  g.height = 1;
  g.width = 8;
  g.rows = g.cols = 1;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {-3.0f, 2.0f, -inf, inf, std::nanf(""), 0.0f, 1.0f, 0.2f};
  write_png_grid(dir / "clamp.png", values, g);
  const GreyPng png = read_png(dir / "clamp.png");
  ASSERT_EQ(png.width, 8);
  const int expected[] = {0, 255, 0, 255, kGridGrey, 0, 255, 51};
  for (int x = 0; x < 8; ++x) EXPECT_EQ(png.at(0, x), expected[x]) << "value " << values[x];
}

TEST(ImageGrid, SizesThatDoNotMatchAreErrorsNamingThem) {
  ScratchDir dir;
  const std::string path = dir / "grid.png";
  const ImageGrid g = grid_2x3();
  std::string msg = error_of([&] { write_png_grid(path, std::vector<float>(14), g); });
  EXPECT_TRUE(contains(msg, path + ": ")) << msg;
  EXPECT_TRUE(contains(msg, "14 floats") && contains(msg, "3×5")) << msg;
  msg = error_of([&] { write_png_grid(path, numbered_images(7), g); });
  EXPECT_TRUE(contains(msg, "7 images") && contains(msg, "2×3 = 6 cells")) << msg;
  ImageGrid bad = g;
  bad.height = 0;
  msg = error_of([&] { write_png_grid(path, {}, bad); });
  EXPECT_TRUE(contains(msg, path + ": ") && contains(msg, "height=0")) << msg;
  bad = g;
  bad.border = -1;
  EXPECT_TRUE(contains(error_of([&] { write_png_grid(path, {}, bad); }), "border=-1"));
  bad = g;
  bad.scale = 100000;  // 1,500,004 pixels wide
  msg = error_of([&] { write_png_grid(path, {}, bad); });
  EXPECT_TRUE(contains(msg, "1500004×600002")) << msg;
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(dir.entries(), 0);
}

TEST(ImageGrid, AFileThatCannotBeWrittenIsAnErrorAndLeavesNothing) {
  ScratchDir dir;
  const std::string missing = dir / "no/such/dir/grid.png";
  std::string msg = error_of([&] { write_png_grid(missing, numbered_images(6), grid_2x3()); });
  EXPECT_TRUE(contains(msg, missing + ": ")) << msg;
  EXPECT_FALSE(fs::exists(missing));
  std::ofstream(dir / "plain_file") << "x";
  const std::string under_file = dir / "plain_file/grid.png";
  msg = error_of([&] { write_png_grid(under_file, numbered_images(6), grid_2x3()); });
  EXPECT_TRUE(contains(msg, under_file + ": ")) << msg;
  fs::create_directory(dir / "a_directory");
  msg = error_of([&] { write_png_grid(dir / "a_directory", numbered_images(6), grid_2x3()); });
  EXPECT_TRUE(contains(msg, "directory")) << msg;
  EXPECT_TRUE(fs::is_directory(dir / "a_directory"));
  EXPECT_EQ(dir.entries(), 2);  // plain_file and a_directory: no temporary file left
}

TEST(ImageGrid, AFailedWriteLeavesTheExistingFileAsItWas) {
  ScratchDir dir;
  const std::string path = dir / "grid.png";
  std::ofstream(path) << "the old grid";
  const std::string before = read_bytes(path);

  // Sizes that do not match: refused before the disk is touched.
  EXPECT_TRUE(contains(error_of([&] { write_png_grid(path, std::vector<float>(3), grid_2x3()); }), "3 floats"));
  EXPECT_EQ(read_bytes(path), before);

  // The disk "fills up" half-way (a file-size limit below the PNG's size): the temporary file goes.
  ImageGrid big = grid_2x3();
  big.scale = 40;
  std::vector<float> noise(6 * 15);
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<float>((i * 37) % 101) / 100.0f;
  std::string msg;
  {
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    struct rlimit small = old;
    small.rlim_cur = 100;
    auto old_handler = ::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of a killed process
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    msg = error_of([&] { write_png_grid(path, noise, big); });
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, old_handler);
  }
  EXPECT_TRUE(contains(msg, path + ": ") && contains(msg, "File too large")) << msg;
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_FALSE(has_temporary_files(path));

  // A write that succeeds replaces it.
  write_png_grid(path, noise, big);
  EXPECT_EQ(read_png(path).width, grid_png_width(big));
  EXPECT_EQ(dir.entries(), 1);
}

}  // namespace
}  // namespace tg::cli
