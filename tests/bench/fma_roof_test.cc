// The FMA roof's loops do the work its GFLOP/s figure counts: kChains chains (each from its own start) in
// each of `lanes` lanes.
// (What the roof measures is a benchmark's business, not a test's: only the arithmetic is checked here.)
#include <cmath>

#include <gtest/gtest.h>

#include "bench/fma_roof.h"
#include "bench/fma_roof_loops.h"

namespace tg::bench {
namespace {

TEST(FmaRoof, EveryLoopRunsItsLanesOfEveryChain) {
  const int64_t iters = 10;  // few: the chains still differ by their starts (merged chains would not add up)
  const float x = 0.999f, y = 1e-3f;
  double chains = 0;  // a = a x + y from each chain's start, in double: the float chains agree to rounding
  for (int i = 0; i < detail::kChains; ++i) {
    double a = detail::chain_start(y, i);
    for (int64_t k = 0; k < iters; ++k) a = a * x + y;
    chains += a;
  }
  for (const detail::FmaLoop& loop : detail::fma_loops()) {
    const double expected = chains * loop.lanes;
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
