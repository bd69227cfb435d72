// Training-time noise as regularisers: dropout on the non-recurrent connections (the recurrent
// layer's inputs and the output layer's input, as Zaremba et al. 2014 and Pham et al. 2014; never the
// recurrent path) and additive Gaussian weight noise (Graves 2011). A draw happens once per training
// batch and is attached to it (models::Sequence::input_keep / readout_keep, tasks::Batch::weight_noise),
// so every slice of the batch (HF's gradient chunks, its curvature batch, its line search) sees the
// same sample, and evaluation batches, which have none, are noise-free.
#pragma once
#include <cstdint>

#include "core/params.h"
#include "models/model.h"
#include "tasks/task.h"

namespace tg::models {

struct NoiseOptions {
  double input_dropout = 0;   // p: each input unit is dropped with probability p, kept ones scaled 1/(1-p)
  double output_dropout = 0;  // p on each unit of what the output layer reads
  double weight_noise = 0;    // σ of N(0, σ²) added to every parameter
  bool any() const { return input_dropout > 0 || output_dropout > 0 || weight_noise > 0; }
};

// Throws tg::Error naming the bad value (p must be in [0, 1), σ >= 0).
void check_noise(const NoiseOptions& o);

// Draws the masks and the weight noise for b from rng, in a fixed order (inputs, readout, weights),
// drawing nothing for what is off, so runs without noise consume no random numbers.
void draw_noise(tasks::Batch& b, const NoiseOptions& o, const Model& m, Rng& rng);

}  // namespace tg::models
