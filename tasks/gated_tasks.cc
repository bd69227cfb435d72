// Next-frame tasks for the gated autoencoder and the (conditional) predictive gating pyramid (Krueger's
// thesis Ch. 6; Michalski, Memisevic & Konda 2014). A sequence of `steps` frames is steps - 1 steps: the
// input at step t holds frame t, the target is frame t + 1 (linear outputs). The first `seed_frames`
// frames are given to the model: steps t < seed_frames - 1 have no loss, so the model is scored only on
// the frames it predicts after the seed.
//   image_pairs        (x, y) pairs of a transformed image, for the factored gated autoencoder
//   transformed_video  images rotated or shifted with constant velocity, acceleration or jerk
//                      (both: images of Gaussian blobs, or with source "fashion_mnist" Fashion-MNIST's)
//   sine_walk          Krueger's CPGP proof of concept: a sine wave whose frequency walks, its frames
//                      predicted from the previous frame and a soft one-hot code of the next frequency
// Measure: the mean squared error per predicted value, over the scored steps.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/options.h"
#include "tasks/families.h"
#include "tasks/generated.h"
#include "tasks/images.h"
#include "tasks/sine_walk.h"
#include "tasks/transformed_images.h"

namespace tg::tasks {
namespace {

Signature next_frame_signature(int64_t input_dim, int64_t output_dim) {
  Signature sig;
  sig.symbolic_input = false;
  sig.input_dim = input_dim;
  sig.output = OutputKind::linear;
  sig.output_dim = output_dim;
  return sig;
}

// The seed frames 0..seed_frames-1 are given: the targets of the steps before the last of them are not scored.
void mask_seed_steps(Example& e, int64_t seed_frames) {
  for (int64_t t = 0; t < e.length; ++t) e.loss_mask[static_cast<size_t>(t)] = t >= seed_frames - 1;
}

// Σ (output - target)² over the scored steps, sequences and units, divided by (scored pairs × units).
double scored_mse(const Batch& b, const std::vector<Tensor>& outputs, int64_t units, const std::string& task) {
  check_outputs(b, outputs, units, task);
  double sum = 0;
  int64_t pairs = 0;
  for (int64_t s = 0; s < b.size(); ++s)
    for (int64_t t : target_steps(b, s)) {
      for (int64_t k = 0; k < units; ++k) {
        const double d = outputs[t].at(s * units + k) - b.targets.dense[t].at(s * units + k);
        sum += d * d;
      }
      ++pairs;
    }
  return pairs ? sum / static_cast<double>(pairs * units) : 0.0;
}

class TransformedImagesTask : public GeneratedTask {
 public:
  TransformedImagesTask(std::string name, TransformedImagesSpec spec, int64_t seed_frames)
      : GeneratedTask(std::move(name), next_frame_signature(spec.size * spec.size, spec.size * spec.size)),
        spec_(spec),
        seed_frames_(seed_frames) {
    check_spec(spec_);
  }

  Example generate(Rng& rng) const override {
    const TransformedSequence q = transformed_images(spec_, rng);
    const int64_t D = spec_.size * spec_.size, T = spec_.steps - 1;
    Example e = blank_example(sig_, T);
    std::copy(q.frames.begin(), q.frames.begin() + T * D, e.input_dense.begin());
    std::copy(q.frames.begin() + D, q.frames.end(), e.target_dense.begin());
    mask_seed_steps(e, seed_frames_);
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    return scored_mse(b, outputs, spec_.size * spec_.size, name_);
  }
  std::string success_criterion() const override {
    return "none: Michalski et al. and Krueger report no threshold; the measure is the squared error per predicted "
           "pixel after the seed frames";
  }
  double success_threshold() const override { return -INFINITY; }
  // Predicting zeros: the standardised frames' mean square, 1 over a whole sequence (about 1 over the scored frames).
  double chance_level() const override { return 1.0; }

 private:
  TransformedImagesSpec spec_;
  int64_t seed_frames_;
};

class SineWalkTask : public GeneratedTask {
 public:
  SineWalkTask(SineWalkSpec spec, int64_t seed_frames)
      : GeneratedTask("sine_walk", next_frame_signature(spec.frame + spec.codes, spec.frame)),
        spec_(spec),
        seed_frames_(seed_frames) {
    check_spec(spec_);
  }

  // Input at step t: frame t, then the code of ω_{t+1} (the frequency of the frame to predict).
  Example generate(Rng& rng) const override {
    const SineWalkSequence q = sine_walk(spec_, rng);
    const int64_t F = spec_.frame, in = sig_.input_dim, T = spec_.steps - 1;
    Example e = blank_example(sig_, T);
    for (int64_t t = 0; t < T; ++t) {
      std::copy(q.samples.begin() + t * F, q.samples.begin() + (t + 1) * F, e.input_dense.begin() + t * in);
      const std::vector<double> code = frequency_code(spec_, q.omega[static_cast<size_t>(t + 1)]);
      std::copy(code.begin(), code.end(), e.input_dense.begin() + t * in + F);
      std::copy(q.samples.begin() + (t + 1) * F, q.samples.begin() + (t + 2) * F, e.target_dense.begin() + t * F);
    }
    mask_seed_steps(e, seed_frames_);
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    return scored_mse(b, outputs, spec_.frame, name_);
  }
  std::string success_criterion() const override {
    return "none: the thesis shows the CPGP's predictions (Fig. 6.1) and reports no number; the measure is the "
           "squared error per predicted sample after the seed frames";
  }
  double success_threshold() const override { return -INFINITY; }
  double chance_level() const override { return 0.5; }  // predicting zeros: E[sin² φ] with φ uniform

 private:
  SineWalkSpec spec_;
  int64_t seed_frames_;
};

// velocity, acceleration, jerk: null means the transform's default (tasks/transformed_images.h).
std::optional<double> optional_rate(const OptionReader& o, const std::string& key, double hi) {
  if (!o.has(key) || o.json().at(key).is_null()) return std::nullopt;
  return o.number(key, 0, hi);
}

bool is_set(const OptionReader& o, const std::string& key) { return o.has(key) && !o.json().at(key).is_null(); }

// The pictures are not read here: make_transformed loads them once the options have all been checked.
TransformedImagesSpec transformed_spec(const OptionReader& o) {
  TransformedImagesSpec s;
  const bool blobs = o.choice("source", {"blobs", "fashion_mnist"}) == "blobs";
  // size, dots, blob_sigma null: the source's defaults (13, 25, 1 for blobs; Fashion-MNIST's 28 px)
  s.size = is_set(o, "size") ? o.integer("size", 2, 128) : blobs ? 13 : 28;
  s.transform = o.choice("transform", {"rotation", "shift"}) == "rotation" ? ImageTransform::rotation : ImageTransform::shift;
  if (blobs) {
    if (is_set(o, "dots")) s.dots = static_cast<int>(o.integer("dots", 1, 10'000));
    if (is_set(o, "blob_sigma")) s.blob_sigma = o.number("blob_sigma", 0.25, static_cast<double>(s.size));
  } else {
    for (const char* key : {"dots", "blob_sigma"})
      if (is_set(o, key)) o.fail(key, "applies to source \"blobs\" only, not \"fashion_mnist\": drop it");
  }
  // a rotation by more than π per frame looks like one the other way; a shift by more than the frame, like none
  const double most = s.transform == ImageTransform::rotation ? std::numbers::pi : static_cast<double>(s.size);
  s.velocity = optional_rate(o, "velocity", most);
  s.acceleration = optional_rate(o, "acceleration", most);
  s.jerk = optional_rate(o, "jerk", most);
  return s;
}

std::unique_ptr<Dataset> make_transformed(const std::string& name, const OptionReader& o, TransformedImagesSpec spec,
                                          int64_t seed_frames) {
  // one copy of the 60,000 training images for the task (and any other part or task reading them)
  if (o.string("source") == "fashion_mnist")
    spec.pictures = fashion_mnist_pixels(name, kFashionMnistDir, /*train=*/true, /*labels=*/false);
  try {
    return std::make_unique<TransformedImagesTask>(name, spec, seed_frames);
  } catch (const Error& e) {
    throw Error(fmt::format("task '{}': {}", name, e.what()));
  }
}

std::unique_ptr<Dataset> make_image_pairs(const nlohmann::json& cfg) {
  const OptionReader o("task 'image_pairs'", cfg);
  TransformedImagesSpec spec = transformed_spec(o);
  spec.order = 1;
  spec.steps = 2;
  return make_transformed("image_pairs", o, spec, 1);
}

std::unique_ptr<Dataset> make_transformed_video(const nlohmann::json& cfg) {
  const OptionReader o("task 'transformed_video'", cfg);
  TransformedImagesSpec spec = transformed_spec(o);
  spec.order = static_cast<int>(o.integer("order", 1, 3));
  spec.steps = o.integer("steps", 2, 100'000);
  const int64_t seed_frames = o.integer("seed_frames", 1, spec.steps - 1);
  return make_transformed("transformed_video", o, spec, seed_frames);
}

std::unique_ptr<Dataset> make_sine_walk(const nlohmann::json& cfg) {
  const OptionReader o("task 'sine_walk'", cfg);
  SineWalkSpec s;
  s.frame = o.integer("frame", 1, 100'000);
  s.steps = o.integer("steps", 2, 1'000'000);
  const int64_t seed_frames = o.integer("seed_frames", 1, s.steps - 1);
  s.codes = o.integer("codes", 0, 10'000);  // 0: frames alone (the pyramid without inputs, a baseline)
  if (s.codes == 1) o.fail("codes", "must be 0 (no code) or at least 2 (got 1)");
  s.omega_lo = o.number("omega_lo", 0, std::numbers::pi, /*lo_open=*/true, /*hi_open=*/true);
  s.omega_hi = o.number("omega_hi", s.omega_lo, std::numbers::pi, /*lo_open=*/true);
  s.gap_lo = o.number("gap_lo", s.omega_lo, s.omega_hi, true, true);
  s.gap_hi = o.number("gap_hi", s.gap_lo, s.omega_hi, true, true);
  s.walk = o.number("walk", 0, std::numbers::pi);
  // "valid" and "test" are what `tapegrad train` sets for a task's held-out parts (tools/run_setup.cc):
  // validation draws fresh sequences from the training bands, the test part from the held-out gap.
  const std::string part = o.choice("part", {"train", "gap", "all", "valid", "test"});
  s.band = part == "gap" || part == "test" ? FrequencyBand::gap
           : part == "all"                 ? FrequencyBand::all
                                           : FrequencyBand::train;
  return std::make_unique<SineWalkTask>(s, seed_frames);
}

}  // namespace

void register_gated(std::vector<TaskInfo>& r) {
  // size, dots, blob_sigma null: the source's defaults (transformed_spec)
  const nlohmann::json images = {{"source", "blobs"}, {"size", nullptr},       {"transform", "rotation"},
                                 {"dots", nullptr},   {"blob_sigma", nullptr}, {"velocity", nullptr}};
  r.push_back({"image_pairs",
               "pairs (x, y) of an image (blobs or Fashion-MNIST) and its rotation or shift, for the gated "
               "autoencoder; MSE",
               "004 §1.7", images, make_image_pairs});
  nlohmann::json video = images;
  video.update({{"order", 1}, {"acceleration", nullptr}, {"jerk", nullptr}, {"steps", 10}, {"seed_frames", 4}});
  r.push_back({"transformed_video",
               "images (blobs or Fashion-MNIST) rotated or shifted with constant velocity, acceleration or jerk, "
               "next frame; MSE",
               "004 §1.8", video, make_transformed_video});
  r.push_back({"sine_walk",
               "a sine wave whose frequency walks, next frame of 10 samples given a code of its frequency; MSE",
               "004 §3.5",
               {{"frame", 10},
                {"steps", 20},
                {"seed_frames", 4},
                {"codes", 16},
                {"omega_lo", 0.1},
                {"omega_hi", 0.5},
                {"gap_lo", 0.25},
                {"gap_hi", 0.30},
                {"walk", 0.01},
                {"part", "train"}},
               make_sine_walk});
}

}  // namespace tg::tasks
