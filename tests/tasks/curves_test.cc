// CURVES (tasks/curves): a seed and an index give the same image every time and in any range; seeds
// give unrelated streams; ink is in [0, 1], present and sparse; each image is one connected stroke
// through its three points, turning by at most 120 degrees; bad ranges are one error naming them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "tasks/curves.h"
#include "tests/tasks/util.h"

namespace tg::tasks::curves {
namespace {

using testing::expect_error;

constexpr int64_t kPixels = kSide * kSide;

const float* image(const std::vector<float>& images, int64_t i) { return images.data() + i * kPixels; }

std::string bytes_of(const std::vector<float>& images, int64_t i) {
  return std::string(reinterpret_cast<const char*>(image(images, i)), kPixels * sizeof(float));
}

// 8-connected components of the pixels with ink >= threshold.
int components(const float* im, float threshold) {
  std::vector<int> label(kPixels, 0);
  int count = 0;
  for (int64_t start = 0; start < kPixels; ++start) {
    if (im[start] < threshold || label[start]) continue;
    label[start] = ++count;
    std::vector<int64_t> stack{start};
    while (!stack.empty()) {
      const int64_t p = stack.back();
      stack.pop_back();
      for (int64_t dr = -1; dr <= 1; ++dr) {
        for (int64_t dc = -1; dc <= 1; ++dc) {
          const int64_t r = p / kSide + dr, c = p % kSide + dc;
          if (r < 0 || r >= kSide || c < 0 || c >= kSide) continue;
          const int64_t q = r * kSide + c;
          if (im[q] >= threshold && !label[q]) {
            label[q] = count;
            stack.push_back(q);
          }
        }
      }
    }
  }
  return count;
}

TEST(Curves, SameSeedGivesTheSameBytesAnotherSeedOthers) {
  const std::vector<float> a = generate(7, 0, 50), b = generate(7, 0, 50), c = generate(8, 0, 50);
  ASSERT_EQ(a.size(), static_cast<size_t>(50 * kPixels));
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  for (int64_t i = 0; i < 50; ++i) EXPECT_NE(bytes_of(a, i), bytes_of(c, i)) << "image " << i;
}

TEST(Curves, AnyRangeIsTheSameImagesAsTheWholeStream) {
  const std::vector<float> whole = generate(11, 0, 10), part = generate(11, 5, 3);
  ASSERT_EQ(part.size(), static_cast<size_t>(3 * kPixels));
  EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 5 * kPixels));
  // Far into the stream, without generating what comes before.
  const std::vector<float> far = generate(11, 3'000'000'000, 2), one = generate(11, 3'000'000'001, 1);
  EXPECT_EQ(bytes_of(far, 1), bytes_of(one, 0));
  EXPECT_TRUE(generate(11, 4, 0).empty());
}

TEST(Curves, TrainingAndTestSeedsShareNoImage) {
  // Seeds 1 and 2, as a training and a test set would use, and neighbouring indices: all different.
  std::set<std::string> seen;
  for (uint64_t seed : {1, 2}) {
    const std::vector<float> images = generate(seed, 0, 1000);
    for (int64_t i = 0; i < 1000; ++i) EXPECT_TRUE(seen.insert(bytes_of(images, i)).second) << "seed " << seed << " image " << i;
  }
}

// Ink lies within 1.5 pixels of the curve. Any point of the curve has the four pixel centres around it
// within sqrt(2) (so ink > 0 on at least 4 pixels) and the pixel containing it within sqrt(0.5) (ink >=
// 1.5 - sqrt(0.5) = 0.79). The curve is at most about 60 pixels long (two sides of a triangle in a
// 20×20 square), so fewer than 200 pixels (25%) can have any ink: at least 70% is exactly background.
TEST(Curves, InkIsInTheUnitIntervalPresentAndSparse) {
  const int64_t n = 2000;
  const std::vector<float> images = generate(3, 0, n);
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float* im = image(images, i);
    int64_t inked = 0;
    float darkest = 0;
    for (int64_t p = 0; p < kPixels; ++p) {
      ASSERT_TRUE(im[p] >= 0.0f && im[p] <= 1.0f) << "image " << i << " pixel " << p << " = " << im[p];
      inked += im[p] > 0;
      darkest = std::max(darkest, im[p]);
      total += im[p];
    }
    EXPECT_GE(inked, 4) << "image " << i;
    EXPECT_GE(darkest, 1.5f - std::sqrt(0.5f)) << "image " << i;
    EXPECT_LE(inked, kPixels * 3 / 10) << "image " << i;
  }
  // Measured 0.050 (MNIST's is 0.13): a stroke 2 pixels wide and 10 to 60 long.
  const double mean = total / static_cast<double>(n * kPixels);
  EXPECT_GT(mean, 0.03);
  EXPECT_LT(mean, 0.08);
}

// A continuous curve inside the frame inks (>= 0.5, within 1 pixel) the pixel containing each of its
// points, and any pixel within 1 of the curve is next to such a pixel: one 8-connected set. A gap in
// the drawing, or a curve that leaves the frame and comes back, splits it. The curve passes through
// its three points, so the pixels containing them are inked; the middle point faces the longest side.
TEST(Curves, EachImageIsOneStrokeThroughItsThreePoints) {
  const uint64_t seed = 5;
  const int64_t n = 2000;
  const std::vector<float> images = generate(seed, 0, n);
  for (int64_t i = 0; i < n; ++i) {
    const float* im = image(images, i);
    EXPECT_EQ(components(im, 0.5f), 1) << "image " << i;
    const ControlPoints p = control_points(seed, i);
    for (int k = 0; k < 3; ++k) {
      ASSERT_TRUE(p.x[k] >= 4 && p.x[k] <= 24 && p.y[k] >= 4 && p.y[k] <= 24) << "image " << i << " point " << k;
      const int64_t r = static_cast<int64_t>(p.y[k]), c = static_cast<int64_t>(p.x[k]);
      EXPECT_GE(im[r * kSide + c], 1.5f - std::sqrt(0.5f)) << "image " << i << " point " << k;
    }
    const auto d2 = [&](int a, int b) { return std::pow(p.x[a] - p.x[b], 2) + std::pow(p.y[a] - p.y[b], 2); };
    EXPECT_GE(d2(0, 2), std::max(d2(0, 1), d2(1, 2))) << "image " << i << ": the ends are not the farthest apart";
  }
}

TEST(Curves, BadRangesAreErrorsNamingThem) {
  expect_error([] { generate(1, -1, 3); }, {"first=-1", "count=3"});
  expect_error([] { generate(1, 0, -2); }, {"first=0", "count=-2"});
  const int64_t top = int64_t{1} << 62;
  expect_error([&] { generate(1, top - 1, 2); }, {"first=4611686018427387903", "count=2", "2^62"});
  expect_error([] { generate(1, INT64_MAX, INT64_MAX); }, {"first=9223372036854775807"});
  expect_error([] { generate(1, 0, int64_t{1} << 60); }, {"count=1152921504606846976", "memory"});
  expect_error([] { control_points(1, -5); }, {"index=-5"});
}

}  // namespace
}  // namespace tg::tasks::curves
