// Bouncing balls (Sutskever, Hinton & Taylor 2008; Sutskever's thesis sec 3.11): balls moving in a
// square box with elastic collisions between balls and with the walls, rendered as frames of pixel
// intensities in [0, 1].
//
// The details follow the authors' public generator (bouncing_balls.py, as we recall it):
//   - box of side 10 (world units), ball radius 1.2, equal masses, 3 balls;
//   - start positions uniform in [2, 10)² per coordinate (the authors' 2 + 8·U[0,1)), redrawn until
//     every ball lies inside the box and no two balls overlap;
//   - start velocities: one N(0,1) draw per coordinate, the whole [n,2] matrix scaled to Frobenius
//     norm 0.5 (so the total kinetic energy ½ Σ|v|² = 0.125 is the same in every sequence);
//   - each frame is 2 Euler substeps of size 0.5 (position += 0.5 v); after each substep a ball whose
//     disc crosses a wall gets that velocity component pointed back inside, and two overlapping balls
//     exchange the components of their velocities along the line between their centres (an elastic
//     collision of equal masses);
//   - pixel (I, J) of an s×s frame samples the box at ((J + ½)/s·10, (I + ½)/s·10) (row I is the
//     second coordinate) and its intensity is Σ_balls exp(-(d²/r²)⁴), d the distance to the ball's
//     centre, clipped to 1: a soft-edged disc of radius about r.
// Every draw goes through tasks/random.h, so a seed gives the same sequences with any standard library.
#pragma once
#include <cstdint>
#include <vector>

#include "core/params.h"
#include "core/tensor.h"

namespace tg::tasks {

struct BouncingBallsSpec {
  int64_t size = 30;     // frame side in pixels (30, 18 and 15 in the papers)
  int64_t steps = 100;   // frames per sequence
  int balls = 3;
  double box = 10;       // side of the box, world units
  double radius = 1.2;   // of every ball
  double speed = 0.5;    // Frobenius norm of the [balls, 2] initial velocity matrix
  int substeps = 2;      // Euler substeps per frame, each of length 1 / substeps
};

struct BallSequence {
  int64_t steps = 0, balls = 0, size = 0;
  std::vector<double> position;  // [steps, balls, 2], the centres shown in each frame
  std::vector<double> velocity;  // [steps, balls, 2], the velocity when the frame was shown
  std::vector<int> collisions;   // [steps]: ball–ball collisions during the substeps after the frame
  std::vector<float> frames;     // [steps, size * size], row-major frames in [0, 1]
};

// Throws tg::Error for a spec that cannot be simulated (sizes < 1, balls that do not fit).
void check_spec(const BouncingBallsSpec& spec);
// One sequence, drawn from rng.
BallSequence bouncing_balls(const BouncingBallsSpec& spec, Rng& rng);
// A frame of the given ball centres ([balls, 2]).
std::vector<float> render_balls(const BouncingBallsSpec& spec, const double* centres);
// B fresh sequences as a float32 tensor [steps, B, size * size] (time-major, as the zoo's batches).
Tensor bouncing_balls_batch(const BouncingBallsSpec& spec, int64_t B, Rng& rng);

// The noise of the thesis's denoising figure (Fig. 3.2: "images of balls of a smaller radius whose
// position is fixed that appear and disappear at random times", correlated in space and time): `spots`
// balls of `radius` at positions drawn uniformly in the box, each switching between shown and hidden with
// probability `switch_prob` per frame (starting shown with probability 1/2), added to the frames and
// clipped to 1. The counts and sizes are ours; the thesis gives none.
struct BlinkingNoise {
  int spots = 4;
  double radius = 0.7;
  double switch_prob = 0.15;
};
// frames: `steps` frames of spec.size² pixels, row-major.
std::vector<float> add_blinking_noise(const BouncingBallsSpec& spec, const std::vector<float>& frames,
                                      const BlinkingNoise& noise, Rng& rng);

}  // namespace tg::tasks
