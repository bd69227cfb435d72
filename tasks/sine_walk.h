// A sine wave whose frequency follows a random walk, cut into frames (Krueger's CPGP proof of concept,
// thesis §6.2: "a sine wave whose frequency changes according to a random walk", a soft one-hot code of
// the frequency as input, frames of 10 samples as outputs). The thesis gives no frequency range, walk
// step or code; ours:
//   - frame t has angular frequency ω_t (rad/sample); ω_0 ~ U over the sequence's band and
//     ω_{t+1} = ω_t + walk·N(0, 1), reflected at the band's ends (the walk never leaves its band);
//   - bands: "train" is [omega_lo, gap_lo] ∪ [gap_hi, omega_hi] (one side drawn with probability
//     proportional to its width, then the walk stays on it), "gap" the held-out [gap_lo, gap_hi],
//     "all" [omega_lo, omega_hi];
//   - sample n = t·frame + k is sin φ_n with φ_0 ~ U[0, 2π) and φ_{n+1} = φ_n + ω_t (the frequency
//     of the frame sample n is in);
//   - the code of ω: K Gaussian bumps exp(-(ω - c_k)² / (2w²)), centres c_k evenly spaced over
//     [omega_lo, omega_hi] (both ends included), w the spacing, normalised to sum 1.
// Every draw goes through tasks/random.h, so a seed gives the same sequences with any standard library.
#pragma once
#include <cstdint>
#include <vector>

#include "core/params.h"

namespace tg::tasks {

enum class FrequencyBand { train, gap, all };

struct SineWalkSpec {
  int64_t frame = 10;  // samples per frame
  int64_t steps = 20;  // frames per sequence
  int64_t codes = 16;  // K, bumps of the frequency code; 0: no code (the inputs are the frames alone)
  double omega_lo = 0.1, omega_hi = 0.5;  // rad/sample
  double gap_lo = 0.25, gap_hi = 0.30;    // the band held out of "train"
  double walk = 0.01;                     // std of ω's step per frame
  FrequencyBand band = FrequencyBand::train;
};

struct SineWalkSequence {
  int64_t steps = 0, frame = 0;
  double band_lo = 0, band_hi = 0;  // the band the walk stays in
  double phase = 0;                 // φ_0
  std::vector<double> omega;        // [steps]: ω_t
  std::vector<float> samples;       // [steps, frame]: sin φ_n
};

// Throws tg::Error unless 0 < omega_lo < gap_lo < gap_hi < omega_hi <= π, sizes >= 1 (codes 0 or >= 2), walk >= 0.
void check_spec(const SineWalkSpec& spec);
// One sequence, drawn from rng.
SineWalkSequence sine_walk(const SineWalkSpec& spec, Rng& rng);
// The soft one-hot code of ω: spec.codes values summing to 1 (none when codes is 0).
std::vector<double> frequency_code(const SineWalkSpec& spec, double omega);

}  // namespace tg::tasks
