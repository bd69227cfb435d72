#include "core/params.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"
#include "core/memory_budget.h"

namespace tg {

ParamVec::ParamVec(std::shared_ptr<const ParamLayout> layout, DType dt)
    : layout_(std::move(layout)), flat_(Tensor::zeros(Shape{layout_->numel}, dt)) {}

ParamVec ParamVec::empty(std::shared_ptr<const ParamLayout> layout, DType dt) {
  ParamVec v;
  v.flat_ = Tensor::empty(Shape{layout->numel}, dt);
  v.layout_ = std::move(layout);
  return v;
}

ParamVec ParamVec::random_normal(std::shared_ptr<const ParamLayout> layout, DType dt, Rng& rng) {
  ParamVec v(std::move(layout), dt);
  std::normal_distribution<double> n(0.0, 1.0);
  TG_DISPATCH(dt, T, {
    T* p = v.flat_.data<T>();
    for (int64_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(n(rng));
  });
  return v;
}

Tensor ParamVec::part(int32_t index) const {
  const auto& e = layout_->entries.at(index);
  return flat_.view(e.offset, e.shape);
}

ParamVec ParamVec::clone() const {
  ParamVec v = *this;
  v.flat_ = flat_.clone();
  return v;
}

std::string describe(const ParamLayout& layout) {
  constexpr size_t kShown = 6;
  std::string s = fmt::format("{} parameter{}, {} value{}", layout.entries.size(), layout.entries.size() == 1 ? "" : "s",
                              layout.numel, layout.numel == 1 ? "" : "s");
  for (size_t i = 0; i < layout.entries.size() && i < kShown; ++i)
    s += fmt::format("{}{} {}", i == 0 ? ": " : ", ", layout.entries[i].name, layout.entries[i].shape.str());
  if (layout.entries.size() > kShown) s += fmt::format(", ... ({} more)", layout.entries.size() - kShown);
  return s;
}

bool same_layout(const ParamLayout& a, const ParamLayout& b) {
  if (&a == &b) return true;
  if (a.numel != b.numel || a.entries.size() != b.entries.size()) return false;
  for (size_t i = 0; i < a.entries.size(); ++i)
    if (a.entries[i].name != b.entries[i].name || a.entries[i].shape != b.entries[i].shape) return false;
  return true;
}

void check_layout(const ParamLayout& expected, const ParamLayout& got, const std::string& what) {
  if (!same_layout(expected, got))
    throw ShapeError(fmt::format("{}: a parameter vector of another layout: expected {}; got {}", what,
                                 describe(expected), describe(got)));
}

void ParamVec::check_same(const ParamVec& o, const char* what) const {
  if (layout_ && o.layout_ && !same_layout(*layout_, *o.layout_))
    check_layout(*layout_, *o.layout_, fmt::format("ParamVec::{}", what));
  if (o.size() != size() || o.dtype() != dtype())
    throw ShapeError(fmt::format("ParamVec::{}: sizes/dtypes differ ({} {} vs {} {})", what, size(),
                                 dtype_name(dtype()), o.size(), dtype_name(o.dtype())));
}

double ParamVec::dot(const ParamVec& o) const {
  check_same(o, "dot");
  double s = 0;
  TG_DISPATCH(dtype(), T, {
    const T* a = flat_.data<T>();
    const T* b = o.flat_.data<T>();
    for (int64_t i = 0; i < size(); ++i) s += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  });
  return s;
}

double ParamVec::norm() const { return std::sqrt(dot(*this)); }

ParamVec& ParamVec::axpy(double a, const ParamVec& x) {
  check_same(x, "axpy");
  TG_DISPATCH(dtype(), T, {
    T* y = flat_.data<T>();
    const T* xs = x.flat_.data<T>();
    const T aa = static_cast<T>(a);
    for (int64_t i = 0; i < size(); ++i) y[i] += aa * xs[i];
  });
  return *this;
}

ParamVec& ParamVec::scale(double a) {
  TG_DISPATCH(dtype(), T, {
    T* y = flat_.data<T>();
    const T aa = static_cast<T>(a);
    for (int64_t i = 0; i < size(); ++i) y[i] *= aa;
  });
  return *this;
}

ParamVec& ParamVec::fill(double v) {
  flat_.fill(v);
  return *this;
}

ParamId ParamSet::add(const std::string& name, const Shape& shape, const Init& init, Rng* rng) {
  if (find(name)) throw Error(fmt::format("ParamSet: parameter '{}' already exists", name));
  int64_t total = 0;
  if (__builtin_add_overflow(layout_->numel, shape.size(), &total)) total = -1;  // memory_shortfall: never fits
  if (const std::string need = memory_shortfall(total, dtype_); !need.empty())
    throw Error(fmt::format("parameters: '{}' of shape {} brings the model to {} (training holds {} such "
                            "vectors); use smaller sizes",
                            name, shape.str(), need, kModelMemoryShare));
  auto layout = std::make_shared<ParamLayout>(*layout_);
  layout->entries.push_back({name, shape, layout->numel});
  layout->numel = total;
  ParamVec grown(layout, dtype_);
  std::memcpy(grown.flat().raw(), values_.flat().raw(), static_cast<size_t>(values_.size()) * dtype_size(dtype_));
  layout_ = layout;
  values_ = grown;
  ParamId id{count() - 1};
  if (init) {
    Tensor v = values_.part(id.index);
    Rng local(0);
    init(v, rng ? *rng : local);
  }
  return id;
}

ParamId ParamSet::add(const std::string& name, const Tensor& value) {
  ParamId id = add(name, value.shape());
  Tensor v = values_.part(id.index);
  Tensor src = value.astype(dtype_);
  std::memcpy(v.raw(), src.raw(), static_cast<size_t>(src.size()) * dtype_size(dtype_));
  return id;
}

std::optional<ParamId> ParamSet::find(const std::string& name) const {
  for (size_t i = 0; i < layout_->entries.size(); ++i)
    if (layout_->entries[i].name == name) return ParamId{static_cast<int32_t>(i)};
  return std::nullopt;
}

void ParamSet::set_values(const ParamVec& v) {
  if (v.layout()) check_layout(*layout_, *v.layout(), "ParamSet::set_values");
  if (v.size() != numel())
    throw ShapeError(fmt::format("ParamSet::set_values: {} values for {} parameters", v.size(), numel()));
  // src before the swap: when v is values() itself, it keeps the old buffer alive to copy from
  const Tensor src = v.flat().astype(dtype_);
  values_ = ParamVec::empty(layout_, dtype_);  // a fresh buffer: views handed out before keep the old values
  std::memcpy(values_.flat().raw(), src.raw(), static_cast<size_t>(numel()) * dtype_size(dtype_));
}

ParamSet ParamSet::cast(DType dt) const {
  ParamSet out(dt);
  out.layout_ = layout_;
  out.values_ = ParamVec(layout_, dt);
  Tensor src = values_.flat().astype(dt);
  std::memcpy(out.values_.flat().raw(), src.raw(), static_cast<size_t>(numel()) * dtype_size(dt));
  return out;
}

namespace init {
Init zeros() {
  return [](Tensor& v, Rng&) { v.fill(0); };
}
Init constant(double c) {
  return [c](Tensor& v, Rng&) { v.fill(c); };
}
Init normal(double stddev) {
  return [stddev](Tensor& v, Rng& rng) {
    std::normal_distribution<double> d(0.0, stddev);
    TG_DISPATCH(v.dtype(), T, {
      T* p = v.data<T>();
      for (int64_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(d(rng));
    });
  };
}
Init uniform(double lo, double hi) {
  return [lo, hi](Tensor& v, Rng& rng) {
    std::uniform_real_distribution<double> d(lo, hi);
    TG_DISPATCH(v.dtype(), T, {
      T* p = v.data<T>();
      for (int64_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(d(rng));
    });
  };
}
}  // namespace init

}  // namespace tg
