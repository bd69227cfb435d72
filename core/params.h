// ParamSet: named parameters stored outside any graph, in one flat buffer.
// ParamVec: a flat vector in a ParamSet's layout; the vector space optimizers work in (dot, axpy, ...).
// Gradients are returned as ParamVec and never accumulated into parameters, so every evaluation is
// idempotent and an optimizer may evaluate anywhere (look-ahead, line search, HF's rho test).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tg {

struct ParamId {
  int32_t index = -1;
};

struct ParamLayout {
  struct Entry {
    std::string name;
    Shape shape;
    int64_t offset;
  };
  std::vector<Entry> entries;
  int64_t numel = 0;
};

// "3 parameters, 26 values: w [3,2], b [2], v [2,9]" (the first entries when there are many).
std::string describe(const ParamLayout& layout);
// The same parameters (names and shapes, in order); a mismatch is a tg::ShapeError naming `what`
// and both layouts, so a vector from another model or checkpoint is caught where it is used.
bool same_layout(const ParamLayout& a, const ParamLayout& b);
void check_layout(const ParamLayout& expected, const ParamLayout& got, const std::string& what);

using Rng = std::mt19937_64;
using Init = std::function<void(Tensor& value, Rng& rng)>;

class ParamVec {
 public:
  ParamVec() = default;
  ParamVec(std::shared_ptr<const ParamLayout> layout, DType dt);  // zeros
  // Uninitialised, for a caller that writes every value (a pass over memory saved).
  static ParamVec empty(std::shared_ptr<const ParamLayout> layout, DType dt);
  static ParamVec random_normal(std::shared_ptr<const ParamLayout> layout, DType dt, Rng& rng);

  DType dtype() const { return flat_.dtype(); }
  int64_t size() const { return layout_ ? layout_->numel : 0; }
  const std::shared_ptr<const ParamLayout>& layout() const { return layout_; }
  Tensor part(int32_t index) const;  // view of one parameter (shares the buffer)
  const Tensor& flat() const { return flat_; }
  Tensor& flat() { return flat_; }
  ParamVec clone() const;

  double dot(const ParamVec& o) const;  // accumulated in double
  double norm() const;
  ParamVec& axpy(double a, const ParamVec& x);  // this += a x
  ParamVec& scale(double a);
  ParamVec& fill(double v);
  bool all_finite() const { return flat_.all_finite(); }

 private:
  void check_same(const ParamVec& o, const char* what) const;
  std::shared_ptr<const ParamLayout> layout_;
  Tensor flat_;
};

class ParamSet {
 public:
  explicit ParamSet(DType dt = DType::f32) : dtype_(dt) {}
  ParamId add(const std::string& name, const Shape& shape, const Init& init = {}, Rng* rng = nullptr);
  ParamId add(const std::string& name, const Tensor& value);

  DType dtype() const { return dtype_; }
  int32_t count() const { return static_cast<int32_t>(layout_->entries.size()); }
  int64_t numel() const { return layout_->numel; }
  const std::string& name(ParamId p) const { return layout_->entries.at(p.index).name; }
  const Shape& shape(ParamId p) const { return layout_->entries.at(p.index).shape; }
  std::optional<ParamId> find(const std::string& name) const;
  Tensor value(ParamId p) const { return values_.part(p.index); }  // shares storage
  const ParamVec& values() const { return values_; }
  ParamVec& values() { return values_; }
  void set_values(const ParamVec& v);
  ParamVec zeros_like() const { return ParamVec(layout_, dtype_); }
  ParamSet cast(DType dt) const;  // a copy in another dtype (float64 for gradient checks)
  const std::shared_ptr<const ParamLayout>& layout() const { return layout_; }

 private:
  DType dtype_;
  std::shared_ptr<const ParamLayout> layout_ = std::make_shared<ParamLayout>();
  ParamVec values_{layout_, dtype_};
};

namespace init {
Init zeros();
Init constant(double v);
Init normal(double stddev);
Init uniform(double lo, double hi);
}  // namespace init

}  // namespace tg
