#include "tasks/sine_walk.h"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <string>

#include "core/error.h"
#include "tasks/random.h"

namespace tg::tasks {
namespace {

// x folded into [lo, hi] by reflection at both ends (any number of times: a step may be wider than the band).
double reflect(double x, double lo, double hi) {
  const double w = hi - lo;
  double y = std::fmod(x - lo, 2 * w);
  if (y < 0) y += 2 * w;
  return lo + (y > w ? 2 * w - y : y);
}

}  // namespace

void check_spec(const SineWalkSpec& s) {
  auto bad = [](const std::string& what) { throw Error("sine walk: " + what); };
  if (s.frame < 1 || s.steps < 1) bad(fmt::format("frame and steps must be at least 1 (got {}, {})", s.frame, s.steps));
  if (s.codes == 1 || s.codes < 0) bad(fmt::format("codes must be 0 (no code) or at least 2 (got {})", s.codes));
  if (!(0 < s.omega_lo && s.omega_lo < s.gap_lo && s.gap_lo < s.gap_hi && s.gap_hi < s.omega_hi &&
        s.omega_hi <= std::numbers::pi))
    bad(fmt::format("need 0 < omega_lo < gap_lo < gap_hi < omega_hi <= pi (got {}, {}, {}, {})", s.omega_lo, s.gap_lo,
                    s.gap_hi, s.omega_hi));
  if (!(s.walk >= 0 && std::isfinite(s.walk))) bad(fmt::format("walk must be >= 0 (got {})", s.walk));
}

std::vector<double> frequency_code(const SineWalkSpec& s, double omega) {
  if (s.codes == 0) return {};
  const double spacing = (s.omega_hi - s.omega_lo) / static_cast<double>(s.codes - 1);
  std::vector<double> code(static_cast<size_t>(s.codes));
  double sum = 0;
  for (int64_t k = 0; k < s.codes; ++k) {
    const double d = (omega - (s.omega_lo + spacing * static_cast<double>(k))) / spacing;
    sum += code[static_cast<size_t>(k)] = std::exp(-d * d / 2);
  }
  for (double& c : code) c /= sum;
  return code;
}

SineWalkSequence sine_walk(const SineWalkSpec& s, Rng& rng) {
  check_spec(s);
  SineWalkSequence q;
  q.steps = s.steps, q.frame = s.frame;
  switch (s.band) {
    case FrequencyBand::train: {
      const double below = s.gap_lo - s.omega_lo, above = s.omega_hi - s.gap_hi;
      if (uniform01(rng) * (below + above) < below) q.band_lo = s.omega_lo, q.band_hi = s.gap_lo;
      else q.band_lo = s.gap_hi, q.band_hi = s.omega_hi;
      break;
    }
    case FrequencyBand::gap: q.band_lo = s.gap_lo, q.band_hi = s.gap_hi; break;
    case FrequencyBand::all: q.band_lo = s.omega_lo, q.band_hi = s.omega_hi; break;
  }
  double omega = q.band_lo + (q.band_hi - q.band_lo) * uniform01(rng);
  q.phase = 2 * std::numbers::pi * uniform01(rng);
  q.omega.reserve(static_cast<size_t>(s.steps));
  for (int64_t t = 0; t < s.steps; ++t) {
    if (t > 0) omega = reflect(omega + s.walk * standard_normal(rng), q.band_lo, q.band_hi);
    q.omega.push_back(omega);
  }
  q.samples.reserve(static_cast<size_t>(s.steps * s.frame));
  double phi = q.phase;
  for (int64_t t = 0; t < s.steps; ++t)
    for (int64_t k = 0; k < s.frame; ++k) {
      q.samples.push_back(static_cast<float>(std::sin(phi)));
      phi += q.omega[static_cast<size_t>(t)];
    }
  return q;
}

}  // namespace tg::tasks
