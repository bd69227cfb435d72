// Tensor: a dense, row-major, 64-byte-aligned buffer of float32 or float64 with a Shape.
// Copies share the buffer (cheap handles); clone() makes a deep copy. Kernels in ops/ see raw pointers
// or xtensor adaptors over them; xtensor stays out of this header to keep compile times low.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace tg {

class Tensor {
 public:
  Tensor() = default;
  static Tensor empty(const Shape& s, DType dt);  // uninitialised
  static Tensor zeros(const Shape& s, DType dt);
  static Tensor full(const Shape& s, double value, DType dt);
  static Tensor from(const Shape& s, std::span<const double> values, DType dt);
  static Tensor scalar(double value, DType dt) { return full(Shape{}, value, dt); }

  bool defined() const { return buf_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t size() const { return shape_.size(); }

  template <class T>
  T* data() {
    check_type(dtype_of<T>());
    return static_cast<T*>(buf_.get());
  }
  template <class T>
  const T* data() const {
    check_type(dtype_of<T>());
    return static_cast<const T*>(buf_.get());
  }
  void* raw() { return buf_.get(); }
  const void* raw() const { return buf_.get(); }

  Tensor reshaped(const Shape& s) const;  // shares the buffer
  Tensor view(int64_t offset, const Shape& s) const;  // elements [offset, offset+s.size()), shared
  Tensor clone() const;
  Tensor astype(DType dt) const;  // clone when dt differs, share otherwise
  double item() const;            // the single element of a size-1 tensor
  double at(int64_t flat_index) const;
  std::vector<double> to_vector() const;
  void fill(double v);
  bool all_finite() const;
  bool shares_buffer(const Tensor& o) const { return buf_ == o.buf_; }

 private:
  void check_type(DType want) const;
  std::shared_ptr<void> buf_;
  Shape shape_;
  DType dtype_ = DType::f32;
};

}  // namespace tg
