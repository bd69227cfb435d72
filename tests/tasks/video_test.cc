// The next-frame video tasks (tasks/video.cc): batches pair frame t with frame t + 1, fresh per draw, and
// the two measures (squared error per pixel, KL per sequence) are zero for the true frames and right for
// a constant prediction.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "tasks/task.h"

namespace tg::tasks {
namespace {

std::vector<Tensor> logits_of(const std::vector<Tensor>& frames) {
  std::vector<Tensor> out;
  for (const Tensor& f : frames) {
    Tensor z = Tensor::empty(f.shape(), DType::f64);
    for (int64_t i = 0; i < f.size(); ++i) {
      const double q = std::clamp(f.at(i), 1e-9, 1 - 1e-9);
      z.data<double>()[i] = std::log(q / (1 - q));
    }
    out.push_back(z);
  }
  return out;
}

TEST(VideoTasks, BatchesPairEachFrameWithTheNext) {
  auto task = make("bouncing_balls", {{"size", 15}, {"steps", 20}});
  Rng rng(3);
  const Batch b = task->sample(4, rng);
  ASSERT_EQ(b.steps(), 19);
  ASSERT_EQ(b.size(), 4);
  EXPECT_EQ(b.inputs.dense[0].shape(), (Shape{4, 225}));
  for (int64_t t = 0; t + 1 < b.steps(); ++t)
    for (int64_t i = 0; i < 4 * 225; ++i) ASSERT_EQ(b.targets.dense[t].at(i), b.inputs.dense[t + 1].at(i));
  const Batch c = task->sample(4, rng);
  bool differ = false;
  for (int64_t i = 0; i < 4 * 225; ++i) differ |= b.inputs.dense[0].at(i) != c.inputs.dense[0].at(i);
  EXPECT_TRUE(differ) << "every draw is fresh video";
}

TEST(VideoTasks, MeasuresAreZeroForTheTruthAndRightForAConstant) {
  for (const char* name : {"bouncing_balls", "bouncing_balls_kl"}) {
    auto task = make(name, {{"size", 15}, {"steps", 10}});
    Rng rng(5);
    const Batch b = task->sample(3, rng);
    EXPECT_NEAR(task->error_rate(b, logits_of(b.targets.dense)), 0.0, 1e-5) << name;  // logits clamped at 1e-9
    // p = 1/2 everywhere: squared error is the mean of (q - 1/2)^2; KL per sequence Σ [q log 2q + (1-q) log 2(1-q)]
    std::vector<Tensor> half;
    for (const Tensor& f : b.targets.dense) half.push_back(Tensor::full(f.shape(), 0.0, DType::f64));
    double sq = 0, kl = 0;
    int64_t n = 0;
    for (const Tensor& f : b.targets.dense)
      for (int64_t i = 0; i < f.size(); ++i, ++n) {
        const double q = f.at(i);
        sq += (q - 0.5) * (q - 0.5);
        kl += (q > 0 ? q * std::log(2 * q) : 0) + (q < 1 ? (1 - q) * std::log(2 * (1 - q)) : 0);
      }
    const double want = std::string(name) == "bouncing_balls" ? sq / n : kl / 3;
    EXPECT_NEAR(task->error_rate(b, half), want, 1e-9 * std::max(1.0, want)) << name;
  }
  EXPECT_EQ(measure("bouncing_balls").short_name, "MSE");
  EXPECT_EQ(measure("bouncing_balls_kl").short_name, "KL");
}

TEST(VideoTasks, BadOptionsAreErrors) {
  EXPECT_THROW(make("bouncing_balls", {{"steps", 1}}), Error);
  EXPECT_THROW(make("bouncing_balls", {{"size", 0}}), Error);
  EXPECT_THROW(make("bouncing_balls", {{"balls", 40}}), Error);
}

}  // namespace
}  // namespace tg::tasks
