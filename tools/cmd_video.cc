// tapegrad video: a video model's view of fresh sequences as one PNG grid, three rows per sequence:
//   the true frames;
//   the model's next-frame predictions under them (frame t+1 predicted from frames 1..t; the first cell
//   grey: nothing predicts it);
//   for the temporal RBMs, the model's own continuation: the first --prefix true frames, then frames it
//   samples (models/temporal_rbm.h, generate), each shown as its pixels' probabilities.
// Prints the squared error per pixel of the shown predictions and of the continuation.
// --denoise (temporal RBMs): instead, rows of true frames, the frames with the blinking noise of the
// thesis's Fig. 3.2 (tasks/bouncing_balls.h), and the model's online denoising of them (filtering on the
// noisy frames, each frame reconstructed from its filtering estimate); prints both rows' squared error
// per pixel against the true frames.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <memory>

#include "core/error.h"
#include "models/temporal_rbm_objective.h"
#include "tasks/bouncing_balls.h"
#include "tasks/task.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/image_grid.h"
#include "tools/loaded_run.h"

namespace tg::cli {

namespace {
int write_denoising(const LoadedRun& r, const models::TemporalRbmObjective& rbm, const tasks::Batch& b, int64_t side,
                    int64_t shown_max, int64_t scale, const std::string& out, const std::string& dir, Rng& rng) {
  const int64_t D = side * side, N = b.size();
  const std::vector<Tensor> truth = models::batch_frames(b, D, DType::f64);
  const int64_t T = static_cast<int64_t>(truth.size()), shown = std::min(T, shown_max);
  tasks::BouncingBallsSpec spec;
  spec.size = side;
  // per sequence, its frames as one [T, D] buffer with the noise added
  std::vector<std::vector<float>> noisy(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    std::vector<float> clean(static_cast<size_t>(T * D));
    for (int64_t t = 0; t < T; ++t)
      for (int64_t k = 0; k < D; ++k) clean[t * D + k] = static_cast<float>(truth[t].at(n * D + k));
    noisy[n] = tasks::add_blinking_noise(spec, clean, tasks::BlinkingNoise{}, rng);
  }
  Graph g;
  g.bind(rbm.params(), r.theta);
  std::vector<Var> inputs;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> rows(static_cast<size_t>(N * D));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < D; ++k) rows[n * D + k] = noisy[n][t * D + k];
    inputs.push_back(g.input(Tensor::from({N, D}, rows, rbm.params().dtype())));
  }
  const std::vector<Var> cleaned = rbm.model().denoise(g, inputs);
  std::vector<float> cells(static_cast<size_t>(N * 3 * shown * D));
  double noisy_err = 0, cleaned_err = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t t = 0; t < shown; ++t)
      for (int64_t k = 0; k < D; ++k) {
        const double q = truth[t].at(n * D + k), x = noisy[n][t * D + k], y = cleaned[t].value().at(n * D + k);
        cells[((n * 3 + 0) * shown + t) * D + k] = static_cast<float>(q);
        cells[((n * 3 + 1) * shown + t) * D + k] = static_cast<float>(x);
        cells[((n * 3 + 2) * shown + t) * D + k] = static_cast<float>(y);
        noisy_err += (x - q) * (x - q);
        cleaned_err += (y - q) * (y - q);
      }
  const std::string path = out.empty() ? dir + "/denoising.png" : out;
  write_png_grid(path, cells, ImageGrid{.height = side, .width = side, .rows = N * 3, .cols = shown, .border = 1,
                                        .scale = scale});
  const double cells_n = static_cast<double>(N * shown * D);
  fmt::print("{}: {} sequences of {} frames (rows: true frames, with blinking noise, denoised)\n", path, N, shown);
  fmt::print("squared error per pixel against the true frames: noisy {:.5f}, denoised {:.5f}\n", noisy_err / cells_n,
             cleaned_err / cells_n);
  return 0;
}
}  // namespace

Run add_video(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto count = std::make_shared<int64_t>(2);
  auto prefix = std::make_shared<int64_t>(10);
  auto frames = std::make_shared<int64_t>(20);
  auto seed = std::make_shared<uint64_t>(1);
  auto gibbs = std::make_shared<int>(0);
  auto scale = std::make_shared<int64_t>(2);
  auto denoise = std::make_shared<bool>(false);
  app.add_option("--run", *dir, "run directory of a model trained on a video task (bouncing_balls ...)")->required()->check(non_empty_path());
  app.add_option("-o,--output", *out, "the PNG to write (default: DIR/video.png)")->check(png_path());
  app.add_option("-n", *count, "sequences shown")->check(integer_in(1, 16));
  app.add_option("--prefix", *prefix, "true frames a temporal RBM sees before it continues alone")
      ->check(integer_in(1, 10000));
  app.add_option("--frames", *frames, "frames it then generates (with --denoise: frames shown)")->check(integer_in(1, 10000));
  app.add_option("--seed", *seed, "seed of the sequences and of the sampling")->check(unsigned_in(0, UINT64_MAX));
  app.add_option("--gibbs", *gibbs, "Gibbs steps per generated frame (default: the model's predict_gibbs)")
      ->check(integer_in(1, 10000));
  app.add_option("--scale", *scale, "pixels drawn per frame pixel")->check(integer_in(1, 16));
  app.add_flag("--denoise", *denoise, "a temporal RBM's online denoising of frames with blinking noise (Fig. 3.2)");
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
    const auto* rbm = dynamic_cast<const models::TemporalRbmObjective*>(r.run.objective.get());
    if (*denoise) {
      if (!rbm)
        throw Error(fmt::format("video --denoise: run {} is a '{}', not a temporal RBM (rtrbm, trbm)", *dir,
                                r.run.cfg.model));
      return write_denoising(r, *rbm, b, side, *frames, *scale, *out, *dir, rng);
    }
    if (*prefix >= T)
      throw Error(fmt::format("video: --prefix {} leaves nothing to show of the task's {} frames", *prefix, T));
    const std::vector<Tensor> predicted = r.run.objective->evaluate(r.theta, b)->output_values();
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
