// The task registry: every task builds from its defaults (text from the tiny file), samples a batch
// consistent with its signature, scores perfect outputs as a success; options are checked by name.
#include <gtest/gtest.h>

#include <cmath>

#include "tasks/example.h"
#include "tests/tasks/util.h"

namespace tg::tasks {
namespace {

using testing::expect_error;

// Small settings so that every task samples quickly.
nlohmann::json small_options(const std::string& name) {
  if (name == "text") return {{"file", testing::tiny_text_path()}, {"T", 24}};
  if (name == "alphabet") return {{"lines", 2}};
  if (name == "music") return {{"bars", 4}};
  if (name == "distant_xor") return {{"T", 10}, {"lines", 3}};
  if (name == "anbn") return {{"pairs", 2}, {"n_min", 4}, {"n_max", 8}};
  return {{"T", 20}};
}

TEST(Registry, EveryTaskSamplesWhatItsSignatureSays) {
  const std::vector<std::string> expected = {"addition", "multiplication", "xor", "temporal_order", "random_permutation",
                                             "memorization", "adding", "alphabet", "music", "distant_xor", "anbn", "text",
                                             // image sets (tests/tasks/images_test.cc)
                                             "curves", "fashion_mnist", "fashion_mnist_classes", "images", "image_classes",
                                             // reaching tasks (tests/tasks/reaching_test.cc)
                                             "center_out", "postural", "ddn",
                                             // video (tests/tasks/video_test.cc)
                                             "bouncing_balls", "bouncing_balls_kl",
                                             // gated models (tests/tasks/gated_tasks_test.cc)
                                             "image_pairs", "transformed_video", "sine_walk",
                                             // speech (tests/tasks/phonemes_test.cc: they read a corpus)
                                             "phonemes", "speech_frames"};
  std::vector<std::string> names;
  for (const TaskInfo& info : registry()) names.push_back(info.name);
  EXPECT_EQ(names, expected);
  for (const TaskInfo& info : registry()) {
    SCOPED_TRACE(info.name);
    if (info.name.find("image") != std::string::npos || info.name.find("mnist") != std::string::npos ||
        info.name == "curves" || info.name == "center_out" || info.name == "postural" || info.name == "ddn" ||
        info.name.starts_with("bouncing_balls") || info.name == "image_pairs" || info.name == "transformed_video" ||
        info.name == "sine_walk" || info.name == "phonemes" || info.name == "speech_frames")
      continue;
    EXPECT_FALSE(info.description.empty());
    EXPECT_FALSE(info.seed.empty());
    auto task = make(info.name, small_options(info.name));
    EXPECT_EQ(task->name(), info.name);
    const Signature sig = task->signature();
    Rng rng(1);
    const Batch b = task->sample(3, rng);
    ASSERT_GE(b.steps(), 1);
    ASSERT_EQ(b.size(), 3);
    ASSERT_EQ(b.targets.mask.size(), static_cast<size_t>(b.steps()));
    EXPECT_TRUE(b.inputs.mask.empty() || b.inputs.mask.size() == static_cast<size_t>(b.steps()));
    for (int64_t t = 0; t < b.steps(); ++t) {
      if (sig.symbolic_input) {
        for (int32_t s : *b.inputs.symbols[t]) EXPECT_TRUE(s >= 0 && s < sig.input_dim);
      } else {
        EXPECT_EQ(b.inputs.dense[t].shape(), (Shape{3, sig.input_dim}));
      }
      if (sig.output == OutputKind::softmax) {
        for (int32_t s : *b.targets.symbols[t]) EXPECT_TRUE(s >= 0 && s < sig.output_dim);
      } else {
        EXPECT_EQ(b.targets.dense[t].shape(), (Shape{3, sig.output_dim}));
      }
    }
    // Perfect outputs count as a success (for the likelihood tasks: regret below the paper's).
    std::vector<Tensor> y;
    for (int64_t t = 0; t < b.steps(); ++t) {
      Tensor z = Tensor::zeros(Shape{3, sig.output_dim}, DType::f64);
      for (int64_t s = 0; s < 3; ++s) {
        if (sig.output == OutputKind::softmax) z.data<double>()[s * sig.output_dim + (*b.targets.symbols[t])[s]] = 50;
        else if (sig.output == OutputKind::logistic) z.data<double>()[s] = b.targets.dense[t].at(s) > 0.5 ? 50 : -50;
        else z.data<double>()[s] = b.targets.dense[t].at(s);
      }
      y.push_back(z);
    }
    const double err = task->error_rate(b, y);
    if (info.name == "text") EXPECT_LT(err, 1e-6);
    else EXPECT_LT(err, task->success_threshold());
    EXPECT_FALSE(task->success_criterion().empty());
    EXPECT_TRUE(std::isfinite(task->chance_level()));
    EXPECT_GT(task->chance_level(), task->success_threshold() * (info.name == "text" ? 0 : 1));
    expect_error([&] { task->error_rate(b, std::vector<Tensor>(y.begin(), y.end() - 1)); }, {"output steps"});
    expect_error([&] { task->sample(0, rng); }, {"at least 1"});
  }
}

TEST(Registry, OptionsAreCheckedByName) {
  expect_error([] { make("adition", {}); }, {"unknown task 'adition'", "addition"});
  expect_error([] { make("addition", {{"length", 5}}); }, {"'addition'", "unknown option 'length'", "T"});
  expect_error([] { make("addition", {{"T", "50"}}); }, {"'T'", "must be a number"});
  expect_error([] { make("addition", {{"T", 5}}); }, {"'T'", "[10,", "got 5"});
  expect_error([] { make("addition", {{"T", 12.5}}); }, {"'T'", "integer"});
  expect_error([] { make("addition", nlohmann::json::array()); }, {"JSON object"});
  expect_error([] { make("temporal_order", {{"bits", 4}}); }, {"'bits'"});
  expect_error([] { make("memorization", {{"bits", 7}}); }, {"'bits'", "5 or 20"});
  expect_error([] { make("memorization", {{"metric", "bits"}}); }, {"'metric'", "sequence, timestep"});
  expect_error([] { make("adding", {{"placement", "ends"}}); }, {"'placement'"});
  expect_error([] { make("anbn", {{"n_min", 10}, {"n_max", 5}}); }, {"'n_max'"});
  expect_error([] { make("distant_xor", {{"lines", 0}}); }, {"'lines'"});
  EXPECT_EQ(make("addition", {{"T", 20.0}})->name(), "addition") << "20.0 is an integer";
  EXPECT_EQ(resolve(find("memorization"), {{"bits", 20}}), (nlohmann::json{{"T", 100}, {"bits", 20}, {"metric", "sequence"}, {"blank", "symbol"}}));
}

TEST(Registry, GeneratorsHaveNoFixedSequences) {
  auto task = make("addition", {});
  EXPECT_EQ(task->num_sequences(), 0);
  expect_error([&] { task->sequences(0, 1); }, {"generator"});
}

// Plots and progress lines name each task's measure; a new task must say what its error_rate is.
TEST(Registry, EveryTaskNamesItsMeasure) {
  for (const TaskInfo& info : registry()) {
    SCOPED_TRACE(info.name);
    const Measure m = measure(info.name);
    EXPECT_NE(m.name, "error measure");
    EXPECT_FALSE(m.short_name.empty());
  }
  EXPECT_EQ(measure("text").name, "bits per character");
  EXPECT_EQ(measure("text").short_name, "bpc");
  EXPECT_EQ(measure("addition").name, "error rate");
  EXPECT_EQ(measure("adding").short_name, "MSE");
  EXPECT_EQ(measure("no such task").name, "error measure");
}

}  // namespace
}  // namespace tg::tasks
