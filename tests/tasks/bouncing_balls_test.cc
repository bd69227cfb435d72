// The bouncing-balls generator: deterministic by seed, frames in [0, 1], three separate balls,
// balls inside the box, the total kinetic energy conserved and each ball's speed constant between
// ball–ball collisions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/error.h"
#include "tasks/bouncing_balls.h"

namespace tg::tasks {
namespace {

TEST(BouncingBalls, DeterministicBySeed) {
  BouncingBallsSpec s;
  Rng a(7), b(7), c(8);
  EXPECT_EQ(bouncing_balls(s, a).frames, bouncing_balls(s, b).frames);
  Rng d(7);
  EXPECT_NE(bouncing_balls(s, d).frames, bouncing_balls(s, c).frames);
}

TEST(BouncingBalls, FramesInUnitRangeWithEveryBallVisible) {
  for (int64_t size : {30, 18, 15}) {
    BouncingBallsSpec s;
    s.size = size;
    Rng rng(1);
    const BallSequence q = bouncing_balls(s, rng);
    ASSERT_EQ(q.frames.size(), static_cast<size_t>(s.steps * size * size));
    float lo = 1, hi = 0;
    for (float f : q.frames) lo = std::min(lo, f), hi = std::max(hi, f);
    EXPECT_GE(lo, 0.0f);
    EXPECT_LE(hi, 1.0f);
    EXPECT_EQ(hi, 1.0f);
    // each frame holds the three balls: the pixel nearest each centre is bright
    for (int64_t t = 0; t < s.steps; ++t)
      for (int b = 0; b < s.balls; ++b) {
        const double cx = q.position[(t * s.balls + b) * 2], cy = q.position[(t * s.balls + b) * 2 + 1];
        const int64_t j = std::min<int64_t>(size - 1, static_cast<int64_t>(cx / s.box * size));
        const int64_t i = std::min<int64_t>(size - 1, static_cast<int64_t>(cy / s.box * size));
        EXPECT_GT(q.frames[t * size * size + i * size + j], 0.9f) << "t " << t << " ball " << b;
      }
  }
}

TEST(BouncingBalls, ThreeBallsInsideTheBoxAndApartAtTheStart) {
  BouncingBallsSpec s;
  Rng rng(3);
  for (int rep = 0; rep < 20; ++rep) {
    const BallSequence q = bouncing_balls(s, rng);
    EXPECT_EQ(q.balls, 3);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < i; ++j)
        EXPECT_GE(std::hypot(q.position[2 * i] - q.position[2 * j], q.position[2 * i + 1] - q.position[2 * j + 1]),
                  2 * s.radius);
    // the centres stay within a substep's travel of the walls' limits (the bounce happens after the step)
    for (double x : q.position) {
      EXPECT_GE(x, s.radius - 0.5 * s.speed);
      EXPECT_LE(x, s.box - s.radius + 0.5 * s.speed);
    }
  }
}

TEST(BouncingBalls, EnergyAndSpeedsAreConserved) {
  BouncingBallsSpec s;
  Rng rng(4);
  double worst_energy = 0, worst_speed = 0;
  int64_t collisions = 0, compared = 0;
  for (int rep = 0; rep < 20; ++rep) {
    const BallSequence q = bouncing_balls(s, rng);
    auto speed = [&](int64_t t, int b) {
      return std::hypot(q.velocity[(t * s.balls + b) * 2], q.velocity[(t * s.balls + b) * 2 + 1]);
    };
    for (int64_t t = 0; t < s.steps; ++t) {
      double e = 0;
      for (int b = 0; b < s.balls; ++b) e += speed(t, b) * speed(t, b);
      worst_energy = std::max(worst_energy, std::abs(e - s.speed * s.speed));
      collisions += q.collisions[t];
      if (t + 1 < s.steps && q.collisions[t] == 0) {
        ++compared;
        for (int b = 0; b < s.balls; ++b) worst_speed = std::max(worst_speed, std::abs(speed(t + 1, b) - speed(t, b)));
      }
    }
  }
  std::printf("20 sequences of 100 frames: %lld ball-ball collisions; worst |sum |v|^2 - 0.25| %.2g; worst change of a "
              "ball's speed over %lld collision-free frames %.2g\n",
              static_cast<long long>(collisions), worst_energy, static_cast<long long>(compared), worst_speed);
  EXPECT_GT(collisions, 0);
  EXPECT_LT(worst_energy, 1e-12);
  EXPECT_LT(worst_speed, 1e-12);
}

TEST(BouncingBalls, BatchIsTimeMajorAndFreshPerSequence) {
  BouncingBallsSpec s;
  s.size = 15;
  s.steps = 30;
  Rng rng(9);
  const Tensor x = bouncing_balls_batch(s, 4, rng);
  ASSERT_EQ(x.shape(), (Shape{30, 4, 225}));
  Rng again(9);
  const BallSequence first = bouncing_balls(s, again), second = bouncing_balls(s, again);
  for (int64_t t = 0; t < 30; ++t)
    for (int64_t k = 0; k < 225; ++k) {
      ASSERT_EQ(x.data<float>()[(t * 4 + 0) * 225 + k], first.frames[t * 225 + k]);
      ASSERT_EQ(x.data<float>()[(t * 4 + 1) * 225 + k], second.frames[t * 225 + k]);
    }
  EXPECT_NE(first.frames, second.frames);
}

TEST(BouncingBalls, BadSpecsAreErrors) {
  BouncingBallsSpec s;
  s.radius = 4;
  Rng rng(1);
  EXPECT_THROW(bouncing_balls(s, rng), Error);
  s = {};
  s.size = 0;
  EXPECT_THROW(bouncing_balls(s, rng), Error);
}

TEST(BouncingBalls, BlinkingNoiseIsFixedInSpaceAndBlinksInTime) {
  BouncingBallsSpec s;
  s.size = 20, s.balls = 2, s.steps = 60;
  Rng rng(3);
  const BallSequence q = bouncing_balls(s, rng);
  const std::vector<float> noisy = add_blinking_noise(s, q.frames, BlinkingNoise{}, rng);
  ASSERT_EQ(noisy.size(), q.frames.size());
  const int64_t D = s.size * s.size;
  std::vector<int> on(static_cast<size_t>(D), 0);  // frames in which a pixel was raised by the noise
  bool changed = false;
  for (int64_t t = 0; t < s.steps; ++t)
    for (int64_t i = 0; i < D; ++i) {
      const float a = q.frames[t * D + i], b = noisy[t * D + i];
      EXPECT_GE(b, a);
      EXPECT_LE(b, 1.0f);
      if (b > a + 0.5f) on[i]++, changed = true;
    }
  EXPECT_TRUE(changed) << "no spot was ever shown";
  int sometimes = 0;
  for (int c : on) sometimes += c > 0 && c < s.steps;
  EXPECT_GT(sometimes, 0) << "the spots never blink";
  EXPECT_THROW(add_blinking_noise(s, std::vector<float>(7), BlinkingNoise{}, rng), Error);
}

}  // namespace
}  // namespace tg::tasks
