// CURVES: 28×28 images of one smooth curve each, in the manner of Hinton & Salakhutdinov's synthetic
// data set (Science 2006): three random points in the plane, a curve through them, ink in [0, 1].
// Each image is a function of exactly six numbers (the points' coordinates), as in the paper; stroke
// width and ink are fixed. What was taken from the sources and what was chosen: docs/data/curves.md.
#pragma once
#include <cstdint>
#include <vector>

namespace tg::tasks::curves {

inline constexpr int64_t kSide = 28;            // pixels per side
inline constexpr int64_t kTrainImages = 20000;  // the training set's size (H&S 2006; Sutskever's thesis, Table 7.1)
inline constexpr int64_t kTestImages = 10000;   // the test set's size (H&S 2006: "tested on 10,000")

// Images [first, first + count) of the stream made from `seed`: count × kSide × kSide floats,
// row-major, each in [0, 1]. Image i depends only on (seed, i): it has its own RNG, seeded from a mix
// of the two, so any range can be generated alone and two seeds give two unrelated streams (training
// and test sets use different seeds). A negative first or count, or a range past 2^62 images, is a
// tg::Error naming the values.
std::vector<float> generate(uint64_t seed, int64_t first, int64_t count);

// The six numbers behind image i: its three points in the order the curve passes them (the ends are
// the two farthest apart), in pixel units, x to the right, y down, the image covering [0, kSide]² and
// pixel (r, c) centred at (c + 0.5, r + 0.5).
// Exposed so that tests can check the drawing against the curve it was meant to be.
struct ControlPoints {
  double x[3], y[3];
};
ControlPoints control_points(uint64_t seed, int64_t index);

}  // namespace tg::tasks::curves
