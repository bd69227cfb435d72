// What optimizers and objectives know of data: N cases (sequences, images, frames, ...) that can be
// cut into contiguous parts. The zoo's sequence batch (tasks/batch.h) is one kind; a library user's
// own data is another: derive from Data, and read it back in an objective with data_as<YourData>.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::tasks {

class Data {
 public:
  virtual ~Data() = default;
  virtual int64_t size() const = 0;  // the number of cases
  // Cases [first, first + count): a curvature batch inside a gradient batch, one rank's share, or a
  // chunk evaluated piece by piece to bound the tape's memory. Errors name the range and the size.
  virtual std::unique_ptr<Data> slice(int64_t first, int64_t count) const = 0;
  // A copy that shares the buffers (cheap); it keeps them alive.
  virtual std::unique_ptr<Data> clone() const = 0;
  // The same cases, as far as buffer handles tell (no element comparison): lets L-BFGS recognise the
  // batch it last evaluated.
  virtual bool same_as(const Data& other) const = 0;
  // One phrase for error messages ("a batch of 20 sequences of 30 steps").
  virtual std::string describe() const = 0;
};

// `d` as the kind of data an objective was written for; a tg::Error names both kinds otherwise.
template <class D>
const D& data_as(const Data& d) {
  if (const auto* p = dynamic_cast<const D*>(&d)) return *p;
  throw Error(fmt::format("objective expects data of type {}, but was given {} ({})", typeid(D).name(),
                          typeid(d).name(), d.describe()));
}
template <class D>
D& data_as(Data& d) {
  return const_cast<D&>(data_as<D>(static_cast<const Data&>(d)));
}

}  // namespace tg::tasks
