// tapegrad video: a video model's view of fresh sequences as one PNG grid, three rows per sequence:
//   the true frames;
//   the model's next-frame predictions under them (frame t+1 predicted from frames 1..t; the first cell
//   grey: nothing predicts it);
//   for the temporal RBMs, the model's own continuation: the first --prefix true frames, then frames it
//   samples (models/temporal_rbm.h, generate), each shown as its pixels' probabilities.
// Prints the squared error per pixel of the shown predictions and of the continuation.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <memory>

#include "core/error.h"
#include "models/temporal_rbm_objective.h"
#include "tasks/task.h"
#include "tools/commands.h"
#include "tools/image_grid.h"
#include "tools/loaded_run.h"

namespace tg::cli {

Run add_video(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto count = std::make_shared<int64_t>(2);
  auto prefix = std::make_shared<int64_t>(10);
  auto frames = std::make_shared<int64_t>(20);
  auto seed = std::make_shared<uint64_t>(1);
  auto gibbs = std::make_shared<int>(0);
  auto scale = std::make_shared<int64_t>(2);
  app.add_option("--run", *dir, "run directory of a model trained on a video task (bouncing_balls ...)")->required();
  app.add_option("-o,--output", *out, "the PNG to write (default: DIR/video.png)");
  app.add_option("-n", *count, "sequences shown")->check(CLI::Range(int64_t{1}, int64_t{16}));
  app.add_option("--prefix", *prefix, "true frames a temporal RBM sees before it continues alone")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}));
  app.add_option("--frames", *frames, "frames it then generates")->check(CLI::Range(int64_t{1}, int64_t{10000}));
  app.add_option("--seed", *seed, "seed of the sequences and of the sampling");
  app.add_option("--gibbs", *gibbs, "Gibbs steps per generated frame (default: the model's predict_gibbs)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--scale", *scale, "pixels drawn per frame pixel")->check(CLI::Range(int64_t{1}, int64_t{16}));
  return [=] {
    LoadedRun r = load_run(*dir, "video");
    const tasks::Task* task = dynamic_cast<const tasks::Task*>(r.run.train.get());
    const tasks::Signature sig = r.run.train->signature();
    const int64_t side = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(sig.input_dim))));
    if (!task || sig.symbolic_input || sig.output != tasks::OutputKind::logistic || sig.input_dim != sig.output_dim ||
        side * side != sig.input_dim)
      throw Error(fmt::format("video: run {} was not trained on a video task (task '{}')", *dir, r.run.cfg.task));
    Rng rng(*seed);
    const tasks::Batch b = task->sample(*count, rng);
    const int64_t T = b.steps() + 1, D = sig.input_dim, N = *count;
    const int64_t shown = std::min(T, *prefix + *frames);
    if (*prefix >= T)
      throw Error(fmt::format("video: --prefix {} leaves nothing to show of the task's {} frames", *prefix, T));
    const std::vector<Tensor> predicted = r.run.objective->evaluate(r.theta, b)->output_values();
    const auto* rbm = dynamic_cast<const models::TemporalRbmObjective*>(r.run.objective.get());
    std::vector<Tensor> generated;
    if (rbm) {
      const std::vector<Tensor> truth = models::batch_frames(b, D, DType::f64);
      const std::vector<Tensor> seen(truth.begin(), truth.begin() + *prefix);
      generated = rbm->model().generate(seen, shown - *prefix, N, *gibbs > 0 ? *gibbs : rbm->model().options().predict_gibbs, rng);
    }
    const int64_t per = rbm ? 3 : 2;
    std::vector<float> cells(static_cast<size_t>(N * per * shown * D), std::numeric_limits<float>::quiet_NaN());
    auto cell = [&](int64_t n, int64_t row, int64_t t) { return cells.data() + ((n * per + row) * shown + t) * D; };
    auto truth_at = [&](int64_t t, int64_t n, int64_t k) {
      return t == 0 ? b.inputs.dense[0].at(n * D + k) : b.targets.dense[t - 1].at(n * D + k);
    };
    double pred_err = 0, gen_err = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t t = 0; t < shown; ++t)
        for (int64_t k = 0; k < D; ++k) {
          const double q = truth_at(t, n, k);
          cell(n, 0, t)[k] = static_cast<float>(q);
          if (t > 0) {
            const double p = 1 / (1 + std::exp(-predicted[t - 1].at(n * D + k)));
            cell(n, 1, t)[k] = static_cast<float>(p);
            pred_err += (p - q) * (p - q);
          }
          if (rbm) {
            const double g = t < *prefix ? q : generated[t - *prefix].at(n * D + k);
            cell(n, 2, t)[k] = static_cast<float>(g);
            if (t >= *prefix) gen_err += (g - q) * (g - q);
          }
        }
    const std::string path = out->empty() ? *dir + "/video.png" : *out;
    write_png_grid(path, cells, ImageGrid{.height = side, .width = side, .rows = N * per, .cols = shown, .border = 1,
                                          .scale = *scale});
    fmt::print("{}: {} sequences of {} frames (rows: true frames, next-frame predictions{})\n", path, N, shown,
               rbm ? fmt::format(", {} true frames then the model's own", *prefix) : "");
    fmt::print("next-frame prediction: squared error per pixel {:.5f}\n",
               pred_err / static_cast<double>(N * (shown - 1) * D));
    if (rbm)
      fmt::print("continuation after {} frames: squared error per pixel against the true frames {:.5f}\n", *prefix,
                 gen_err / static_cast<double>(N * (shown - *prefix) * D));
    return 0;
  };
}

}  // namespace tg::cli
