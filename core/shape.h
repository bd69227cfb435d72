// Shape: a small fixed-capacity list of extents (rank <= 4), cheap to copy into every tape node.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace tg {

class Shape {
 public:
  static constexpr int kMaxRank = 4;
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  template <class It>
  Shape(It first, It last) {
    for (; first != last; ++first) push_back(static_cast<int64_t>(*first));
  }

  int rank() const { return rank_; }
  int64_t operator[](int i) const { return d_[i]; }
  int64_t& operator[](int i) { return d_[i]; }
  int64_t size() const;  // number of elements (1 for a scalar)
  void push_back(int64_t n);
  const int64_t* begin() const { return d_.data(); }
  const int64_t* end() const { return d_.data() + rank_; }
  // The extent at a possibly negative axis (python style); throws on a bad axis.
  int norm_axis(int axis) const;
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string str() const;  // "[3,4]"

 private:
  std::array<int64_t, kMaxRank> d_{};
  int rank_ = 0;
};

}  // namespace tg
