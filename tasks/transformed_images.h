// Image sequences under a transformation with n-th order dynamics, for the gated autoencoder and the
// predictive gating pyramid (Krueger's thesis Ch. 6; Michalski, Memisevic & Konda 2014): a random image
// (of Gaussian blobs, or one of a set of pictures such as Fashion-MNIST's), rotated about the frame centre
// or shifted, with an angle (or shift) that is a polynomial of degree `order` in time (constant velocity,
// acceleration or jerk).
//
//   - Blobs: the image is Σ_blobs exp(-|p - c|² / (2σ²)); pixel (i, j) samples it at its centre relative
//     to the frame centre, p = (j + ½ - size/2, i + ½ - size/2).
//   - Blob centres are uniform over a region that every frame sees only the inside of: for rotations the
//     disc through the frame's corners, for shifts the frame grown on each side by the largest
//     displacement the spec allows over the sequence; both widened by 4σ, so blobs just outside count
//     too. `dots` is the expected number of centres per frame area (size²), so frames are equally dense
//     whatever the region: the region holds round(dots · area / size²) blobs.
//   - Pictures: one picture per sequence, drawn uniformly from the set. The frame is centred on it at
//     1 px per pixel (a smaller frame shows a centred window, a larger one a black border): pixel (i, j)
//     samples the picture bilinearly at the inverse-moved position of its centre, 0 outside the picture.
//   - Frame t shows the image moved: rotated by θ_t about the frame centre, or shifted by s_t (blobs are
//     rendered analytically, no interpolation). θ_t = θ0 + v t + a t²/2 + j t³/6 with θ0 ~ U[0, 2π),
//     v ~ U[-velocity, velocity], a ~ U[-acceleration, acceleration] if order >= 2 (else 0) and
//     j ~ U[-jerk, jerk] if order 3 (else 0). Shifts: the same per coordinate, with s0 = 0.
//   - Each sequence is standardised as a whole: minus the mean of all its pixels (all frames), divided
//     by their standard deviation, so the transformation between frames is kept exactly. A sequence
//     whose pixels are all equal (no blob or picture in view) has standard deviation 0: it is left at 0.
// Every draw goes through tasks/random.h, so a seed gives the same sequences with any standard library.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/params.h"
#include "tasks/images.h"

namespace tg::tasks {

enum class ImageTransform { rotation, shift };

struct TransformedImagesSpec {
  int64_t size = 13;  // frame side in pixels
  ImageTransform transform = ImageTransform::rotation;
  int order = 1;          // 1: constant velocity, 2: constant acceleration, 3: constant jerk
  int dots = 25;          // blobs: expected centres per frame area
  double blob_sigma = 1;  // blobs: px
  // Largest |velocity| (rad/frame for rotations, px/frame per coordinate for shifts); unset: 0.3 rad or
  // 1 px. Unset acceleration and jerk are velocity/4 and velocity/16 (per frame², per frame³).
  std::optional<double> velocity, acceleration, jerk;
  int64_t steps = 10;  // frames per sequence
  // The pictures to move (values in [0, 1]), loaded once by the task; null: blobs.
  std::shared_ptr<const ImageSet::Pixels> pictures;
};

double max_velocity(const TransformedImagesSpec& spec);
double max_acceleration(const TransformedImagesSpec& spec);
double max_jerk(const TransformedImagesSpec& spec);

// The most blobs a sequence may need (shifts over long sequences would need millions).
inline constexpr int64_t kMaxBlobs = 200'000;

struct TransformedSequence {
  int64_t steps = 0, size = 0;
  // The motion's polynomial coefficients: for rotations only [0] (radians), for shifts (x, y) in px.
  std::array<double, 2> start{}, velocity{}, acceleration{}, jerk{};
  std::vector<double> blobs;  // [n, 2]: the centres (x, y) at θ = 0 (s = 0), relative to the frame centre
  int64_t picture = -1;       // with pictures: the index of the one shown (and no blobs)
  double mean = 0, scale = 1;  // frames = (rendered - mean) / scale
  std::vector<float> frames;   // [steps, size * size], row-major, standardised
};

// Throws tg::Error for a spec that cannot be drawn (sizes, ranges, too many blobs for the shifts).
void check_spec(const TransformedImagesSpec& spec);
// The number of blobs a sequence of `spec` holds.
int64_t blob_count(const TransformedImagesSpec& spec);
// One sequence, drawn from rng.
TransformedSequence transformed_images(const TransformedImagesSpec& spec, Rng& rng);
// The motion at time t: θ_t in [0] (rotations) or s_t (shifts).
std::array<double, 2> motion_at(const TransformedSequence& seq, double t);
// The blob centres ([n, 2]) moved by a motion, as frame t shows them for motion_at(seq, t).
std::vector<double> moved_blobs(const TransformedImagesSpec& spec, const std::vector<double>& blobs,
                                const std::array<double, 2>& motion);
// The frame (size² values, row-major, not standardised) of blob centres `centres` ([n, 2]).
std::vector<double> render_blobs(const TransformedImagesSpec& spec, const std::vector<double>& centres);
// The frame (side² values, row-major, not standardised) of `picture` (height × width, row-major) moved by
// `motion` (θ in [0] for rotations, s for shifts): centred on the picture at 1 px per pixel, each pixel
// the bilinear interpolation of the picture at the inverse-moved position of its centre, 0 outside it.
std::vector<double> render_picture(std::span<const float> picture, int64_t height, int64_t width, int64_t side,
                                   ImageTransform transform, const std::array<double, 2>& motion);

}  // namespace tg::tasks
