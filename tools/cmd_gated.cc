// tapegrad gated: what a gated model (fgae, pair_ae, pgp, cpgp: models/gating_pyramid.h) learned, made
// visible. By default its outputs on fresh sequences of its task beside the truth: for image frames a PNG
// grid (per sequence a row of true frames above the row of the model's, grey where the model is given
// the frame; pairs side by side), for one-dimensional frames (sine_walk) the waveforms drawn with gnuplot, the seed shaded;
// with the squared error of what it predicts. --filters: the first layer's factor filters, each U_k
// above its V_k (Memisevic's filter pairs; images only).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/error.h"
#include "models/gating_pyramid_objective.h"
#include "tasks/task.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/image_grid.h"
#include "tools/loaded_run.h"
#include "tools/plot.h"
#include "tools/run_config.h"

namespace tg::cli {

namespace {
// The side of a square frame of `units` pixels, or 0.
int64_t square_side(int64_t units) {
  const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(units))));
  return side * side == units ? side : 0;
}

int write_filters(const LoadedRun& r, const models::GatingPyramid& p, const std::string& path, int64_t count,
                  int64_t columns, int64_t scale) {
  const models::GaeLayer& l = p.layers().front();
  const int64_t side = square_side(l.in);
  if (side == 0)
    throw Error(fmt::format("gated --filters: frames of {} units are not square images (task '{}')", l.in, r.run.cfg.task));
  const ParamSet& ps = p.params();
  const Tensor U = r.theta.part(l.U.index), V = r.theta.part(l.V.index);
  (void)ps;
  const int64_t n = std::min(count, l.factors), cols = std::min(columns, n), rows = (n + cols - 1) / cols;
  std::vector<float> cells(static_cast<size_t>(2 * rows * cols * l.in), std::numeric_limits<float>::quiet_NaN());
  for (int64_t k = 0; k < n; ++k) {
    double peak = 1e-30;  // one scale per pair: their relative contrast stays visible
    for (int64_t i = 0; i < l.in; ++i) peak = std::max({peak, std::abs(U.at(k * l.in + i)), std::abs(V.at(k * l.in + i))});
    float* u = cells.data() + ((2 * (k / cols)) * cols + k % cols) * l.in;
    float* v = cells.data() + ((2 * (k / cols) + 1) * cols + k % cols) * l.in;
    for (int64_t i = 0; i < l.in; ++i) {
      u[i] = static_cast<float>(0.5 + 0.5 * U.at(k * l.in + i) / peak);
      v[i] = static_cast<float>(0.5 + 0.5 * V.at(k * l.in + i) / peak);
    }
  }
  write_png_grid(path, cells, ImageGrid{.height = side, .width = side, .rows = 2 * rows, .cols = cols, .border = 1,
                                        .scale = scale});
  fmt::print("{}: the first {} of {} factor filter pairs of layer 1 (rows of U above rows of V; grey 0, each pair "
             "scaled by its largest weight)\n",
             path, n, l.factors);
  return 0;
}

// Frame t of sequence s: the first input, then the targets.
double frame_value(const tasks::Batch& b, int64_t t, int64_t s, int64_t i, int64_t units) {
  return t == 0 ? b.inputs.dense[0].at(s * b.inputs.dense[0].shape()[1] + i) : b.targets.dense[t - 1].at(s * units + i);
}
bool scored(const tasks::Batch& b, int64_t step, int64_t s) {
  return b.targets.mask.empty() || b.targets.mask[step].at(s) != 0;
}

void write_frames_png(const tasks::Batch& b, const std::vector<Tensor>& out, int64_t units, int64_t side,
                      const std::string& path, int64_t scale) {
  const int64_t n = b.size(), frames = b.steps() + 1;
  // short sequences (pairs) side by side, so that the grid is about as wide as a video's row
  const int64_t per_row = std::max<int64_t>(1, std::min<int64_t>(n, 16 / frames)), rows = (n + per_row - 1) / per_row;
  const int64_t cols = per_row * frames;
  std::vector<float> cells(static_cast<size_t>(2 * rows * cols * units), std::numeric_limits<float>::quiet_NaN());
  // frames are standardised: ±2.5 standard deviations span black to white
  auto grey = [](double x) { return static_cast<float>(std::clamp(0.5 + x / 5.0, 0.0, 1.0)); };
  for (int64_t s = 0; s < n; ++s)
    for (int64_t t = 0; t < frames; ++t) {
      const int64_t row = s / per_row, col = (s % per_row) * frames + t;
      float* truth = cells.data() + ((2 * row) * cols + col) * units;
      float* model = cells.data() + ((2 * row + 1) * cols + col) * units;
      for (int64_t i = 0; i < units; ++i) {
        truth[i] = grey(frame_value(b, t, s, i, units));
        if (t > 0 && scored(b, t - 1, s)) model[i] = grey(out[t - 1].at(s * units + i));
      }
    }
  write_png_grid(path, cells, ImageGrid{.height = side, .width = side, .rows = 2 * rows, .cols = cols, .border = 1,
                                        .scale = scale});
}

void write_waveforms(const tasks::Batch& b, const std::vector<Tensor>& out, int64_t units, const std::string& path,
                     const std::string& title) {
  const int64_t n = b.size(), frames = b.steps() + 1;
  std::string data;
  int64_t seed_end = 0;
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t t = 0; t < frames; ++t)
      for (int64_t i = 0; i < units; ++i) {
        const bool predicted = t > 0 && scored(b, t - 1, s);
        if (s == 0 && !predicted) seed_end = (t + 1) * units;
        data += fmt::format("{} {} {}\n", t * units + i, frame_value(b, t, s, i, units),
                            predicted ? fmt::format("{}", out[t - 1].at(s * units + i)) : std::string("NaN"));
      }
    data += "\n\n";  // one gnuplot data block per sequence
  }
  render_gnuplot_png(path, data, [&](const std::string& dat, const std::string& png) {
    std::string script = gnuplot_terminal(1200, static_cast<int>(std::min<int64_t>(n, 8) * 180 + 60)) +
                         fmt::format("set output {}\nset multiplot layout {},1 title {}\n", gnuplot_quote(png),
                                     std::min<int64_t>(n, 8), gnuplot_quote(title));
    for (int64_t s = 0; s < std::min<int64_t>(n, 8); ++s)
      script += fmt::format(
          "set object 1 rect from 0,graph 0 to {},graph 1 fc rgb '#eeeeee' fs solid noborder behind\n"
          "set key {}\nset yrange [-1.6:1.6]\nplot {} index {} using 1:2 with lines lw 2 lc rgb 'black' title "
          "'truth', '' index {} using 1:3 with lines lw 2 lc rgb '#d62728' title 'model (closed loop)'\n",
          seed_end - 0.5, s == 0 ? "top right horizontal" : "off", gnuplot_quote(dat), s, s);
    return script + "unset multiplot\n";
  });
}
}  // namespace

Run add_gated(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto filters = std::make_shared<bool>(false);
  auto count = std::make_shared<int64_t>(0);
  auto seed = std::make_shared<uint64_t>(1);
  auto columns = std::make_shared<int64_t>(16);
  auto scale = std::make_shared<int64_t>(4);
  auto task_sets = std::make_shared<std::vector<std::string>>();
  app.add_option("--run", *dir, "run directory of a gated model (fgae, pair_ae, pgp, cpgp)")->required()->check(non_empty_path());
  app.add_flag("--filters", *filters, "draw the first layer's factor filter pairs instead of predictions");
  app.add_option("-o,--output", *out, "the PNG (default: DIR/gated_predictions.png or DIR/gated_filters.png)")->check(png_path());
  app.add_option("-n", *count, "sequences to draw (default 6), or filter pairs (default 64)")
      ->check(integer_in(1, 1024));
  app.add_option("--seed", *seed, "seed of the fresh sequences")->check(unsigned_in(0, UINT64_MAX));
  app.add_option("--task-set", *task_sets, "key=value over the run's task options (steps=40, part=gap)");
  app.add_option("--columns", *columns, "filter pairs per row")->check(integer_in(1, 64));
  app.add_option("--scale", *scale, "pixels drawn per image pixel")->check(integer_in(1, 16));
  return [=] {
    LoadedRun r = load_run(*dir, "gated");
    const auto* obj = dynamic_cast<const models::GatedObjective*>(r.run.objective.get());
    if (!obj)
      throw Error(fmt::format("gated: run {} trains model '{}', not a gated model (fgae, pair_ae, pgp, cpgp)", *dir,
                              r.run.cfg.model));
    if (*filters) {
      if (!obj->pyramid()) throw Error(fmt::format("gated --filters: model '{}' has no factor filters", r.run.cfg.model));
      return write_filters(r, *obj->pyramid(), out->empty() ? *dir + "/gated_filters.png" : *out, *count ? *count : 64,
                           *columns, *scale);
    }
    nlohmann::json o = r.run.cfg.task_options;
    for (const std::string& a : *task_sets) apply_set(o, a, "--task-set");
    const std::unique_ptr<tasks::Task> task = tasks::make(r.run.cfg.task, o);
    Rng rng(*seed);
    const tasks::Batch b = task->sample(*count ? *count : 6, rng);
    const std::vector<Tensor> outputs = r.run.objective->evaluate(r.theta, b)->output_values();
    const int64_t units = task->signature().output_dim, side = square_side(units);
    const std::string path = out->empty() ? *dir + "/gated_predictions.png" : *out;
    const std::string title = fmt::format("{} on {} ({} sequences)", r.run.cfg.model, r.run.cfg.task, b.size());
    if (side > 1) write_frames_png(b, outputs, units, side, path, *scale);
    else write_waveforms(b, outputs, units, path, title);
    fmt::print("{}: {} sequences of {} frames ({}); squared error per predicted value {:.6f}\n", path, b.size(),
               b.steps() + 1,
               side > 1 ? "rows of true frames, each above the model's; grey: given to the model"
                        : "truth in black, the model's closed-loop prediction in red; shaded: the seed",
               task->error_rate(b, outputs));
    return 0;
  };
}

}  // namespace tg::cli
