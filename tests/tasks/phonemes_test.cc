// The speech tasks on a tiny corpus written here in the maker's format. phonemes (tasks/phonemes.h):
// batches of utterances with trailing padding and label sequences, features standardised with the
// training part's statistics, the phoneme error rate of best-path decoding, and clear errors for broken
// files. speech_frames (tasks/speech_frames.cc): the fixed non-overlapping windows, inputs and next-frame
// targets, random windows inside utterances long enough, the squared error per frame.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/npz.h"
#include "tasks/phonemes.h"
#include "tasks/task.h"

namespace tg::tasks {
namespace {

struct TinyCorpus {
  // one directory per test process: ctest runs the tests of this file at once
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              fmt::format("tapegrad_phonemes_{}_{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(), ::getpid());
  // 3 utterances of 2-dim frames: 3, 1 and 2 frames; labels (1 2), (5), (3 4)
  void write(const std::string& split, std::vector<int64_t> labels = {1, 2, 5, 3, 4}) const {
    std::filesystem::create_directories(dir);
    const std::vector<double> mfcc = {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60};
    write_npz((dir / (split + ".npz")).string(),
              {NpzEntry("mfcc", Tensor::from({6, 2}, mfcc, DType::f32)),
               NpzEntry("fbank", Tensor::from({6, 2}, mfcc, DType::f32)),
               NpzEntry("frame_offsets", std::vector<int64_t>{0, 3, 4, 6}), NpzEntry("labels", labels),
               NpzEntry("label_offsets", std::vector<int64_t>{0, 2, 3, 5}),
               NpzEntry("speaker", std::vector<int64_t>{0, 1, 2})});
  }
  TinyCorpus() {
    for (const char* s : {"train", "dev", "test"}) write(s);
    // the speakers of utterances 0, 1, 2 (as the maker lists them): voices m1, f2, m1
    const std::string speakers = R"(["en-us+m1/s140/p35", "en-gb+f2/s140/p35", "en-us+m1/s165/p50"])";
    std::ofstream(dir / "corpus.json") << R"({"splits": {"train": {"speakers": )" << speakers
                                       << R"(}, "dev": {"speakers": )" << speakers << R"(}, "test": {"speakers": )"
                                       << speakers << "}}}";
  }
  ~TinyCorpus() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

TEST(Phonemes, BatchesUtterancesWithPaddingAndLabelSequences) {
  TinyCorpus c;
  auto task = make("phonemes", {{"dir", c.dir.string()}, {"standardize", false}});
  EXPECT_EQ(task->signature().input_dim, 2);
  EXPECT_EQ(task->signature().output_dim, 40);  // 39 phones and the blank
  EXPECT_EQ(task->num_sequences(), 3);
  const Batch b = task->sequences(0, 3);
  ASSERT_EQ(b.steps(), 3);
  EXPECT_EQ(b.targets.labels, (std::vector<std::vector<int32_t>>{{1, 2}, {5}, {3, 4}}));
  ASSERT_EQ(b.inputs.mask.size(), 3u);
  EXPECT_EQ(b.inputs.mask[1].at(1), 0);  // utterance 1 has one frame
  EXPECT_EQ(b.inputs.mask[2].at(2), 0);  // utterance 2 has two
  EXPECT_EQ(b.inputs.dense[1].at(2 * 2 + 1), 60);  // utterance 2's second frame
  EXPECT_EQ(b.slice(2, 1)->size(), 1);
}

TEST(Phonemes, StandardisesWithTheTrainingStatistics) {
  TinyCorpus c;
  auto task = make("phonemes", {{"dir", c.dir.string()}, {"part", "test"}});
  const Batch b = task->sequences(0, 1);  // 3 frames of the first utterance
  // frames 1..6 have mean 3.5 and std √(35/12): frame 1 is (1 - 3.5) / 1.7078
  EXPECT_NEAR(b.inputs.dense[0].at(0), (1 - 3.5) / std::sqrt(35.0 / 12.0), 1e-5);
}

TEST(Phonemes, ErrorRateOfBestPathDecoding) {
  TinyCorpus c;
  auto task = make("phonemes", {{"dir", c.dir.string()}});
  const Batch b = task->sequences(0, 3);
  // outputs that spell every utterance's labels exactly within its length, then all blanks
  const std::vector<std::vector<int32_t>> paths = {{1, 2, 39}, {5, 39, 39}, {3, 4, 39}};
  std::vector<Tensor> exact, blank;
  for (int64_t t = 0; t < 3; ++t) {
    std::vector<double> z(3 * 40, 0.0), w(3 * 40, 0.0);
    for (int64_t s = 0; s < 3; ++s) z[static_cast<size_t>(s * 40 + paths[s][t])] = 5, w[static_cast<size_t>(s * 40 + 39)] = 5;
    exact.push_back(Tensor::from({3, 40}, z, DType::f64));
    blank.push_back(Tensor::from({3, 40}, w, DType::f64));
  }
  EXPECT_EQ(task->error_rate(b, exact), 0.0);
  EXPECT_EQ(task->error_rate(b, blank), 1.0);  // every phone deleted
}

TEST(Phonemes, BrokenFilesAreClearErrors) {
  TinyCorpus c;
  c.write("train", {1, 2, 5, 3, 40});  // phone 40 does not exist
  EXPECT_THROW(make("phonemes", {{"dir", c.dir.string()}}), Error);
  EXPECT_THROW(make("phonemes", {{"dir", (c.dir / "missing").string()}}), Error);
  EXPECT_THROW(make("phonemes", {{"dir", c.dir.string()}, {"features", "plp"}}), Error);
}

TEST(Phonemes, OneVoiceOnly) {
  TinyCorpus c;
  auto task = make("phonemes", {{"dir", c.dir.string()}, {"part", "test"}, {"voice", "m1"}});
  ASSERT_EQ(task->num_sequences(), 2);
  EXPECT_EQ(task->sequences(0, 2).targets.labels, (std::vector<std::vector<int32_t>>{{1, 2}, {3, 4}}));
  Rng rng(3);
  for (const auto& l : dynamic_cast<const Task&>(*task).sample(10, rng).targets.labels) EXPECT_NE(l, std::vector<int32_t>{5});
  try {
    make("phonemes", {{"dir", c.dir.string()}, {"voice", "f9"}});
    FAIL() << "a voice the corpus lacks was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("voice 'f9' speaks none of the 3 utterances"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(its voices: f2, m1)"), std::string::npos) << e.what();
  }
}

TEST(SpeechFrames, FixedWindowsAndNextFrameTargets) {
  TinyCorpus c;
  auto task = make("speech_frames", {{"dir", c.dir.string()}, {"standardize", false}, {"steps", 1}});
  EXPECT_EQ(task->signature().input_dim, 2);
  EXPECT_EQ(task->signature().output_dim, 2);
  EXPECT_EQ(task->signature().output, OutputKind::linear);
  // utterance 0 (3 frames) gives windows at 0 and 1, utterance 1 (1 frame) none, utterance 2 (2) one
  ASSERT_EQ(task->num_sequences(), 3);
  const Batch b = task->sequences(0, 3);
  ASSERT_EQ(b.steps(), 1);
  EXPECT_TRUE(b.inputs.mask.empty());
  EXPECT_EQ(b.inputs.dense[0].to_vector(), (std::vector<double>{1, 10, 2, 20, 5, 50}));
  EXPECT_EQ(b.targets.dense[0].to_vector(), (std::vector<double>{2, 20, 3, 30, 6, 60}));
  // the squared error per predicted frame, summed over its dimensions
  EXPECT_EQ(task->error_rate(b, b.targets.dense), 0.0);
  const std::vector<Tensor> zero = {Tensor::from({3, 2}, std::vector<double>(6, 0.0), DType::f64)};
  EXPECT_DOUBLE_EQ(task->error_rate(b, zero), (4 + 400 + 9 + 900 + 36 + 3600) / 3.0);
}

TEST(SpeechFrames, RandomWindowsFitTheirUtterances) {
  TinyCorpus c;
  auto task = make("speech_frames", {{"dir", c.dir.string()}, {"standardize", false}, {"steps", 2}});
  ASSERT_EQ(task->num_sequences(), 1);  // only utterance 0 has 3 frames
  Rng rng(5);
  const Batch b = dynamic_cast<const Task&>(*task).sample(8, rng);
  ASSERT_EQ(b.steps(), 2);
  for (int64_t s = 0; s < 8; ++s) {
    EXPECT_EQ(b.inputs.dense[0].at(s * 2), 1);  // the one window that fits: frames 1, 2 -> 2, 3
    EXPECT_EQ(b.targets.dense[1].at(s * 2), 3);
  }
  EXPECT_THROW(make("speech_frames", {{"dir", c.dir.string()}, {"steps", 3}}), Error);  // no utterance is long enough
  EXPECT_THROW(make("speech_frames", {{"dir", c.dir.string()}, {"steps", 0}}), Error);
}

TEST(SpeechFrames, StaticCoefficientsOnly) {
  TinyCorpus c;
  // frames of 3 features (one static coefficient, its delta, its delta-delta): 6 frames as TinyCorpus's
  for (const char* split : {"train", "dev", "test"}) {
    std::vector<double> mfcc;
    for (int f = 1; f <= 6; ++f) mfcc.insert(mfcc.end(), {1.0 * f, 100.0 * f, 1000.0 * f});
    write_npz((c.dir / (std::string(split) + ".npz")).string(),
              {NpzEntry("mfcc", Tensor::from({6, 3}, mfcc, DType::f32)), NpzEntry("fbank", Tensor::from({6, 3}, mfcc, DType::f32)),
               NpzEntry("frame_offsets", std::vector<int64_t>{0, 3, 4, 6}), NpzEntry("labels", std::vector<int64_t>{1, 2, 5, 3, 4}),
               NpzEntry("label_offsets", std::vector<int64_t>{0, 2, 3, 5}), NpzEntry("speaker", std::vector<int64_t>{0, 1, 2})});
  }
  auto task = make("speech_frames", {{"dir", c.dir.string()}, {"standardize", false}, {"steps", 1}, {"features", "mfcc_static"}});
  EXPECT_EQ(task->signature().input_dim, 1);
  EXPECT_EQ(task->signature().output_dim, 1);
  const Batch b = task->sequences(0, 3);
  EXPECT_EQ(b.inputs.dense[0].to_vector(), (std::vector<double>{1, 2, 5}));
  EXPECT_EQ(b.targets.dense[0].to_vector(), (std::vector<double>{2, 3, 6}));
  const std::vector<Tensor> zero = {Tensor::from({3, 1}, std::vector<double>(3, 0.0), DType::f64)};
  EXPECT_DOUBLE_EQ(task->error_rate(b, zero), (4 + 9 + 36) / 3.0);
  // standardised with the training part's static column alone: mean 3.5 of frames 1..6
  auto standardized = make("speech_frames", {{"dir", c.dir.string()}, {"steps", 1}, {"features", "mfcc_static"}});
  EXPECT_LT(standardized->sequences(0, 1).inputs.dense[0].at(0), 0.0);
}

TEST(SpeechFrames, StaticNeedsThreeParts) {
  TinyCorpus c;  // 2 features per frame: not static + delta + delta-delta
  try {
    make("speech_frames", {{"dir", c.dir.string()}, {"features", "mfcc_static"}, {"steps", 1}});
    FAIL() << "a 2-wide MFCC vector was split in three";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'mfcc' is 2 wide"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tg::tasks
