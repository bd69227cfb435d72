#include "core/memory_budget.h"

#include <fmt/format.h>
#include <unistd.h>

namespace tg {

namespace {
// Physical memory in bytes, 0 when unknown. (A container's cgroup limit may be lower; not read here.)
double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size) : 0.0;
}
}  // namespace

std::string memory_shortfall(int64_t values, DType dt) {
  const double memory = physical_memory_bytes();
  if (values < 0) return fmt::format("more values than int64 counts, beyond this machine's {:.1f} GB of memory", memory / 1e9);
  const double bytes = static_cast<double>(values) * static_cast<double>(dtype_size(dt));
  if (memory <= 0 || kModelMemoryShare * bytes <= memory) return {};
  return fmt::format("{} values ({:.1f} GB), more than a quarter of this machine's {:.1f} GB of memory", values,
                     bytes / 1e9, memory / 1e9);
}

}  // namespace tg
