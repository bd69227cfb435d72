// Error types. Messages name the op, the shapes and the user's file:line; asserts stay on in every build.
#pragma once
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace tg {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ShapeError : Error {  // bad shapes or arguments when a node is built
  using Error::Error;
};
struct NonFiniteError : Error {  // check_finite found NaN/Inf
  using Error::Error;
};
struct InternalError : Error {  // a broken engine invariant: always a bug in tapegrad
  using Error::Error;
};

#define TG_ASSERT(cond, ...)                                                                  \
  do {                                                                                        \
    if (!(cond))                                                                              \
      throw ::tg::InternalError(fmt::format("internal error at {}:{}: {} ({})", __FILE__,      \
                                            __LINE__, #cond, fmt::format(__VA_ARGS__)));     \
  } while (0)

}  // namespace tg
