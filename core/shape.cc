#include "core/shape.h"

#include <limits>

#include "core/error.h"
#include "core/site.h"

namespace tg {

Shape::Shape(std::initializer_list<int64_t> dims) {
  for (int64_t n : dims) push_back(n);
}

int64_t Shape::size() const {
  int64_t n = 1;
  // Extents come from files and options too: a product past int64 would wrap to a small or negative
  // size and allocate the wrong amount.
  for (int i = 0; i < rank_; ++i)
    if (__builtin_mul_overflow(n, d_[i], &n))
      throw ShapeError(fmt::format("shape {}: more than {} elements", str(), std::numeric_limits<int64_t>::max()));
  return n;
}

void Shape::push_back(int64_t n) {
  if (rank_ == kMaxRank) throw ShapeError(fmt::format("shape: rank above {} is not supported", kMaxRank));
  if (n < 0) throw ShapeError(fmt::format("shape: negative extent {}", n));
  d_[rank_++] = n;
}

int Shape::norm_axis(int axis) const {
  int a = axis < 0 ? axis + rank_ : axis;
  if (a < 0 || a >= rank_) throw ShapeError(fmt::format("axis {} out of range for shape {}", axis, str()));
  return a;
}

bool Shape::operator==(const Shape& o) const {
  if (rank_ != o.rank_) return false;
  for (int i = 0; i < rank_; ++i)
    if (d_[i] != o.d_[i]) return false;
  return true;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) s += (i ? "," : "") + std::to_string(d_[i]);
  return s + "]";
}

std::string Site::str() const {
  std::string f = file ? file : "";
  // keep "dir/file.cc": enough to find it, short enough for one error line
  auto p = f.rfind('/');
  if (p != std::string::npos && p > 0) {
    auto q = f.rfind('/', p - 1);
    if (q != std::string::npos) f = f.substr(q + 1);
  }
  return f + ":" + std::to_string(line);
}

}  // namespace tg
