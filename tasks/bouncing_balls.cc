#include "tasks/bouncing_balls.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "tasks/random.h"

namespace tg::tasks {

void check_spec(const BouncingBallsSpec& s) {
  auto bad = [](const std::string& what) { throw Error("bouncing balls: " + what); };
  if (s.size < 1) bad("size must be at least 1");
  if (s.steps < 1) bad("steps must be at least 1");
  if (s.balls < 1) bad("balls must be at least 1");
  if (s.substeps < 1) bad("substeps must be at least 1");
  if (!(s.radius > 0) || !(s.box > 0) || !(s.speed >= 0)) bad("box, radius and speed must be positive");
  // the start positions are drawn in [2, box) per coordinate (the authors' 2 + 8·U): room for the balls
  if (!(2 + s.radius < s.box) || s.balls * (2 * s.radius) * (2 * s.radius) > 0.5 * (s.box - 2) * (s.box - 2))
    bad("the balls do not fit in the box");
}

std::vector<float> render_balls(const BouncingBallsSpec& s, const double* centres) {
  std::vector<float> f(static_cast<size_t>(s.size * s.size));
  const double r2 = s.radius * s.radius;
  for (int64_t i = 0; i < s.size; ++i)
    for (int64_t j = 0; j < s.size; ++j) {
      const double x = (j + 0.5) / s.size * s.box, y = (i + 0.5) / s.size * s.box;
      double a = 0;
      for (int b = 0; b < s.balls; ++b) {
        const double dx = x - centres[2 * b], dy = y - centres[2 * b + 1];
        const double q = (dx * dx + dy * dy) / r2;
        a += std::exp(-(q * q) * (q * q));
      }
      f[i * s.size + j] = static_cast<float>(std::min(a, 1.0));
    }
  return f;
}

BallSequence bouncing_balls(const BouncingBallsSpec& s, Rng& rng) {
  check_spec(s);
  const int n = s.balls;
  const double r = s.radius, L = s.box;
  std::vector<double> v(2 * n), x(2 * n);
  double norm = 0;
  for (double& c : v) c = standard_normal(rng), norm += c * c;
  norm = std::sqrt(norm);
  for (double& c : v) c = norm > 0 ? c / norm * s.speed : 0;
  for (bool good = false; !good;) {
    good = true;
    const double span = L - 2;  // the authors' 2 + 8 U with box 10
    for (double& c : x) c = 2 + uniform01(rng) * span;
    for (int i = 0; i < n; ++i)
      for (int z = 0; z < 2; ++z)
        if (x[2 * i + z] - r < 0 || x[2 * i + z] + r > L) good = false;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j)
        if (std::hypot(x[2 * i] - x[2 * j], x[2 * i + 1] - x[2 * j + 1]) < 2 * r) good = false;
  }
  BallSequence seq;
  seq.steps = s.steps, seq.balls = n, seq.size = s.size;
  seq.frames.reserve(static_cast<size_t>(s.steps * s.size * s.size));
  const double eps = 1.0 / s.substeps;
  for (int64_t t = 0; t < s.steps; ++t) {
    seq.position.insert(seq.position.end(), x.begin(), x.end());
    seq.velocity.insert(seq.velocity.end(), v.begin(), v.end());
    const std::vector<float> f = render_balls(s, x.data());
    seq.frames.insert(seq.frames.end(), f.begin(), f.end());
    int hits = 0;
    for (int mu = 0; mu < s.substeps; ++mu) {
      for (int k = 0; k < 2 * n; ++k) x[k] += eps * v[k];
      for (int i = 0; i < n; ++i)
        for (int z = 0; z < 2; ++z) {
          if (x[2 * i + z] - r < 0) v[2 * i + z] = std::abs(v[2 * i + z]);
          if (x[2 * i + z] + r > L) v[2 * i + z] = -std::abs(v[2 * i + z]);
        }
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) {
          double wx = x[2 * i] - x[2 * j], wy = x[2 * i + 1] - x[2 * j + 1];
          const double d = std::hypot(wx, wy);
          if (d < 2 * r && d > 0) {
            wx /= d, wy /= d;
            const double vi = wx * v[2 * i] + wy * v[2 * i + 1], vj = wx * v[2 * j] + wy * v[2 * j + 1];
            // equal masses: the normal components are exchanged
            v[2 * i] += wx * (vj - vi), v[2 * i + 1] += wy * (vj - vi);
            v[2 * j] += wx * (vi - vj), v[2 * j + 1] += wy * (vi - vj);
            ++hits;
          }
        }
    }
    seq.collisions.push_back(hits);
  }
  return seq;
}

Tensor bouncing_balls_batch(const BouncingBallsSpec& s, int64_t B, Rng& rng) {
  const int64_t D = s.size * s.size;
  Tensor out = Tensor::empty({s.steps, B, D}, DType::f32);
  float* o = out.data<float>();
  for (int64_t b = 0; b < B; ++b) {
    const BallSequence q = bouncing_balls(s, rng);
    for (int64_t t = 0; t < s.steps; ++t)
      for (int64_t k = 0; k < D; ++k) o[(t * B + b) * D + k] = q.frames[t * D + k];
  }
  return out;
}

std::vector<float> add_blinking_noise(const BouncingBallsSpec& s, const std::vector<float>& frames,
                                      const BlinkingNoise& noise, Rng& rng) {
  const int64_t D = s.size * s.size;
  if (noise.spots < 0 || !(noise.radius > 0) || !(noise.switch_prob >= 0 && noise.switch_prob <= 1))
    throw Error("blinking noise: spots >= 0, radius > 0 and switch_prob in [0, 1]");
  if (D == 0 || frames.size() % static_cast<size_t>(D) != 0)
    throw Error("blinking noise: the frames are not a whole number of " + std::to_string(s.size) + "x" +
                std::to_string(s.size) + " frames");
  BouncingBallsSpec spot = s;
  spot.balls = 1;
  spot.radius = noise.radius;
  std::vector<std::vector<float>> images;
  std::vector<bool> shown;
  for (int k = 0; k < noise.spots; ++k) {
    const double at[2] = {uniform01(rng) * s.box, uniform01(rng) * s.box};
    images.push_back(render_balls(spot, at));
    shown.push_back(uniform01(rng) < 0.5);
  }
  std::vector<float> out = frames;
  for (size_t f = 0; f * D < out.size(); ++f)
    for (int k = 0; k < noise.spots; ++k) {
      if (f > 0 && uniform01(rng) < noise.switch_prob) shown[k] = !shown[k];
      if (!shown[k]) continue;
      for (int64_t i = 0; i < D; ++i) out[f * D + i] = std::min(1.0f, out[f * D + i] + images[k][i]);
    }
  return out;
}

}  // namespace tg::tasks
