// Next-frame prediction on bouncing-balls video (tasks/bouncing_balls.h), fresh sequences every batch:
// the input at step t is frame t, the target frame t + 1, so a sequence of `steps` frames is steps - 1
// steps (logistic outputs: pixel intensities in [0, 1]).
//   bouncing_balls     the thesis's Ch. 3 comparison (§3.11.3): 30×30 frames, 100 per sequence; measure:
//                      squared error of the predicted frame per pixel and per predicted frame
//   bouncing_balls_kl  Table 4.1's row (Ch. 4, §4.5.2): 18×18 frames, 30 per sequence; measure: the
//                      per-pixel KL divergence Σ_i q_i log q_i/p_i + (1-q_i) log (1-q_i)/(1-p_i) summed
//                      over the pixels and steps of a sequence (the "error per sequence" of Table 4.1)
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tasks/bouncing_balls.h"
#include "tasks/families.h"
#include "tasks/generated.h"

namespace tg::tasks {
namespace {

class BouncingBallsTask : public GeneratedTask {
 public:
  BouncingBallsTask(std::string name, BouncingBallsSpec spec, bool kl)
      : GeneratedTask(std::move(name), make_signature(spec)), spec_(spec), kl_(kl) {
    check_spec(spec_);
    if (spec_.steps < 2) throw Error(fmt::format("task '{}': steps must be at least 2 (got {})", name_, spec_.steps));
  }

  Example generate(Rng& rng) const override {
    const BallSequence s = bouncing_balls(spec_, rng);
    const int64_t D = spec_.size * spec_.size, T = spec_.steps - 1;
    Example e = blank_example(sig_, T);
    std::copy(s.frames.begin(), s.frames.begin() + T * D, e.input_dense.begin());
    std::copy(s.frames.begin() + D, s.frames.end(), e.target_dense.begin());
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    const int64_t D = spec_.size * spec_.size;
    check_outputs(b, outputs, D, name_);
    double sum = 0;
    for (int64_t t = 0; t < b.steps(); ++t) {
      const Tensor& z = outputs[t];
      const Tensor& q = b.targets.dense[t];
      for (int64_t i = 0; i < b.size() * D; ++i) {
        const double zi = z.at(i), qi = q.at(i);
        if (kl_) {
          // log p = -softplus(-z), log(1-p) = -softplus(z): stable for saturated logits
          auto softplus = [](double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); };
          auto xlogx = [](double x) { return x > 0 ? x * std::log(x) : 0.0; };
          sum += xlogx(qi) + xlogx(1 - qi) + qi * softplus(-zi) + (1 - qi) * softplus(zi);
        } else {
          const double d = 1 / (1 + std::exp(-zi)) - qi;
          sum += d * d;
        }
      }
    }
    return kl_ ? sum / static_cast<double>(b.size()) : sum / static_cast<double>(b.size() * b.steps() * D);
  }
  std::string success_criterion() const override {
    return kl_ ? "none: the thesis reports the KL per sequence (Table 4.1: RNN+HF 22, LSTM 35)"
               : "none: the thesis reports the squared error per pixel per frame (RTRBM 0.007, TRBM 0.04)";
  }
  double success_threshold() const override { return -INFINITY; }
  double chance_level() const override { return NAN; }

 private:
  static Signature make_signature(const BouncingBallsSpec& s) {
    Signature sig;
    sig.symbolic_input = false;
    sig.input_dim = s.size * s.size;
    sig.output = OutputKind::logistic;
    sig.output_dim = s.size * s.size;
    return sig;
  }
  BouncingBallsSpec spec_;
  bool kl_;
};

TaskInfo video_task(const std::string& name, const std::string& description, const std::string& seed, int64_t size,
                    int64_t steps, bool kl) {
  return {name, description, seed, {{"size", size}, {"steps", steps}, {"balls", 3}},
          [name, kl](const nlohmann::json& cfg) -> std::unique_ptr<Dataset> {
            BouncingBallsSpec spec;
            spec.size = cfg.at("size").get<int64_t>();
            spec.steps = cfg.at("steps").get<int64_t>();
            spec.balls = cfg.at("balls").get<int>();
            try {
              return std::make_unique<BouncingBallsTask>(name, spec, kl);
            } catch (const Error& e) {
              throw Error(fmt::format("task '{}': {}", name, e.what()));
            }
          }};
}

}  // namespace

void register_video(std::vector<TaskInfo>& r) {
  r.push_back(video_task("bouncing_balls",
                         "bouncing-balls video, next-frame prediction (30x30, 100 frames); squared error per pixel",
                         "000 §3.6", 30, 100, false));
  r.push_back(video_task("bouncing_balls_kl",
                         "bouncing-balls video, next-frame prediction (18x18, 30 frames); KL per sequence (Table 4.1)",
                         "000 §3.2", 18, 30, true));
}

}  // namespace tg::tasks
