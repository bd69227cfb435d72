// The gated models' tasks (tasks/gated_tasks.cc) and their generators (tasks/transformed_images.h,
// tasks/sine_walk.h): next-frame layouts with unscored seed steps, fresh draws by seed, frames that are
// the blobs (or a Fashion-MNIST picture) moved by the drawn motion and standardised per sequence, a sine
// that follows its walking frequency inside its band, and the MSE measure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numbers>
#include <set>
#include <span>

#include "tasks/example.h"
#include "tasks/sine_walk.h"
#include "tasks/transformed_images.h"
#include "tests/tasks/util.h"

namespace tg::tasks {
namespace {

using testing::expect_error;

const char* const kGatedTasks[] = {"image_pairs", "transformed_video", "sine_walk"};

// The standardised frame t of a sequence, rendered again from its blobs and motion.
std::vector<double> rerender(const TransformedImagesSpec& spec, const TransformedSequence& q, int64_t t) {
  std::vector<double> f = render_blobs(spec, moved_blobs(spec, q.blobs, motion_at(q, static_cast<double>(t))));
  for (double& v : f) v = (v - q.mean) / q.scale;
  return f;
}

void expect_frame(const TransformedSequence& q, int64_t t, const std::vector<double>& want, double tol = 1e-5) {
  const int64_t D = q.size * q.size;
  ASSERT_EQ(static_cast<int64_t>(want.size()), D);
  for (int64_t i = 0; i < D; ++i) ASSERT_NEAR(q.frames[t * D + i], want[i], tol) << "frame " << t << " pixel " << i;
}

double frame_std(const TransformedSequence& q, int64_t t) {
  const int64_t D = q.size * q.size;
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < D; ++i) sum += q.frames[t * D + i];
  for (int64_t i = 0; i < D; ++i) sq += std::pow(q.frames[t * D + i] - sum / D, 2);
  return std::sqrt(sq / D);
}

std::vector<Tensor> zeros_like(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(Tensor::zeros(t.shape(), DType::f64));
  return out;
}

TEST(GatedTasks, NextFrameLayoutsWithUnscoredSeedSteps) {
  struct Case {
    const char* name;
    nlohmann::json options;
    int64_t steps, seed_frames, in, out;
  };
  for (const Case& c : {Case{"image_pairs", {}, 2, 1, 169, 169}, Case{"transformed_video", {}, 10, 4, 169, 169},
                        Case{"transformed_video", {{"transform", "shift"}, {"size", 8}, {"steps", 6}, {"seed_frames", 1}}, 6, 1, 64, 64},
                        Case{"sine_walk", {}, 20, 4, 26, 10}}) {
    SCOPED_TRACE(c.name);
    auto task = make(c.name, c.options);
    const Signature sig = task->signature();
    EXPECT_FALSE(sig.symbolic_input);
    EXPECT_EQ(sig.output, OutputKind::linear);
    EXPECT_EQ(sig.input_dim, c.in);
    EXPECT_EQ(sig.output_dim, c.out);
    Rng rng(7);
    const Batch b = task->sample(3, rng);
    ASSERT_EQ(b.steps(), c.steps - 1);
    ASSERT_EQ(b.size(), 3);
    EXPECT_TRUE(b.inputs.mask.empty());
    for (int64_t t = 0; t < b.steps(); ++t) {
      EXPECT_EQ(b.inputs.dense[t].shape(), (Shape{3, c.in}));
      EXPECT_EQ(b.targets.dense[t].shape(), (Shape{3, c.out}));
      for (int64_t s = 0; s < 3; ++s) EXPECT_EQ(b.targets.mask[t].at(s), t >= c.seed_frames - 1 ? 1.0 : 0.0) << t;
      if (t + 1 < b.steps()) {  // the target is the next step's frame (the first `out` inputs)
        for (int64_t s = 0; s < 3; ++s)
          for (int64_t k = 0; k < c.out; ++k)
            ASSERT_EQ(b.targets.dense[t].at(s * c.out + k), b.inputs.dense[t + 1].at(s * c.in + k));
      }
    }
  }
}

TEST(GatedTasks, SameSeedSameBatchAndEveryDrawFresh) {
  for (const char* name : kGatedTasks) {
    SCOPED_TRACE(name);
    auto task = make(name, {});
    Rng a(11), b(11);
    const Batch x = task->sample(2, a), y = task->sample(2, b), z = task->sample(2, a);
    bool differ = false;
    for (int64_t t = 0; t < x.steps(); ++t) {
      for (int64_t i = 0; i < x.inputs.dense[t].size(); ++i) {
        ASSERT_EQ(x.inputs.dense[t].at(i), y.inputs.dense[t].at(i));
        differ |= x.inputs.dense[t].at(i) != z.inputs.dense[t].at(i);
      }
      for (int64_t i = 0; i < x.targets.dense[t].size(); ++i) ASSERT_EQ(x.targets.dense[t].at(i), y.targets.dense[t].at(i));
    }
    EXPECT_TRUE(differ) << "the next draw is new data";
  }
}

TEST(GatedTasks, TheTaskShowsTheGeneratorsFrames) {
  auto task = make("transformed_video", {{"transform", "shift"}, {"order", 2}, {"steps", 5}, {"seed_frames", 2}});
  TransformedImagesSpec spec;
  spec.transform = ImageTransform::shift;
  spec.order = 2;
  spec.steps = 5;
  Rng r1(4), r2(4);
  const Batch b = task->sample(1, r1);
  const TransformedSequence q = transformed_images(spec, r2);
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t i = 0; i < 169; ++i) {
      ASSERT_EQ(b.inputs.dense[t].at(i), q.frames[t * 169 + i]);
      ASSERT_EQ(b.targets.dense[t].at(i), q.frames[(t + 1) * 169 + i]);
    }
}

TEST(GatedTasks, RotationFramesAreTheBlobsRotatedByTheVelocity) {
  TransformedImagesSpec spec;  // rotation, order 1, 13x13, 10 frames
  Rng rng(5);
  for (int n = 0; n < 5; ++n) {
    const TransformedSequence q = transformed_images(spec, rng);
    EXPECT_GE(q.start[0], 0);
    EXPECT_LT(q.start[0], 2 * std::numbers::pi);
    EXPECT_LE(std::abs(q.velocity[0]), 0.3);
    EXPECT_EQ(q.acceleration[0], 0);
    EXPECT_EQ(q.jerk[0], 0);
    std::vector<double> centres = moved_blobs(spec, q.blobs, {q.start[0], 0});
    const double c = std::cos(q.velocity[0]), s = std::sin(q.velocity[0]);
    for (int64_t t = 0; t < q.steps; ++t) {
      std::vector<double> f = render_blobs(spec, centres);
      for (double& v : f) v = (v - q.mean) / q.scale;
      expect_frame(q, t, f);
      for (size_t b = 0; b < centres.size(); b += 2) {  // one frame on: every blob turned by v about the centre
        const double x = centres[b], y = centres[b + 1];
        centres[b] = c * x - s * y, centres[b + 1] = s * x + c * y;
      }
    }
  }
}

TEST(GatedTasks, HigherOrdersHaveConstantDifferencesOfTheMotion) {
  for (int order : {2, 3}) {
    for (ImageTransform transform : {ImageTransform::rotation, ImageTransform::shift}) {
      TransformedImagesSpec spec;
      spec.order = order;
      spec.transform = transform;
      spec.steps = 8;
      Rng rng(order);
      const TransformedSequence q = transformed_images(spec, rng);
      const int dims = transform == ImageTransform::rotation ? 1 : 2;
      for (int k = 0; k < dims; ++k) {
        std::vector<double> m;
        for (int64_t t = 0; t < q.steps; ++t) m.push_back(motion_at(q, static_cast<double>(t))[k]);
        // differences of order `order` are constant: a (order 2) or j (order 3); the next ones vanish
        for (int d = 0; d < order; ++d)
          for (size_t t = 0; t + 1 < m.size() - d; ++t) m[t] = m[t + 1] - m[t];
        const size_t left = m.size() - order;
        const double want = order == 2 ? q.acceleration[k] : q.jerk[k];
        EXPECT_NE(want, 0);
        for (size_t t = 0; t < left; ++t) EXPECT_NEAR(m[t], want, 1e-9) << "order " << order << " coordinate " << k;
      }
      if (transform == ImageTransform::shift) {
        EXPECT_EQ(motion_at(q, 0), (std::array<double, 2>{0, 0}));
      }
      for (int64_t t = 0; t < q.steps; ++t) expect_frame(q, t, rerender(spec, q, t));
    }
  }
}

TEST(GatedTasks, ShiftsShowNoEmptyBorder) {
  // the strongest motion the defaults allow: jerk over 12 frames, up to 11 + 15 + 21 px away
  TransformedImagesSpec spec;
  spec.transform = ImageTransform::shift;
  spec.order = 3;
  spec.steps = 12;
  Rng rng(9);
  double first = 0, last = 0;
  for (int n = 0; n < 40; ++n) {
    const TransformedSequence q = transformed_images(spec, rng);
    const double s0 = frame_std(q, 0);
    for (int64_t t = 1; t < q.steps; ++t) ASSERT_GT(frame_std(q, t), 0.3 * s0) << "sequence " << n << " frame " << t;
    first += s0, last += frame_std(q, q.steps - 1);
  }
  EXPECT_NEAR(last / first, 1.0, 0.2) << "the last frames are as busy as the first";
}

TEST(GatedTasks, EachSequenceIsStandardised) {
  for (ImageTransform transform : {ImageTransform::rotation, ImageTransform::shift}) {
    TransformedImagesSpec spec;
    spec.transform = transform;
    spec.order = 2;
    Rng rng(13);
    for (int n = 0; n < 5; ++n) {
      const TransformedSequence q = transformed_images(spec, rng);
      double sum = 0, sq = 0;
      for (float v : q.frames) sum += v, sq += static_cast<double>(v) * v;
      const double N = static_cast<double>(q.frames.size());
      EXPECT_NEAR(sum / N, 0, 1e-6);
      EXPECT_NEAR(sq / N, 1, 1e-5);
    }
  }
}

TEST(GatedTasks, SineSamplesFollowTheAccumulatedPhase) {
  SineWalkSpec spec;
  spec.walk = 0.03;
  Rng rng(17);
  for (int n = 0; n < 10; ++n) {
    const SineWalkSequence q = sine_walk(spec, rng);
    ASSERT_EQ(q.omega.size(), 20u);
    ASSERT_EQ(q.samples.size(), 200u);
    double phi = q.phase;
    for (int64_t t = 0; t < q.steps; ++t)
      for (int64_t k = 0; k < q.frame; ++k) {
        ASSERT_NEAR(q.samples[t * q.frame + k], std::sin(phi), 1e-6) << t << " " << k;
        phi += q.omega[t];
      }
  }
  // the task's inputs: frame t, then the code of the next frame's frequency
  auto task = make("sine_walk", {{"walk", 0.03}});
  Rng r1(17), r2(17);
  const Batch b = task->sample(1, r1);
  const SineWalkSequence q = sine_walk(spec, r2);
  for (int64_t t = 0; t < b.steps(); ++t) {
    const std::vector<double> code = frequency_code(spec, q.omega[t + 1]);
    for (int64_t k = 0; k < 10; ++k) ASSERT_EQ(b.inputs.dense[t].at(k), q.samples[t * 10 + k]);
    for (int64_t k = 0; k < 16; ++k) ASSERT_NEAR(b.inputs.dense[t].at(10 + k), code[k], 1e-7);
    for (int64_t k = 0; k < 10; ++k) ASSERT_EQ(b.targets.dense[t].at(k), q.samples[(t + 1) * 10 + k]);
  }
}

TEST(GatedTasks, TheFrequencyWalksInsideItsBand) {
  SineWalkSpec spec;
  spec.walk = 0.05;  // five times the default: the walk hits the band's ends often
  for (FrequencyBand band : {FrequencyBand::train, FrequencyBand::gap, FrequencyBand::all}) {
    spec.band = band;
    Rng rng(19);
    int below = 0;
    const int n = 400;
    for (int i = 0; i < n; ++i) {
      const SineWalkSequence q = sine_walk(spec, rng);
      const bool low = q.omega[0] <= spec.gap_lo;
      below += low;
      for (double w : q.omega) {
        if (band == FrequencyBand::train) {
          ASSERT_TRUE(low ? w >= spec.omega_lo && w <= spec.gap_lo : w >= spec.gap_hi && w <= spec.omega_hi) << w;
        } else if (band == FrequencyBand::gap) {
          ASSERT_TRUE(w >= spec.gap_lo && w <= spec.gap_hi) << w;
        } else {
          ASSERT_TRUE(w >= spec.omega_lo && w <= spec.omega_hi) << w;
        }
      }
    }
    // train: the lower band is drawn with probability 0.15 / 0.35
    if (band == FrequencyBand::train) {
      EXPECT_NEAR(below / double(n), 0.15 / 0.35, 0.08);
    }
  }
  // the task's parts: "test" is the held-out gap, "valid" the training bands
  for (auto [part, lo, hi] : {std::tuple{"gap", 0.25, 0.30}, std::tuple{"test", 0.25, 0.30}}) {
    auto task = make("sine_walk", {{"part", part}});
    Rng rng(1);
    const Batch b = task->sample(20, rng);
    for (int64_t t = 0; t < b.steps(); ++t)
      for (int64_t s = 0; s < 20; ++s) {  // the code's argmax is a centre in or next to the band
        int64_t best = 0;
        for (int64_t k = 1; k < 16; ++k)
          if (b.inputs.dense[t].at(s * 26 + 10 + k) > b.inputs.dense[t].at(s * 26 + 10 + best)) best = k;
        const double centre = 0.1 + best * 0.4 / 15;
        EXPECT_TRUE(centre > lo - 0.4 / 30 && centre < hi + 0.4 / 30) << part << " " << centre;
      }
  }
}

TEST(GatedTasks, TheCodeSumsToOneAndPeaksAtTheNearestCentre) {
  SineWalkSpec spec;
  const double spacing = (spec.omega_hi - spec.omega_lo) / (spec.codes - 1);
  for (double w = spec.omega_lo; w <= spec.omega_hi; w += 0.0037) {
    const std::vector<double> code = frequency_code(spec, w);
    ASSERT_EQ(code.size(), 16u);
    double sum = 0;
    for (double c : code) {
      EXPECT_GT(c, 0);
      sum += c;
    }
    EXPECT_NEAR(sum, 1, 1e-12);
    const int64_t best = std::max_element(code.begin(), code.end()) - code.begin();
    EXPECT_EQ(best, std::lround((w - spec.omega_lo) / spacing)) << w;
  }
}

TEST(GatedTasks, MeasureIsZeroForTheTruthAndTheTargetsMeanSquareForZeros) {
  for (const char* name : kGatedTasks) {
    SCOPED_TRACE(name);
    auto task = make(name, {});
    Rng rng(23);
    const Batch b = task->sample(200, rng);
    EXPECT_EQ(task->error_rate(b, b.targets.dense), 0.0);
    double sq = 0;
    int64_t n = 0;
    for (int64_t t = 0; t < b.steps(); ++t)
      for (int64_t s = 0; s < b.size(); ++s) {
        if (b.targets.mask[t].at(s) == 0) continue;
        const int64_t out = task->signature().output_dim;
        for (int64_t k = 0; k < out; ++k, ++n) sq += std::pow(b.targets.dense[t].at(s * out + k), 2);
      }
    std::vector<Tensor> zeros = zeros_like(b.targets.dense);
    const double mse = task->error_rate(b, zeros);
    EXPECT_NEAR(mse, sq / n, 1e-9);
    EXPECT_NEAR(mse, task->chance_level(), 0.05) << "the chance level is the zero prediction's MSE";
    // the seed steps are not scored: a wrong prediction there costs nothing
    if (b.targets.mask[0].at(0) == 0) {
      zeros[0] = Tensor::full(zeros[0].shape(), 5.0, DType::f64);
      EXPECT_EQ(task->error_rate(b, zeros), mse);
    }
    EXPECT_EQ(task->success_threshold(), -INFINITY);
    EXPECT_EQ(measure(name).short_name, "MSE");
    expect_error([&] { task->error_rate(b, std::vector<Tensor>(zeros.begin(), zeros.end() - 1)); }, {"output steps"});
  }
}

TEST(GatedTasks, BadOptionsAreErrorsNamingTheOption) {
  struct Bad {
    const char* task;
    nlohmann::json options;
    std::vector<std::string> fragments;
  };
  for (const Bad& c : std::vector<Bad>{
           {"transformed_video", {{"steps", 1}}, {"'transformed_video'", "'steps'", "got 1"}},
           {"transformed_video", {{"steps", 10}, {"seed_frames", 10}}, {"'seed_frames'", "[1, 9]"}},
           {"transformed_video", {{"seed_frames", 0}}, {"'seed_frames'"}},
           {"transformed_video", {{"order", 4}}, {"'order'", "[1, 3]"}},
           {"transformed_video", {{"size", 1}}, {"'size'", "[2, 128]"}},
           {"transformed_video", {{"size", 129}}, {"'size'"}},
           {"transformed_video", {{"transform", "shear"}}, {"'transform'", "rotation, shift"}},
           {"transformed_video", {{"velocity", -0.1}}, {"'velocity'"}},
           {"transformed_video", {{"velocity", "fast"}}, {"'velocity'", "number"}},
           {"transformed_video", {{"velocity", 4}}, {"'velocity'"}},  // more than π rad per frame
           {"transformed_video", {{"jerk", -1}}, {"'jerk'"}},
           {"transformed_video", {{"dots", 0}}, {"'dots'"}},
           {"transformed_video", {{"blob_sigma", 0}}, {"'blob_sigma'"}},
           {"transformed_video", {{"transform", "shift"}, {"order", 3}, {"steps", 1000}}, {"'transformed_video'", "blobs", "steps"}},
           {"transformed_video", {{"source", "mnist"}}, {"'source'", "blobs, fashion_mnist"}},
           {"image_pairs", {{"source", "fashion_mnist"}, {"dots", 25}}, {"'image_pairs'", "'dots'", "\"blobs\" only"}},
           {"transformed_video", {{"source", "fashion_mnist"}, {"blob_sigma", 1}}, {"'blob_sigma'", "\"blobs\" only"}},
           {"image_pairs", {{"order", 2}}, {"'image_pairs'", "unknown option 'order'"}},
           {"image_pairs", {{"steps", 3}}, {"unknown option 'steps'"}},
           {"sine_walk", {{"steps", 4}, {"seed_frames", 4}}, {"'sine_walk'", "'seed_frames'"}},
           {"sine_walk", {{"codes", 1}}, {"'codes'"}},
           {"sine_walk", {{"frame", 0}}, {"'frame'"}},
           {"sine_walk", {{"gap_lo", 0.05}}, {"'gap_lo'"}},
           {"sine_walk", {{"gap_hi", 0.2}}, {"'gap_hi'"}},
           {"sine_walk", {{"omega_hi", 4}}, {"'omega_hi'"}},
           {"sine_walk", {{"omega_lo", 0}}, {"'omega_lo'"}},
           {"sine_walk", {{"walk", -0.01}}, {"'walk'"}},
           {"sine_walk", {{"part", "middle"}}, {"'part'", "train, gap, all"}},
       }) {
    SCOPED_TRACE(c.options.dump());
    try {
      make(c.task, c.options);
      ADD_FAILURE() << "no tg::Error thrown";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
      for (const std::string& f : c.fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
    }
  }
}

}  // namespace
}  // namespace tg::tasks

namespace tg::tasks {
namespace {
// codes 0: the inputs are the frames alone, for the pyramid without inputs (the CPGP's baseline).
TEST(GatedTasks, SineWalkWithoutCodeGivesFramesAlone) {
  auto task = make("sine_walk", {{"codes", 0}});
  EXPECT_EQ(task->signature().input_dim, 10);
  EXPECT_EQ(task->signature().output_dim, 10);
  Rng rng(5);
  const Batch b = task->sample(3, rng);
  for (int64_t t = 0; t + 1 < b.steps(); ++t)
    for (int64_t i = 0; i < 30; ++i) ASSERT_EQ(b.targets.dense[t].at(i), b.inputs.dense[t + 1].at(i));
}
}  // namespace
}  // namespace tg::tasks

namespace tg::tasks {
namespace {

// Pictures (source fashion_mnist) and the unchanged blobs.

// Seed 5's first blob pair, as the generator drew it before pictures came (and tapegrad tasks --dump
// image_pairs --seed 5 printed it): adding sources must not change the blobs' sequences.
TEST(GatedTasks, BlobSequencesAreThoseOfBefore) {
  auto task = make("image_pairs", {});
  Rng rng(5);
  const Batch b = task->sample(1, rng);
  EXPECT_NEAR(b.inputs.dense[0].at(0), -0.83109754, 1e-7);
  EXPECT_NEAR(b.inputs.dense[0].at(1), -0.6651586, 1e-7);
  EXPECT_NEAR(b.inputs.dense[0].at(2), -1.0027598, 1e-7);
}

// A 28x28 picture with no symmetry, so that every wrong index shows.
std::vector<float> uneven_picture(int64_t h = 28, int64_t w = 28) {
  std::vector<float> p(static_cast<size_t>(h * w));
  for (size_t k = 0; k < p.size(); ++k) p[k] = static_cast<float>((k * 7919 % 997) / 997.0);
  return p;
}

TEST(GatedTasks, APictureAtRestIsThePictureOrItsCentredWindow) {
  const std::vector<float> pic = uneven_picture();
  for (ImageTransform transform : {ImageTransform::rotation, ImageTransform::shift}) {
    const std::vector<double> f = render_picture(pic, 28, 28, 28, transform, {0, 0});
    for (size_t k = 0; k < pic.size(); ++k) ASSERT_EQ(f[k], pic[k]) << k;
  }
  // 20 px: the centre crop (4 px off each side); 32 px: the picture inside a black border of 2 px
  const std::vector<double> crop = render_picture(pic, 28, 28, 20, ImageTransform::shift, {0, 0});
  for (int64_t i = 0; i < 20; ++i)
    for (int64_t j = 0; j < 20; ++j) ASSERT_EQ(crop[i * 20 + j], pic[(i + 4) * 28 + j + 4]) << i << " " << j;
  const std::vector<double> big = render_picture(pic, 28, 28, 32, ImageTransform::rotation, {0, 0});
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 32; ++j) {
      const bool inside = i >= 2 && i < 30 && j >= 2 && j < 30;
      ASSERT_EQ(big[i * 32 + j], inside ? pic[(i - 2) * 28 + j - 2] : 0.0f) << i << " " << j;
    }
}

TEST(GatedTasks, ShiftsMoveThePictureAndInterpolateBetweenPixels) {
  const std::vector<float> pic = uneven_picture();
  auto px = [&](int64_t r, int64_t k) { return r >= 0 && r < 28 && k >= 0 && k < 28 ? pic[r * 28 + k] : 0.0; };
  // s = (3, -2) px: what was at (x, y) is at (x + 3, y - 2); what comes in from outside is black
  const std::vector<double> f = render_picture(pic, 28, 28, 28, ImageTransform::shift, {3, -2});
  for (int64_t i = 0; i < 28; ++i)
    for (int64_t j = 0; j < 28; ++j) ASSERT_EQ(f[i * 28 + j], px(i + 2, j - 3)) << i << " " << j;
  // half a pixel right: the mean of each pixel and its left neighbour (bilinear)
  const std::vector<double> h = render_picture(pic, 28, 28, 28, ImageTransform::shift, {0.5, 0});
  for (int64_t i = 0; i < 28; ++i)
    for (int64_t j = 0; j < 28; ++j) ASSERT_NEAR(h[i * 28 + j], (px(i, j - 1) + px(i, j)) / 2, 1e-12) << i << " " << j;
}

// A quarter turn maps the grid of pixel centres onto itself when the frame centre is a pixel corner (even
// sides) or a pixel centre (odd sides): frame θ + π/2 is frame θ turned by 90° exactly, whatever θ (both
// sample the picture at the same points). y points down, so θ > 0 turns clockwise on screen:
// pixel (i, j) of the turned frame is pixel (side - 1 - j, i) of the other.
TEST(GatedTasks, AQuarterTurnOfThePictureIsTheFrameTurnedBy90Degrees) {
  const std::vector<float> pic = uneven_picture();
  for (int64_t side : {28, 13}) {
    for (double theta : {0.0, 0.37}) {
      SCOPED_TRACE(::testing::Message() << "side " << side << " theta " << theta);
      const std::vector<double> a = render_picture(pic, 28, 28, side, ImageTransform::rotation, {theta, 0});
      const std::vector<double> b =
          render_picture(pic, 28, 28, side, ImageTransform::rotation, {theta + std::numbers::pi / 2, 0});
      for (int64_t i = 0; i < side; ++i)
        for (int64_t j = 0; j < side; ++j) ASSERT_NEAR(b[i * side + j], a[(side - 1 - j) * side + i], 1e-9) << i << " " << j;
    }
  }
  // at θ = 0 on 28 px, the turned frame is the picture itself turned
  const std::vector<double> q = render_picture(pic, 28, 28, 28, ImageTransform::rotation, {std::numbers::pi / 2, 0});
  for (int64_t i = 0; i < 28; ++i)
    for (int64_t j = 0; j < 28; ++j) ASSERT_NEAR(q[i * 28 + j], pic[(27 - j) * 28 + i], 1e-9) << i << " " << j;
}

TEST(GatedTasks, AllBlackPicturesGiveAllZeroSequences) {
  auto black = std::make_shared<ImageSet::Pixels>();
  black->count = 2, black->height = black->width = 28;
  black->values.assign(2 * 28 * 28, 0.0f);
  TransformedImagesSpec spec;
  spec.size = 28;
  spec.pictures = black;
  Rng rng(3);
  const TransformedSequence q = transformed_images(spec, rng);
  EXPECT_EQ(q.scale, 1);
  for (float v : q.frames) ASSERT_EQ(v, 0.0f);  // standard deviation 0: not scaled, no NaN
}

// The training images of Debian's dataset-fashion-mnist, kept for the whole test program (the tasks then
// share this copy), or null when the package is not installed.
std::shared_ptr<const ImageSet::Pixels> fashion_pictures() {
  static const std::shared_ptr<const ImageSet::Pixels> kept =
      std::filesystem::exists(std::string(kFashionMnistDir) + "/train-images-idx3-ubyte.gz")
          ? fashion_mnist_pixels("test", kFashionMnistDir, true, false)
          : nullptr;
  return kept;
}

#define SKIP_WITHOUT_FASHION_MNIST() \
  if (!fashion_pictures()) GTEST_SKIP() << "dataset-fashion-mnist is not installed (scripts/setup.sh)"

// frame t of a pictures sequence, standardised as the sequence was
std::vector<double> rerender_picture(const TransformedImagesSpec& spec, const TransformedSequence& q, int64_t t) {
  const ImageSet::Pixels& p = *spec.pictures;
  const size_t area = static_cast<size_t>(p.height * p.width);
  std::vector<double> f =
      render_picture(std::span(p.values).subspan(static_cast<size_t>(q.picture) * area, area), p.height, p.width,
                     spec.size, spec.transform, motion_at(q, static_cast<double>(t)));
  for (double& v : f) v = (v - q.mean) / q.scale;
  return f;
}

TEST(GatedTasks, FashionMnistSequencesMoveOneTrainingPicture) {
  SKIP_WITHOUT_FASHION_MNIST();
  const auto pics = fashion_pictures();
  ASSERT_EQ(pics->count, 60'000);
  ASSERT_EQ(pics->height, 28);
  for (ImageTransform transform : {ImageTransform::rotation, ImageTransform::shift}) {
    SCOPED_TRACE(transform == ImageTransform::rotation ? "rotation" : "shift");
    TransformedImagesSpec spec;
    spec.size = 28;
    spec.transform = transform;
    spec.order = 2;
    spec.steps = 5;
    spec.pictures = pics;
    Rng rng(21);
    std::set<int64_t> shown;
    for (int n = 0; n < 20; ++n) {
      const TransformedSequence q = transformed_images(spec, rng);
      ASSERT_GE(q.picture, 0);
      ASSERT_LT(q.picture, 60'000);
      EXPECT_TRUE(q.blobs.empty());
      shown.insert(q.picture);
      for (int64_t t = 0; t < q.steps; ++t) expect_frame(q, t, rerender_picture(spec, q, t));
      if (transform == ImageTransform::shift) {  // s_0 = 0: frame 0 is the picture
        for (int64_t k = 0; k < 784; ++k)
          ASSERT_NEAR(q.frames[k] * q.scale + q.mean, pics->values[q.picture * 784 + k], 1e-6) << k;
      }
      double sum = 0, sq = 0;  // standardised over the whole sequence
      for (float v : q.frames) sum += v, sq += static_cast<double>(v) * v;
      EXPECT_NEAR(sum / q.frames.size(), 0, 1e-6);
      EXPECT_NEAR(sq / q.frames.size(), 1, 1e-5);
    }
    EXPECT_GE(shown.size(), 19u) << "pictures are drawn, not repeated";
  }
}

TEST(GatedTasks, FashionMnistTasksAreTheGeneratorsAndDeterministicBySeed) {
  SKIP_WITHOUT_FASHION_MNIST();
  auto video = make("transformed_video",
                    {{"source", "fashion_mnist"}, {"transform", "shift"}, {"order", 2}, {"steps", 5}, {"seed_frames", 2}});
  EXPECT_EQ(video->signature().input_dim, 784) << "28 px by default";
  TransformedImagesSpec spec;
  spec.size = 28;
  spec.transform = ImageTransform::shift;
  spec.order = 2;
  spec.steps = 5;
  spec.pictures = fashion_pictures();
  Rng r1(4), r2(4);
  const Batch b = video->sample(1, r1);
  const TransformedSequence q = transformed_images(spec, r2);
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t i = 0; i < 784; ++i) {
      ASSERT_EQ(b.inputs.dense[t].at(i), q.frames[t * 784 + i]);
      ASSERT_EQ(b.targets.dense[t].at(i), q.frames[(t + 1) * 784 + i]);
    }
  for (const char* name : {"image_pairs", "transformed_video"}) {
    SCOPED_TRACE(name);
    auto task = make(name, {{"source", "fashion_mnist"}});
    Rng a(11), c(11);
    const Batch x = task->sample(3, a), y = task->sample(3, c), z = task->sample(3, a);
    bool differ = false;
    for (int64_t t = 0; t < x.steps(); ++t)
      for (int64_t i = 0; i < x.inputs.dense[t].size(); ++i) {
        ASSERT_EQ(x.inputs.dense[t].at(i), y.inputs.dense[t].at(i));
        differ |= x.inputs.dense[t].at(i) != z.inputs.dense[t].at(i);
      }
    EXPECT_TRUE(differ) << "the next draw is new data";
  }
  // an explicit size is kept: a centred 20 px window
  EXPECT_EQ(make("image_pairs", {{"source", "fashion_mnist"}, {"size", 20}})->signature().input_dim, 400);
}

}  // namespace
}  // namespace tg::tasks
