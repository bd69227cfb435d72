#include "tasks/curves.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "core/error.h"
#include "core/params.h"
#include "tasks/random.h"

namespace tg::tasks::curves {

namespace {

constexpr int64_t kPixels = kSide * kSide;
constexpr int64_t kMaxImages = int64_t{1} << 62;  // image indices stay far from overflow

// The points are drawn in the central 20×20 square, as MNIST's digits sit in a 20×20 box centred in
// 28×28: the stroke and the spline's bulge past the points stay inside the frame.
constexpr double kMargin = 4.0;
// Ink: 1 within kCore of the curve, falling linearly to 0 at kCore + 1 — about the fraction of a
// pixel covered by a stroke 2 * kCore + 1 = 2 pixels wide.
constexpr double kCore = 0.5;
constexpr double kReach = kCore + 1.0;  // no ink beyond this distance
// Straight pieces per spline piece: at most ≈0.3 pixel each, so the polygon is the curve to well
// under a hundredth of a pixel.
constexpr int kStepsPerPiece = 128;

// SplitMix64's finaliser: a bijection of 64-bit words that spreads every input bit over the output.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Image i's own stream: seeds and indices are mixed separately first, so neighbouring seeds or
// neighbouring indices give unrelated engines.
Rng image_rng(uint64_t seed, int64_t index) {
  return Rng(mix64(mix64(seed) ^ mix64(static_cast<uint64_t>(index) + 0x9e3779b97f4a7c15ULL)));
}

double distance2(const ControlPoints& p, int a, int b) {
  const double dx = p.x[a] - p.x[b], dy = p.y[a] - p.y[b];
  return dx * dx + dy * dy;
}

// Three uniform points, put in the order the curve passes them: the two farthest apart are its ends.
// The middle point then faces the longest side of the triangle, so the curve turns there by at most
// 120 degrees: an arc, never a hairpin that runs back over its own stroke.
ControlPoints draw_points(Rng& rng) {
  ControlPoints drawn;
  for (int k = 0; k < 3; ++k) {
    drawn.x[k] = kMargin + (kSide - 2 * kMargin) * uniform01(rng);
    drawn.y[k] = kMargin + (kSide - 2 * kMargin) * uniform01(rng);
  }
  const double d01 = distance2(drawn, 0, 1), d12 = distance2(drawn, 1, 2), d02 = distance2(drawn, 0, 2);
  const int middle = d02 >= d01 && d02 >= d12 ? 1 : d01 >= d12 ? 2 : 0;
  const int order[3][3] = {{1, 0, 2}, {0, 1, 2}, {0, 2, 1}};  // by middle point; the ends keep their draw order
  ControlPoints p;
  for (int k = 0; k < 3; ++k) {
    p.x[k] = drawn.x[order[middle][k]];
    p.y[k] = drawn.y[order[middle][k]];
  }
  return p;
}

struct Point {
  double x, y;
};

// The natural cubic spline through the three points, parameterised by chord length: two cubic pieces,
// C2 at the middle point, straight (zero second derivative) at the ends. With three points the
// tridiagonal system has one unknown, the second derivative m at the middle point.
class Spline {
 public:
  explicit Spline(const ControlPoints& p) : p_(p) {
    for (int k = 0; k < 2; ++k) {
      // Coincident points would divide by zero; a vanishing piece is then drawn as the point it is.
      const double dx = p.x[k + 1] - p.x[k], dy = p.y[k + 1] - p.y[k];
      h_[k] = std::max(std::sqrt(dx * dx + dy * dy), 1e-9);  // sqrt, unlike hypot, is exactly rounded everywhere
    }
    const double scale = 3.0 / (h_[0] + h_[1]);
    mx_ = scale * ((p.x[2] - p.x[1]) / h_[1] - (p.x[1] - p.x[0]) / h_[0]);
    my_ = scale * ((p.y[2] - p.y[1]) / h_[1] - (p.y[1] - p.y[0]) / h_[0]);
  }

  // Piece k (0: first to middle point, 1: middle to last) at u in [0, 1].
  Point at(int k, double u) const {
    // The second derivative is m at the middle point and 0 at the ends, so only the middle term stays.
    const double w = k == 0 ? u * u * u - u : (1 - u) * (1 - u) * (1 - u) - (1 - u);
    const double bend = h_[k] * h_[k] / 6.0 * w;
    return {(1 - u) * p_.x[k] + u * p_.x[k + 1] + bend * mx_, (1 - u) * p_.y[k] + u * p_.y[k + 1] + bend * my_};
  }

 private:
  ControlPoints p_;
  double h_[2];
  double mx_, my_;
};

// Lowers dist2 (squared distance of each pixel centre to the curve so far) for the pixels near a→b.
void add_segment(Point a, Point b, double* dist2) {
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double len2 = dx * dx + dy * dy;
  // Pixel c's centre is c + 0.5: the columns and rows whose centres lie within kReach of the segment's box.
  const auto first = [](double lo) { return std::max<int64_t>(0, static_cast<int64_t>(std::ceil(lo - kReach - 0.5))); };
  const auto last = [](double hi) { return std::min<int64_t>(kSide - 1, static_cast<int64_t>(std::floor(hi + kReach - 0.5))); };
  const int64_t c0 = first(std::min(a.x, b.x)), c1 = last(std::max(a.x, b.x));
  const int64_t r0 = first(std::min(a.y, b.y)), r1 = last(std::max(a.y, b.y));
  for (int64_t r = r0; r <= r1; ++r) {
    const double py = static_cast<double>(r) + 0.5;
    for (int64_t c = c0; c <= c1; ++c) {
      const double px = static_cast<double>(c) + 0.5;
      double t = len2 > 0 ? ((px - a.x) * dx + (py - a.y) * dy) / len2 : 0.0;
      t = std::clamp(t, 0.0, 1.0);
      const double ex = a.x + t * dx - px, ey = a.y + t * dy - py;
      double& d = dist2[r * kSide + c];
      d = std::min(d, ex * ex + ey * ey);
    }
  }
}

void draw(const ControlPoints& points, float* image) {
  double dist2[kPixels];
  std::fill(dist2, dist2 + kPixels, kReach * kReach);
  const Spline spline(points);
  for (int k = 0; k < 2; ++k) {
    Point a = spline.at(k, 0.0);
    for (int s = 1; s <= kStepsPerPiece; ++s) {
      const Point b = spline.at(k, static_cast<double>(s) / kStepsPerPiece);
      add_segment(a, b, dist2);
      a = b;
    }
  }
  for (int64_t i = 0; i < kPixels; ++i) {
    image[i] = static_cast<float>(std::clamp(kReach - std::sqrt(dist2[i]), 0.0, 1.0));
  }
}

void check_range(int64_t first, int64_t count) {
  if (first < 0 || count < 0 || first > kMaxImages || count > kMaxImages - first) {
    throw Error(fmt::format("curves: first={}, count={} is not a range of images: both must be >= 0 and first + count <= 2^62",
                            first, count));
  }
  if (static_cast<uint64_t>(count) > std::numeric_limits<size_t>::max() / sizeof(float) / kPixels) {
    throw Error(fmt::format("curves: count={} images of {} pixels do not fit in memory", count, kPixels));
  }
}

}  // namespace

ControlPoints control_points(uint64_t seed, int64_t index) {
  if (index < 0 || index >= kMaxImages) throw Error(fmt::format("curves: image index={} is not in 0 .. 2^62 - 1", index));
  Rng rng = image_rng(seed, index);
  return draw_points(rng);
}

std::vector<float> generate(uint64_t seed, int64_t first, int64_t count) {
  check_range(first, count);
  std::vector<float> images(static_cast<size_t>(count * kPixels));
  for (int64_t i = 0; i < count; ++i) draw(control_points(seed, first + i), images.data() + i * kPixels);
  return images;
}

}  // namespace tg::tasks::curves
