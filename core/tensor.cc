#include "core/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include <malloc.h>

#include "core/error.h"

namespace tg {

namespace {
// A pass allocates its whole working set (hundreds of MB for an LSTM gradient), and the graph frees it
// all at once when it dies. With glibc's defaults that memory goes back to the kernel (munmap, heap
// trim) and the next pass page-faults every page in again: on the engine benchmark (bench/) that
// doubled a gradient's CPU time and made the forward pass 2.7x slower. Keeping freed memory in the
// process lets the next pass reuse it. Skipped when the user tunes malloc through the environment.
bool keep_freed_memory() {
  if (std::getenv("GLIBC_TUNABLES") || std::getenv("MALLOC_TRIM_THRESHOLD_") || std::getenv("MALLOC_MMAP_THRESHOLD_"))
    return false;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum: tensors up to 32 MB come from the heap
  mallopt(M_TRIM_THRESHOLD, -1);        // never give the heap top back: the next pass needs it again
  return true;
}

std::shared_ptr<void> allocate(std::size_t bytes) {
  [[maybe_unused]] static const bool tuned = keep_freed_memory();
  std::size_t rounded = ((bytes + 63) / 64) * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw Error(fmt::format("tensor: out of memory allocating {} bytes", bytes));
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}
}  // namespace

Tensor Tensor::empty(const Shape& s, DType dt) {
  Tensor t;
  t.shape_ = s;
  t.dtype_ = dt;
  t.buf_ = allocate(static_cast<std::size_t>(s.size()) * dtype_size(dt));
  return t;
}

Tensor Tensor::zeros(const Shape& s, DType dt) {
  Tensor t = empty(s, dt);
  std::memset(t.raw(), 0, static_cast<std::size_t>(s.size()) * dtype_size(dt));
  return t;
}

Tensor Tensor::full(const Shape& s, double value, DType dt) {
  Tensor t = empty(s, dt);
  t.fill(value);
  return t;
}

Tensor Tensor::from(const Shape& s, std::span<const double> values, DType dt) {
  if (static_cast<int64_t>(values.size()) != s.size())
    throw ShapeError(fmt::format("tensor: {} values given for shape {}", values.size(), s.str()));
  Tensor t = empty(s, dt);
  TG_DISPATCH(dt, T, {
    T* p = t.data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}

void Tensor::fill(double v) {
  TG_DISPATCH(dtype_, T, {
    T* p = data<T>();
    for (int64_t i = 0, n = size(); i < n; ++i) p[i] = static_cast<T>(v);
  });
}

Tensor Tensor::reshaped(const Shape& s) const {
  if (s.size() != size())
    throw ShapeError(fmt::format("tensor: cannot reshape {} to {}", shape_.str(), s.str()));
  Tensor t = *this;
  t.shape_ = s;
  return t;
}

Tensor Tensor::view(int64_t offset, const Shape& s) const {
  if (offset < 0 || offset + s.size() > size())
    throw ShapeError(fmt::format("tensor: view [{}, +{}) outside {}", offset, s.size(), shape_.str()));
  Tensor t;
  t.dtype_ = dtype_;
  t.shape_ = s;
  // aliasing constructor: shares ownership of the whole buffer, points at the slice
  t.buf_ = std::shared_ptr<void>(buf_, static_cast<char*>(buf_.get()) + offset * dtype_size(dtype_));
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_, dtype_);
  std::memcpy(t.raw(), raw(), static_cast<std::size_t>(size()) * dtype_size(dtype_));
  return t;
}

Tensor Tensor::astype(DType dt) const {
  if (dt == dtype_) return *this;
  Tensor t = empty(shape_, dt);
  int64_t n = size();
  if (dt == DType::f64) {
    const float* s = data<float>();
    double* d = t.data<double>();
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
  } else {
    const double* s = data<double>();
    float* d = t.data<float>();
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(s[i]);
  }
  return t;
}

double Tensor::at(int64_t i) const {
  if (i < 0 || i >= size()) throw Error(fmt::format("tensor: index {} out of range for {}", i, shape_.str()));
  return dtype_ == DType::f32 ? static_cast<double>(data<float>()[i]) : data<double>()[i];
}

double Tensor::item() const {
  if (size() != 1) throw ShapeError(fmt::format("tensor: item() needs one element, shape is {}", shape_.str()));
  return at(0);
}

std::vector<double> Tensor::to_vector() const {
  std::vector<double> v(static_cast<std::size_t>(size()));
  TG_DISPATCH(dtype_, T, {
    const T* p = data<T>();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  });
  return v;
}

bool Tensor::all_finite() const {
  bool ok = true;
  TG_DISPATCH(dtype_, T, {
    const T* p = data<T>();
    for (int64_t i = 0, n = size(); i < n; ++i) ok &= std::isfinite(p[i]);
  });
  return ok;
}

void Tensor::check_type(DType want) const {
  if (!buf_) throw Error("tensor: access to an undefined tensor");
  if (want != dtype_)
    throw Error(fmt::format("tensor: accessed as {} but holds {}", dtype_name(want), dtype_name(dtype_)));
}

}  // namespace tg
