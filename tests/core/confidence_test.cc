// The 95% intervals that eval prints and the success confirmation reports.
#include <gtest/gtest.h>

#include <cmath>

#include "core/confidence.h"

namespace tg {
namespace {

// Reference values: Wilson's formula evaluated independently in Python (z = 1.959964).
TEST(Confidence, WilsonIntervalOfAProportion) {
  Interval a = wilson_interval(0.008, 1000);  // 0.8% on a thousand validation sequences reaches 1.5%
  EXPECT_NEAR(a.low, 0.004059, 1e-5);
  EXPECT_NEAR(a.high, 0.015706, 1e-5);
  Interval b = wilson_interval(0.0101, 300000);
  EXPECT_LT(b.high - b.low, 0.001);
  EXPECT_GT(b.low, 0.0097);
  Interval zero = wilson_interval(0, 10000);  // no error seen: still an upper bound above 0
  EXPECT_NEAR(zero.low, 0, 1e-15);
  EXPECT_NEAR(zero.high, 3.84 / 10003.84, 1e-6);
  EXPECT_TRUE(std::isnan(wilson_interval(0.5, 0).low));
  EXPECT_TRUE(std::isnan(wilson_interval(1.5, 10).low));
}

TEST(Confidence, BatchMeansIntervalOfAMean) {
  // Four equal chunks with means 1, 2, 3, 4: mean 2.5, the chunks' sample variance 5/3 per chunk mean,
  // so the half-width is 1.96 sqrt(5/3 / 4).
  Interval a = batch_means_interval({1, 2, 3, 4}, {500, 500, 500, 500});
  EXPECT_NEAR(a.low, 2.5 - 1.959964 * std::sqrt(5.0 / 3 / 4), 1e-5);
  EXPECT_NEAR(a.high, 2.5 + 1.959964 * std::sqrt(5.0 / 3 / 4), 1e-5);
  EXPECT_TRUE(std::isnan(batch_means_interval({1}, {500}).low));  // one chunk: no spread to measure
  Interval same = batch_means_interval({2, 2, 2}, {10, 500, 20});
  EXPECT_DOUBLE_EQ(same.low, 2);
  EXPECT_DOUBLE_EQ(same.high, 2);
}

}  // namespace
}  // namespace tg
