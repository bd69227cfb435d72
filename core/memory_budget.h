// Whether a model's arrays fit this machine before they are allocated: an allocation past physical
// memory swaps or takes minutes (an `rnn` with hidden=1e8 asked for 20 GB for one matrix), so sizes
// from options are checked first and refused with one line.
#pragma once

#include <cstdint>
#include <string>

#include "core/dtype.h"

namespace tg {

// Training holds at least four arrays the size of the parameters (the parameters, their gradient, and
// the optimizer's state or CG's vectors), so a model may use a quarter of physical memory.
inline constexpr int kModelMemoryShare = 4;

// Empty when `values` numbers of type dt fit in a quarter of the machine's physical memory (or the
// memory is unknown); otherwise what they need against what there is, e.g. "5000000000 values (20.0 GB),
// more than a quarter of this machine's 25.3 GB of memory". A negative count (an overflowed sum) never fits.
std::string memory_shortfall(int64_t values, DType dt);

}  // namespace tg
