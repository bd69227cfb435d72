// The reaching tasks of the thesis's Ch. 6 as data sets (tasks/reaching.h): the fixed reaches of
// center-out and postural, DDN's draws (deterministic by seed, inside their box, with the stated
// disturbance), slices that keep every per-step draw with its reach, and the score in cm.
#include "tasks/reaching.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "tasks/task.h"

namespace tg::tasks {
namespace {

std::unique_ptr<ReachTask> reach_task(const std::string& name, const nlohmann::json& options = nlohmann::json::object()) {
  std::unique_ptr<Dataset> d = make_dataset(name, options);
  auto* t = dynamic_cast<ReachTask*>(d.get());
  EXPECT_NE(t, nullptr);
  d.release();
  return std::unique_ptr<ReachTask>(t);
}

// States x_1..x_T all equal to `state` [N,4] rows, then T zero torques: what the objective hands out.
std::vector<Tensor> outputs_at(const std::vector<double>& state, int64_t n, int64_t T) {
  std::vector<Tensor> out;
  for (int64_t t = 0; t < T; ++t) out.push_back(Tensor::from({n, 4}, state, DType::f64));
  for (int64_t t = 0; t < T; ++t) out.push_back(Tensor::zeros(Shape{n, 2}, DType::f64));
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Reaching, CenterOutIsItsFixedCircleOfReaches) {
  auto task = reach_task("center_out");
  ASSERT_EQ(task->num_cases(), 64);
  EXPECT_EQ(task->signature().input_dim, 8);
  EXPECT_EQ(task->signature().output_dim, 2);
  Rng rng(3);
  // the whole set, in order, when the batch is its size
  EXPECT_TRUE(task->draw(64, rng)->same_as(*task->cases(0, 64)));
  // a smaller batch: distinct reaches
  const auto part = task->draw(10, rng);
  const auto& b = data_as<ReachBatch>(*part);
  std::set<std::pair<double, double>> targets;
  for (int64_t i = 0; i < b.count; ++i) targets.insert({b.targets[i * 4], b.targets[i * 4 + 1]});
  EXPECT_EQ(targets.size(), 10u);
  EXPECT_NE(error_of([&] { task->draw(65, rng); }).find("has 64 reaches"), std::string::npos);
  // doing nothing leaves every hand the circle's radius from its target
  EXPECT_NEAR(task->chance_level(), 10.0, 1e-9);
}

TEST(Reaching, ScoreIsTheHandDistanceToTheTargetInCm) {
  auto task = reach_task("center_out", {{"reaches", 8}});
  const auto all = task->cases(0, 8);
  const auto& b = data_as<ReachBatch>(*all);
  EXPECT_NEAR(task->score(b, outputs_at(b.targets, 8, 40)), 0.0, 1e-12);
  EXPECT_NEAR(task->score(b, outputs_at(b.starts, 8, 40)), 10.0, 1e-9);
  // only the last state counts on center-out
  std::vector<Tensor> late = outputs_at(b.starts, 8, 40);
  late[39] = Tensor::from({8, 4}, b.targets, DType::f64);
  EXPECT_NEAR(task->score(b, late), 0.0, 1e-12);
  EXPECT_NE(error_of([&] { task->score(b, std::vector<Tensor>(late.begin(), late.begin() + 40)); }).find("expects 80"),
            std::string::npos);
}

TEST(Reaching, PosturalHoldsNinePosturesAgainstEightForces) {
  auto task = reach_task("postural");
  ASSERT_EQ(task->num_cases(), 72);
  EXPECT_EQ(task->spec().plant.feedback_delay, 10);
  EXPECT_TRUE(task->spec().cost.every_step);
  const auto all = task->cases(0, 72);
  const auto& b = data_as<ReachBatch>(*all);
  EXPECT_EQ(b.starts, b.targets);  // the start is the posture to hold
  std::set<std::pair<double, double>> postures;
  std::set<long> directions;
  for (int64_t i = 0; i < 72; ++i) {
    postures.insert({b.starts[i * 4], b.starts[i * 4 + 1]});
    const double fx = b.hand_force[i * 2], fy = b.hand_force[i * 2 + 1];
    EXPECT_NEAR(std::hypot(fx, fy), 2.0, 1e-12);
    directions.insert(std::lround(std::atan2(fy, fx) / (std::numbers::pi / 4)));
    EXPECT_EQ(b.starts[i * 4 + 2], 0.0);
  }
  EXPECT_EQ(postures.size(), 9u);
  EXPECT_EQ(directions.size(), 8u);
  // held at every step: the score is the mean distance over the steps
  std::vector<Tensor> out = outputs_at(b.targets, 72, 100);
  EXPECT_NEAR(task->score(b, out), 0.0, 1e-12);
}

TEST(Reaching, DdnDrawsAreDeterministicBySeedAndAsStated) {
  auto task = reach_task("ddn", {{"pool", 0}});
  EXPECT_EQ(task->num_cases(), 0);  // fresh reaches every batch
  Rng a(7), b(7), c(8);
  const auto x = task->draw(4000, a);
  EXPECT_TRUE(x->same_as(*task->draw(4000, b)));
  EXPECT_FALSE(x->same_as(*task->draw(4000, c)));
  const auto& r = data_as<ReachBatch>(*x);
  const int64_t T = 60;
  ASSERT_EQ(r.command_noise.size(), static_cast<size_t>(T * 4000 * 2));
  EXPECT_TRUE(r.plant_noise.empty());
  double d_sum = 0, d_sq = 0;
  for (int64_t i = 0; i < 4000; ++i) {
    for (int k : {0, 4}) {
      const double th = (k == 0 ? r.starts : r.targets)[i * 4], ph = (k == 0 ? r.starts : r.targets)[i * 4 + 1];
      EXPECT_TRUE(th >= 0 && th <= std::numbers::pi / 2);
      EXPECT_TRUE(ph >= std::numbers::pi / 4 && ph <= 3 * std::numbers::pi / 4);
    }
    EXPECT_TRUE(r.onset[i] >= 0 && r.onset[i] < T / 2);
    for (int j : {0, 1}) d_sum += r.disturbance[i * 2 + j], d_sq += r.disturbance[i * 2 + j] * r.disturbance[i * 2 + j];
  }
  // N(0, 0.2²) per joint: mean 0 ± 0.013 and standard deviation 0.2 ± 0.009 at 5 standard errors
  const double mean = d_sum / 8000, sd = std::sqrt(d_sq / 8000 - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.012);
  EXPECT_NEAR(sd, 0.2, 0.008);
  double e_sum = 0, e_sq = 0;
  for (double e : r.command_noise) e_sum += e, e_sq += e * e;
  const double n = static_cast<double>(r.command_noise.size());
  EXPECT_NEAR(e_sum / n, 0.0, 0.005);
  EXPECT_NEAR(e_sq / n, 1.0, 0.01);
}

TEST(Reaching, DdnPartsAreFixedPoolsFromTheSeed) {
  auto train = reach_task("ddn"), valid = reach_task("ddn", {{"part", "valid"}}),
       test = reach_task("ddn", {{"part", "test"}}), other = reach_task("ddn", {{"seed", 2}});
  EXPECT_EQ(train->num_cases(), 400);
  EXPECT_EQ(valid->num_cases(), 2000);
  EXPECT_EQ(test->num_cases(), 2000);
  EXPECT_TRUE(train->cases(0, 400)->same_as(*reach_task("ddn")->cases(0, 400)));
  EXPECT_FALSE(valid->cases(0, 400)->same_as(*test->cases(0, 400)));
  EXPECT_FALSE(train->cases(0, 400)->same_as(*valid->cases(0, 400)));
  EXPECT_FALSE(train->cases(0, 400)->same_as(*other->cases(0, 400)));
}

TEST(Reaching, SlicesKeepEveryDrawWithItsReach) {
  auto task = reach_task("ddn", {{"pool", 0}});
  Rng rng(1);
  const auto all = task->draw(5, rng);
  const auto& b = data_as<ReachBatch>(*all);
  const auto cut = b.slice(2, 2);
  const auto& s = data_as<ReachBatch>(*cut);
  ASSERT_EQ(s.count, 2);
  for (int64_t i = 0; i < 2; ++i) {
    for (int k = 0; k < 4; ++k) EXPECT_EQ(s.starts[i * 4 + k], b.starts[(i + 2) * 4 + k]);
    EXPECT_EQ(s.onset[i], b.onset[i + 2]);
    for (int k = 0; k < 2; ++k) EXPECT_EQ(s.disturbance[i * 2 + k], b.disturbance[(i + 2) * 2 + k]);
    for (int64_t t = 0; t < 60; ++t)
      for (int k = 0; k < 2; ++k) EXPECT_EQ(s.command_noise[(t * 2 + i) * 2 + k], b.command_noise[(t * 5 + i + 2) * 2 + k]);
  }
  EXPECT_NE(error_of([&] { b.slice(4, 2); }).find("outside the batch of 5"), std::string::npos);
}

TEST(Reaching, BadOptionsAreNamed) {
  EXPECT_NE(error_of([] { reach_task("center_out", {{"radius", 0}}); }).find("radius"), std::string::npos);
  EXPECT_NE(error_of([] { reach_task("center_out", {{"radius", 0.4}}); }).find("out of reach"), std::string::npos);
  EXPECT_NE(error_of([] { reach_task("ddn", {{"part", "dev"}}); }).find("part"), std::string::npos);
  EXPECT_NE(error_of([] { reach_task("postural", {{"delay", -1}}); }).find("delay"), std::string::npos);
  EXPECT_NE(error_of([] { reach_task("postural", {{"T", 3}}); }).find("unknown option 'T'"), std::string::npos);
}

}  // namespace
}  // namespace tg::tasks
