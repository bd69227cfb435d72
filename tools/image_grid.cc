#include "tools/image_grid.h"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <string>

#include "core/atomic_file.h"
#include "core/error.h"

namespace tg::cli {

namespace {

constexpr int64_t kMaxSide = 1000000;             // libpng refuses wider or higher images by default
constexpr int64_t kMaxPixels = int64_t{1} << 28;  // 256 MB of pixels: far beyond any grid worth looking at

// n images of `size` pixels, each drawn `scale` times larger, with `border` pixels between neighbours;
// -1 when that overflows.
int64_t side_of(int64_t n, int64_t size, int64_t scale, int64_t border) {
  int64_t drawn, images, borders, side;
  if (__builtin_mul_overflow(size, scale, &drawn) || __builtin_mul_overflow(n, drawn, &images) ||
      __builtin_mul_overflow(n - 1, border, &borders) || __builtin_add_overflow(images, borders, &side))
    return -1;
  return side;
}

void check_grid(const ImageGrid& g) {
  if (g.height <= 0 || g.width <= 0 || g.rows <= 0 || g.cols <= 0 || g.scale <= 0 || g.border < 0) {
    throw Error(fmt::format("the grid must have positive sizes and a border >= 0; it has height={} width={} rows={} "
                            "cols={} scale={} border={}",
                            g.height, g.width, g.rows, g.cols, g.scale, g.border));
  }
}

int64_t checked_side(const ImageGrid& g, int64_t n, int64_t size, const char* what) {
  check_grid(g);
  const int64_t side = side_of(n, size, g.scale, g.border);
  if (side < 0) throw Error(fmt::format("the grid's {} overflows", what));
  return side;
}

// What libpng reports before it jumps back: its message, kept for the tg::Error.
struct PngFailure {
  char message[256] = "";
};

void on_png_error(png_structp png, png_const_charp message) {
  auto* failure = static_cast<PngFailure*>(png_get_error_ptr(png));
  std::snprintf(failure->message, sizeof failure->message, "%s", message);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}  // nothing libpng warns about changes the file

// libpng writes into a string; the file is written from it in one piece. An allocation failure is
// turned into png_error after the try block, so that no C++ object is alive when libpng jumps.
void append_bytes(png_structp png, png_bytep data, size_t size) {
  auto* bytes = static_cast<std::string*>(png_get_io_ptr(png));
  bool appended = true;
  try {
    bytes->append(reinterpret_cast<const char*>(data), size);
  } catch (...) {
    appended = false;
  }
  if (!appended) png_error(png, "out of memory");
}

void flush_nothing(png_structp) {}

// Encodes `pixels` (width × height, row-major) into `png_bytes`. libpng reports errors by longjmp to
// the setjmp below, so this function holds no object with a destructor: false, with the message in
// `failure`, when libpng failed.
bool encode_png(const uint8_t* pixels, uint32_t width, uint32_t height, std::string* png_bytes, PngFailure* failure) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, failure, on_png_error, on_png_warning);
  if (!png) {
    std::snprintf(failure->message, sizeof failure->message, "libpng cannot start a write");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(failure->message, sizeof failure->message, "libpng cannot start a write");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, png_bytes, append_bytes, flush_nothing);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (uint32_t r = 0; r < height; ++r) png_write_row(png, pixels + static_cast<size_t>(r) * width);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

uint8_t grey_of(float v) {
  if (std::isnan(v)) return kGridGrey;
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
}

void write_checked(const std::string& path, const std::vector<float>& images, const ImageGrid& g) {
  const int64_t out_w = grid_png_width(g), out_h = grid_png_height(g);
  if (out_w > kMaxSide || out_h > kMaxSide || out_w * out_h > kMaxPixels) {  // both <= 10^6: no overflow
    throw Error(fmt::format("the PNG would be {}×{} pixels, more than {} a side or {} in all", out_w, out_h, kMaxSide,
                            kMaxPixels));
  }
  // height * width <= out_w * out_h <= kMaxPixels, and likewise for rows * cols: no overflow below.
  const int64_t image_size = g.height * g.width, cells = g.rows * g.cols;
  const int64_t floats = static_cast<int64_t>(images.size());
  if (floats % image_size != 0) {
    throw Error(fmt::format("{} floats are not a whole number of {}×{} images ({} floats each)", floats, g.height,
                            g.width, image_size));
  }
  const int64_t count = floats / image_size;
  if (count > cells) {
    throw Error(fmt::format("{} images of {}×{} do not fit a grid of {}×{} = {} cells", count, g.height, g.width, g.rows,
                            g.cols, cells));
  }

  std::vector<uint8_t> pixels(static_cast<size_t>(out_w * out_h), kGridGrey);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t top = (k / g.cols) * (g.height * g.scale + g.border);
    const int64_t left = (k % g.cols) * (g.width * g.scale + g.border);
    const float* image = images.data() + k * image_size;
    for (int64_t y = 0; y < g.height * g.scale; ++y) {
      uint8_t* row = pixels.data() + (top + y) * out_w + left;
      const float* source = image + (y / g.scale) * g.width;
      for (int64_t x = 0; x < g.width * g.scale; ++x) row[x] = grey_of(source[x / g.scale]);
    }
  }

  std::string png_bytes;
  PngFailure failure;
  if (!encode_png(pixels.data(), static_cast<uint32_t>(out_w), static_cast<uint32_t>(out_h), &png_bytes, &failure)) {
    throw Error(fmt::format("libpng: {}", failure.message));
  }
  write_file_atomically(path, png_bytes);
}

}  // namespace

int64_t grid_png_width(const ImageGrid& grid) { return checked_side(grid, grid.cols, grid.width, "width"); }
int64_t grid_png_height(const ImageGrid& grid) { return checked_side(grid, grid.rows, grid.height, "height"); }

void write_png_grid(const std::string& path, const std::vector<float>& images, const ImageGrid& grid) {
  try {
    write_checked(path, images, grid);
  } catch (const Error& e) {
    // write_file_atomically's errors already begin with the path.
    const std::string what = e.what();
    if (what.rfind(path + ":", 0) == 0) throw;
    throw Error(fmt::format("{}: cannot write the image grid: {}", path, what));
  }
}

}  // namespace tg::cli
