#include "tools/early_stopping.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace tg::cli {
namespace {

TEST(EarlyStopping, CountsValidationsSinceTheStrictlyBest) {
  EarlyStopping e(2);
  EXPECT_TRUE(e.observe(0.5, 10));
  EXPECT_FALSE(e.observe(0.5, 20));  // a tie is no improvement
  EXPECT_FALSE(e.exhausted());
  EXPECT_TRUE(e.observe(0.4, 30));
  EXPECT_EQ(e.since_best(), 0);
  EXPECT_FALSE(e.observe(std::nan(""), 40));
  EXPECT_FALSE(e.observe(0.6, 50));
  EXPECT_TRUE(e.exhausted());
  EXPECT_EQ(e.best_iteration(), 30);
  EXPECT_DOUBLE_EQ(e.best_error(), 0.4);
}

TEST(EarlyStopping, ZeroPatienceNeverStops) {
  EarlyStopping e(0);
  e.observe(1, 1);
  for (int i = 2; i < 100; ++i) e.observe(2, i);
  EXPECT_FALSE(e.exhausted());
}

TEST(EarlyStopping, StateRoundTripsAndBadStateIsNamed) {
  EarlyStopping e(3);
  EXPECT_TRUE(e.state().empty());  // nothing to keep before the first validation
  e.observe(0.25, 4);
  e.observe(0.5, 8);
  EarlyStopping r(3);
  r.restore(e.state(), "ckpt");
  EXPECT_EQ(r.best_iteration(), 4);
  EXPECT_EQ(r.since_best(), 1);
  EXPECT_DOUBLE_EQ(r.best_error(), 0.25);
  try {
    r.restore({{"best_iteration", -1}, {"since_best", 0}}, "ckpt.npz");
    FAIL() << "a negative iteration was accepted";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("ckpt.npz: early-stopping state 'best_iteration'"), std::string::npos);
  }
  EXPECT_THROW(r.restore({{"best_iteration", 1}, {"since_best", 0}, {"best_error", "x"}}, "c"), Error);
}

}  // namespace
}  // namespace tg::cli
