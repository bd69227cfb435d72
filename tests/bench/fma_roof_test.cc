// The FMA roof's loops do the work its GFLOP/s figure counts: kChains chains per lane, `lanes` lanes.
// (What the roof measures is a benchmark's business, not a test's: only the arithmetic is checked here.)
#include <cmath>

#include <gtest/gtest.h>

#include "bench/fma_roof.h"
#include "bench/fma_roof_loops.h"

namespace tg::bench {
namespace {

TEST(FmaRoof, EveryLoopRunsLanesTimesChainsOfTheSameRecurrence) {
  const int64_t iters = 1000;
  const float x = 0.999f, y = 1e-3f;
  double chain = y;  // a = a x + y from a = y, in double: the float chains agree to rounding
  for (int64_t k = 0; k < iters; ++k) chain = chain * x + y;
  for (const detail::FmaLoop& loop : detail::fma_loops()) {
    const double expected = chain * detail::kChains * loop.lanes;
    EXPECT_NEAR(loop.run(iters, x, y), expected, 1e-4 * expected) << loop.isa;
  }
}

TEST(FmaRoof, NamesTheWidestLoopItRan) {
  const FmaRoof roof = measure_fma_roof(0.003);
  EXPECT_STREQ(roof.isa, detail::fma_loops().back().isa);
  EXPECT_TRUE(std::isfinite(roof.gflops));
  EXPECT_GT(roof.gflops, 0);
}

}  // namespace
}  // namespace tg::bench
