// tapegrad reconstruct: a trained autoencoder's reconstructions beside the originals, as a PNG grid (a
// row of originals, then the row of their reconstructions, and so on), with the squared error of the
// images shown.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <memory>

#include "core/error.h"
#include "tasks/images.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/image_grid.h"
#include "tools/loaded_run.h"

namespace tg::cli {

Run add_reconstruct(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto part = std::make_shared<std::string>("test");
  auto count = std::make_shared<int64_t>(32);
  auto first = std::make_shared<int64_t>(0);
  auto columns = std::make_shared<int64_t>(8);
  auto scale = std::make_shared<int64_t>(3);
  app.add_option("--run", *dir, "run directory of an autoencoder")->required()->check(non_empty_path());
  app.add_option("-o,--output", *out, "the PNG to write (default: DIR/reconstructions_<part>.png)")->check(png_path());
  app.add_option("--part", *part, "which images: train or test")->check(CLI::IsMember({"train", "test"}));
  app.add_option("-n", *count, "number of images")->check(integer_in(1, 1024));
  app.add_option("--first", *first, "index of the first image in the part")->check(integer_in(0, INT64_MAX));
  app.add_option("--columns", *columns, "images per row")->check(integer_in(1, 64));
  app.add_option("--scale", *scale, "pixels drawn per image pixel")->check(integer_in(1, 16));
  return [=] {
    LoadedRun r = load_run(*dir, "reconstruct");
    if (!r.run.network || r.run.network->network().output_kind() != tasks::OutputKind::logistic)
      throw Error(fmt::format("reconstruct: run {} is not an autoencoder of images (model '{}', task '{}')", *dir,
                              r.run.cfg.model, r.run.cfg.task));
    const tasks::Dataset& data = *part == "train" ? *r.run.train : r.run.test ? *r.run.test : *r.run.train;
    if (*first >= data.num_cases())
      throw Error(fmt::format("reconstruct: --first {} but the {} part has {} images", *first, *part, data.num_cases()));
    const int64_t n = std::min(*count, data.num_cases() - *first);
    const auto batch = data.cases(*first, n);
    const tasks::Images& images = tasks::data_as<tasks::Images>(*batch);
    if (images.height == 0)
      throw Error(fmt::format("reconstruct: the images of task '{}' have no height and width", r.run.cfg.task));
    const Tensor logits = r.run.objective->evaluate(r.theta, images)->output_values().at(0);
    const int64_t d = images.height * images.width, cols = std::min(*columns, n), rows = (n + cols - 1) / cols;
    // grid row 2k: originals k*cols ..; grid row 2k+1: their reconstructions
    // cells without an image stay NaN, which the grid draws grey, apart from any image
    std::vector<float> cells(static_cast<size_t>(2 * rows * cols * d), std::numeric_limits<float>::quiet_NaN());
    double error = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = i / cols, col = i % cols;
      float* original = cells.data() + ((2 * row) * cols + col) * d;
      float* rebuilt = cells.data() + ((2 * row + 1) * cols + col) * d;
      for (int64_t k = 0; k < d; ++k) {
        original[k] = static_cast<float>(images.inputs.at(i * d + k));
        rebuilt[k] = static_cast<float>(1.0 / (1.0 + std::exp(-logits.at(i * d + k))));
        error += std::pow(original[k] - rebuilt[k], 2);
      }
    }
    const std::string path = out->empty() ? fmt::format("{}/reconstructions_{}.png", *dir, *part) : *out;
    write_png_grid(path, cells, ImageGrid{.height = images.height, .width = images.width, .rows = 2 * rows,
                                          .cols = cols, .border = 1, .scale = *scale});
    fmt::print("{}: images {}..{} of the {} part (rows of originals, each above its reconstructions); squared "
               "error per image {:.4f}\n",
               path, *first, *first + n - 1, *part, error / static_cast<double>(n));
    return 0;
  };
}

}  // namespace tg::cli
