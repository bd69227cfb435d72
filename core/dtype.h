// Element types. float32 trains fast; float64 is for gradient checks and small science runs.
#pragma once
#include <cstddef>
#include <string_view>

namespace tg {

enum class DType : unsigned char { f32, f64 };

inline std::string_view dtype_name(DType t) { return t == DType::f32 ? "float32" : "float64"; }
inline std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 8; }
template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() { return DType::f32; }
template <>
constexpr DType dtype_of<double>() { return DType::f64; }

// Runs `body` with T bound to the C++ type of `dt`: TG_DISPATCH(dt, T, return kernel<T>(x));
#define TG_DISPATCH(dt, T, ...)            \
  do {                                     \
    if ((dt) == ::tg::DType::f32) {        \
      using T = float;                     \
      __VA_ARGS__;                         \
    } else {                               \
      using T = double;                    \
      __VA_ARGS__;                         \
    }                                      \
  } while (0)

}  // namespace tg
