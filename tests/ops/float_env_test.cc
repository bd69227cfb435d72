// ops/float_env.h: flushing turns subnormal results and inputs into zeros on this thread and on threads
// it creates afterwards; keeping leaves IEEE 754 arithmetic alone.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "core/error.h"
#include "ops/float_env.h"

namespace tg {
namespace {

// volatile: computed at run time under the thread's mode, not folded by the compiler
float tiny_product() {
  volatile float a = 1e-30f, b = 1e-10f;
  return a * b;  // 1e-40: subnormal in float32
}

class FloatEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fenv::flush_supported()) GTEST_SKIP() << "no flush-to-zero mode on this CPU";
    was_ = fenv::flushing_denormals();
  }
  void TearDown() override {
    if (fenv::flush_supported()) fenv::set_flush_denormals(was_);
  }
  bool was_ = false;
};

TEST_F(FloatEnv, KeepGivesSubnormalsAndFlushGivesZero) {
  fenv::set_flush_denormals(false);
  EXPECT_FALSE(fenv::flushing_denormals());
  EXPECT_EQ(std::fpclassify(tiny_product()), FP_SUBNORMAL);
  fenv::set_flush_denormals(true);
  EXPECT_TRUE(fenv::flushing_denormals());
  EXPECT_EQ(tiny_product(), 0.0f);
  volatile float subnormal = 1e-40f;  // a subnormal input reads as zero
  volatile float big = 1e30f;
  EXPECT_EQ(subnormal * big, 0.0f);
}

TEST_F(FloatEnv, ThreadsCreatedAfterwardsInheritTheMode) {
  fenv::set_flush_denormals(true);
  float in_thread = -1;
  bool flushing = false;
  std::thread([&] {
    flushing = fenv::flushing_denormals();
    in_thread = tiny_product();
  }).join();
  EXPECT_TRUE(flushing);
  EXPECT_EQ(in_thread, 0.0f);
}

TEST(FloatEnvChoice, ResolvesTheDefaultToFlushAndRejectsOthers) {
  EXPECT_EQ(fenv::resolve_denormals(""), "flush");
  EXPECT_EQ(fenv::resolve_denormals("keep"), "keep");
  EXPECT_THROW(fenv::resolve_denormals("sometimes"), Error);
}

}  // namespace
}  // namespace tg
