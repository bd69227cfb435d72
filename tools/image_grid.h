// Grayscale images laid out in a grid and written as one 8-bit PNG (libpng): data sets, samples and
// reconstructions made visible. The file is written whole or not at all (core/atomic_file.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tg::cli {

struct ImageGrid {
  int64_t height = 0, width = 0;  // of one image, pixels
  int64_t rows = 0, cols = 0;     // images per column / row of the grid
  int64_t border = 1;             // pixels of separator between neighbouring images (none around the grid)
  int64_t scale = 1;              // each pixel drawn as scale×scale (small images become visible)
};

// The grey level of the separators, of cells left without an image, and of NaN pixels: mid-grey, so
// that all three stand apart from a black (0) background and white (1) ink.
inline constexpr uint8_t kGridGrey = 128;

// The PNG's size in pixels: cols * width * scale + (cols - 1) * border wide, likewise high (a tg::Error
// if that overflows).
int64_t grid_png_width(const ImageGrid& grid);
int64_t grid_png_height(const ImageGrid& grid);

// Writes images (at most rows * cols of them, each height * width floats, row-major; row i of the grid
// holds images i * cols .. i * cols + cols - 1) to `path` as an 8-bit grayscale PNG: value 0 black,
// 1 white, clamped to [0, 1] (so -inf is black and +inf white), NaN kGridGrey. Fewer images than cells
// leave the remaining cells kGridGrey. The bytes go to a unique temporary file beside `path`, renamed
// over it when complete, so a failed write leaves `path` as it was.
// Errors — a grid with a non-positive size or a negative border, a PNG larger than 1,000,000 pixels a
// side (libpng's limit) or 2^28 pixels in all, a number of floats that is not a whole number of images or more images than cells, a file that
// cannot be written, a libpng failure — are one tg::Error naming `path` and what was wrong.
void write_png_grid(const std::string& path, const std::vector<float>& images, const ImageGrid& grid);

}  // namespace tg::cli
