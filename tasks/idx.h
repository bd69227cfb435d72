// Images and labels in LeCun's IDX format (MNIST, Fashion-MNIST: Debian's dataset-fashion-mnist ships
// them gzip-compressed), plain or .gz. Every header field is checked before anything is allocated, and
// the data must be exactly what the header declares: a truncated file, trailing bytes, an unknown
// type code, a zero or absurd dimension, or a declared size above max_values is one tg::Error naming
// the file and what was wrong. The allocation is bounded by the declared size, so a small file cannot
// claim gigabytes and a compressed one cannot inflate past its header.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tg::tasks {

struct IdxArray {
  std::vector<int64_t> shape;  // e.g. [60000, 28, 28] images, [60000] labels
  std::vector<float> values;   // row-major, in the file's order, converted from the stored type
  std::string type;            // the stored type: "unsigned byte", "signed byte", "short", "int", "float", "double"
  int64_t size() const { return static_cast<int64_t>(values.size()); }
};

// Whether `path` starts like an IDX file (two zero bytes, a type code, 1 to 4 dimensions), after
// inflating it if it is gzip-compressed; false for anything unreadable (the reader says why).
bool looks_like_idx(const std::string& path);

// Reads `path`; a gzip stream (magic 1f 8b) is inflated with zlib, anything else read as stored.
IdxArray read_idx(const std::string& path, int64_t max_values = int64_t{1} << 31);

}  // namespace tg::tasks
