#include "tasks/transformed_images.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/error.h"
#include "tasks/random.h"

namespace tg::tasks {
namespace {

// Blobs farther than this many σ from a pixel add less than exp(-32) ≈ 1e-14 to it: not rendered.
constexpr double kReachSigmas = 8;
// The region reaches this many σ past what a frame can show, so that blobs just outside count too.
constexpr double kMarginSigmas = 4;

// The largest displacement (px, per coordinate) a shift sequence of `spec` can reach.
double max_displacement(const TransformedImagesSpec& s) {
  const double T = static_cast<double>(s.steps - 1);
  return max_velocity(s) * T + (s.order >= 2 ? max_acceleration(s) * T * T / 2 : 0) +
         (s.order >= 3 ? max_jerk(s) * T * T * T / 6 : 0);
}

// Radius of the rotations' disc, or half the side of the shifts' square.
double region_radius(const TransformedImagesSpec& s) {
  const double half = static_cast<double>(s.size) / 2, margin = kMarginSigmas * s.blob_sigma;
  if (s.transform == ImageTransform::rotation) return half * std::numbers::sqrt2 + margin;
  return half + max_displacement(s) + margin;
}

double region_area(const TransformedImagesSpec& s) {
  const double r = region_radius(s);
  return s.transform == ImageTransform::rotation ? std::numbers::pi * r * r : 4 * r * r;
}

// U[-m, m]
double symmetric(Rng& rng, double m) { return m * (2 * uniform01(rng) - 1); }

}  // namespace

double max_velocity(const TransformedImagesSpec& s) {
  return s.velocity.value_or(s.transform == ImageTransform::rotation ? 0.3 : 1.0);
}
double max_acceleration(const TransformedImagesSpec& s) { return s.acceleration.value_or(max_velocity(s) / 4); }
double max_jerk(const TransformedImagesSpec& s) { return s.jerk.value_or(max_velocity(s) / 16); }

int64_t blob_count(const TransformedImagesSpec& s) {
  const double frame_area = static_cast<double>(s.size * s.size);
  return std::max<int64_t>(1, std::llround(s.dots * region_area(s) / frame_area));
}

void check_spec(const TransformedImagesSpec& s) {
  auto bad = [](const std::string& what) { throw Error("transformed images: " + what); };
  if (s.size < 2) bad(fmt::format("size must be at least 2 (got {})", s.size));
  if (s.steps < 1) bad(fmt::format("steps must be at least 1 (got {})", s.steps));
  if (s.order < 1 || s.order > 3) bad(fmt::format("order must be 1, 2 or 3 (got {})", s.order));
  for (auto [name, v] : {std::pair{"velocity", max_velocity(s)}, std::pair{"acceleration", max_acceleration(s)},
                         std::pair{"jerk", max_jerk(s)}})
    if (!(v >= 0 && std::isfinite(v))) bad(fmt::format("{} must be >= 0 (got {})", name, v));
  if (s.pictures) {
    const ImageSet::Pixels& p = *s.pictures;
    if (p.count < 1 || p.height < 1 || p.width < 1 ||
        p.values.size() != static_cast<size_t>(p.count * p.height * p.width))
      bad(fmt::format("{} pictures of {}x{} pixels hold {} values", p.count, p.height, p.width, p.values.size()));
    return;  // pictures are not blobs: none of the blob checks apply
  }
  if (s.dots < 1) bad(fmt::format("dots must be at least 1 (got {})", s.dots));
  if (!(s.blob_sigma > 0 && std::isfinite(s.blob_sigma))) bad(fmt::format("blob_sigma must be > 0 (got {})", s.blob_sigma));
  const double n = s.dots * region_area(s) / static_cast<double>(s.size * s.size);
  if (!(n <= static_cast<double>(kMaxBlobs)))
    bad(fmt::format("shifts of up to {:.4g} px over {} frames need {:.3g} blobs (at most {}): lower steps, velocity, "
                    "acceleration, jerk or dots",
                    max_displacement(s), s.steps, n, kMaxBlobs));
}

std::array<double, 2> motion_at(const TransformedSequence& q, double t) {
  std::array<double, 2> m{};
  for (int k = 0; k < 2; ++k)
    m[k] = q.start[k] + q.velocity[k] * t + q.acceleration[k] * t * t / 2 + q.jerk[k] * t * t * t / 6;
  return m;
}

std::vector<double> moved_blobs(const TransformedImagesSpec& s, const std::vector<double>& blobs,
                                const std::array<double, 2>& motion) {
  std::vector<double> out(blobs.size());
  const double c = std::cos(motion[0]), si = std::sin(motion[0]);
  for (size_t b = 0; b + 1 < blobs.size(); b += 2) {
    const double x = blobs[b], y = blobs[b + 1];
    if (s.transform == ImageTransform::rotation) {
      out[b] = c * x - si * y;
      out[b + 1] = si * x + c * y;
    } else {
      out[b] = x + motion[0];
      out[b + 1] = y + motion[1];
    }
  }
  return out;
}

std::vector<double> render_blobs(const TransformedImagesSpec& s, const std::vector<double>& centres) {
  const int64_t n = s.size;
  std::vector<double> f(static_cast<size_t>(n * n), 0.0);
  const double half = static_cast<double>(n) / 2, reach = kReachSigmas * s.blob_sigma;
  const double inv = 1 / (2 * s.blob_sigma * s.blob_sigma);
  // pixel j's centre is at x = j + ½ - n/2: the pixels within `reach` of a blob form a small box
  auto first = [&](double c) { return std::max<int64_t>(0, static_cast<int64_t>(std::ceil(c - reach + half - 0.5))); };
  auto last = [&](double c) { return std::min<int64_t>(n - 1, static_cast<int64_t>(std::floor(c + reach + half - 0.5))); };
  for (size_t b = 0; b + 1 < centres.size(); b += 2) {
    const double cx = centres[b], cy = centres[b + 1];
    if (cx < -half - reach || cx > half + reach || cy < -half - reach || cy > half + reach) continue;
    for (int64_t i = first(cy); i <= last(cy); ++i)
      for (int64_t j = first(cx); j <= last(cx); ++j) {
        const double dx = static_cast<double>(j) + 0.5 - half - cx, dy = static_cast<double>(i) + 0.5 - half - cy;
        f[static_cast<size_t>(i * n + j)] += std::exp(-(dx * dx + dy * dy) * inv);
      }
  }
  return f;
}

std::vector<double> render_picture(std::span<const float> picture, int64_t height, int64_t width, int64_t side,
                                   ImageTransform transform, const std::array<double, 2>& motion) {
  std::vector<double> f(static_cast<size_t>(side * side), 0.0);
  const double half = static_cast<double>(side) / 2;
  const double c = std::cos(motion[0]), si = std::sin(motion[0]);
  // picture pixel (r, k) has its centre at (k + ½ - width/2, r + ½ - height/2) from the frame centre
  const double col0 = static_cast<double>(width) / 2 - 0.5, row0 = static_cast<double>(height) / 2 - 0.5;
  auto at = [&](int64_t r, int64_t k) -> double {
    if (r < 0 || r >= height || k < 0 || k >= width) return 0;
    return picture[static_cast<size_t>(r * width + k)];
  };
  for (int64_t i = 0; i < side; ++i)
    for (int64_t j = 0; j < side; ++j) {
      const double x = static_cast<double>(j) + 0.5 - half, y = static_cast<double>(i) + 0.5 - half;
      // the inverse motion: a rotation by -θ, or the shift back
      const double u = transform == ImageTransform::rotation ? c * x + si * y : x - motion[0];
      const double v = transform == ImageTransform::rotation ? -si * x + c * y : y - motion[1];
      const double col = u + col0, row = v + row0;
      if (!(col > -1 && col < static_cast<double>(width) && row > -1 && row < static_cast<double>(height))) continue;
      const double k0 = std::floor(col), r0 = std::floor(row), wk = col - k0, wr = row - r0;
      const auto k = static_cast<int64_t>(k0), r = static_cast<int64_t>(r0);
      f[static_cast<size_t>(i * side + j)] = (1 - wr) * ((1 - wk) * at(r, k) + wk * at(r, k + 1)) +
                                             wr * ((1 - wk) * at(r + 1, k) + wk * at(r + 1, k + 1));
    }
  return f;
}

TransformedSequence transformed_images(const TransformedImagesSpec& s, Rng& rng) {
  check_spec(s);
  TransformedSequence q;
  q.steps = s.steps, q.size = s.size;
  const bool rotation = s.transform == ImageTransform::rotation;
  const int dims = rotation ? 1 : 2;
  if (rotation) q.start[0] = 2 * std::numbers::pi * uniform01(rng);
  for (int k = 0; k < dims; ++k) q.velocity[k] = symmetric(rng, max_velocity(s));
  if (s.order >= 2)
    for (int k = 0; k < dims; ++k) q.acceleration[k] = symmetric(rng, max_acceleration(s));
  if (s.order >= 3)
    for (int k = 0; k < dims; ++k) q.jerk[k] = symmetric(rng, max_jerk(s));

  if (s.pictures) {
    q.picture = uniform_int(rng, 0, s.pictures->count - 1);
  } else {
    const int64_t n = blob_count(s);
    const double r = region_radius(s);
    q.blobs.resize(static_cast<size_t>(2 * n));
    for (int64_t b = 0; b < n; ++b) {
      if (rotation) {  // uniform over the disc: radius r·sqrt(U), angle 2πU
        const double rho = r * std::sqrt(uniform01(rng)), phi = 2 * std::numbers::pi * uniform01(rng);
        q.blobs[2 * b] = rho * std::cos(phi), q.blobs[2 * b + 1] = rho * std::sin(phi);
      } else {
        q.blobs[2 * b] = symmetric(rng, r), q.blobs[2 * b + 1] = symmetric(rng, r);
      }
    }
  }

  const size_t D = static_cast<size_t>(s.size * s.size);
  std::vector<double> raw;
  raw.reserve(D * static_cast<size_t>(s.steps));
  for (int64_t t = 0; t < s.steps; ++t) {
    const std::array<double, 2> motion = motion_at(q, static_cast<double>(t));
    std::vector<double> f;
    if (s.pictures) {
      const ImageSet::Pixels& p = *s.pictures;
      const size_t area = static_cast<size_t>(p.height * p.width);
      f = render_picture(std::span(p.values).subspan(static_cast<size_t>(q.picture) * area, area), p.height, p.width,
                         s.size, s.transform, motion);
    } else {
      f = render_blobs(s, moved_blobs(s, q.blobs, motion));
    }
    raw.insert(raw.end(), f.begin(), f.end());
  }
  double sum = 0, sq = 0;
  for (double v : raw) sum += v;
  q.mean = sum / static_cast<double>(raw.size());
  for (double v : raw) sq += (v - q.mean) * (v - q.mean);
  const double sd = std::sqrt(sq / static_cast<double>(raw.size()));
  q.scale = sd > 0 ? sd : 1;  // a blank sequence (no blob or picture in view, a black picture) stays all zeros
  q.frames.resize(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) q.frames[i] = static_cast<float>((raw[i] - q.mean) / q.scale);
  return q;
}

}  // namespace tg::tasks
