#include "tasks/images.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "tasks/idx.h"
#include "tasks/random.h"

namespace tg::tasks {

namespace {
bool present(const Tensor& t) { return t.raw() != nullptr; }
}  // namespace

std::unique_ptr<Data> Images::slice(int64_t first, int64_t count) const {
  if (first < 0 || count < 0 || first + count > size())
    throw Error(fmt::format("images: cases [{}, {}) outside a batch of {}", first, first + count, size()));
  if (first == 0 && count == size()) return clone();
  auto part = std::make_unique<Images>();
  part->inputs = rows_of(inputs, first, count);
  // an autoencoder's targets are its inputs: keep them one buffer
  part->targets = targets.shares_buffer(inputs) ? part->inputs : present(targets) ? rows_of(targets, first, count) : Tensor{};
  if (labels) part->labels = rows_of(labels, first, count);
  for (const Tensor& k : keep) part->keep.push_back(present(k) ? rows_of(k, first, count) : Tensor{});
  part->height = height;
  part->width = width;
  return part;
}

bool Images::same_as(const Data& other) const {
  const auto* o = dynamic_cast<const Images*>(&other);
  return o && o->inputs.shares_buffer(inputs) && o->inputs.shape() == inputs.shape() && o->labels == labels &&
         o->targets.shares_buffer(targets) && o->targets.shape() == targets.shape();
}

std::string Images::describe() const {
  return height > 0 ? fmt::format("a batch of {} images of {}x{} pixels", size(), height, width)
                    : fmt::format("a batch of {} vectors of {} values", size(), inputs.shape()[1]);
}

ImageSet::ImageSet(std::string name, std::shared_ptr<const Pixels> pixels, ImageTarget target, std::string source,
                   int64_t classes)
    : name_(std::move(name)),
      pixels_(std::move(pixels)),
      target_(target),
      source_(std::move(source)),
      classes_(std::max(classes, pixels_->classes)) {
  if (pixels_->count < 1) throw Error(fmt::format("{}: no images", source_));
  if (target_ == ImageTarget::label && pixels_->labels.empty())
    throw Error(fmt::format("{}: no class labels to train a classifier on", source_));
}

Signature ImageSet::signature() const {
  Signature s;
  s.input_dim = pixels_->height * pixels_->width;
  s.output = target_ == ImageTarget::image ? OutputKind::logistic : OutputKind::softmax;
  s.output_dim = target_ == ImageTarget::image ? s.input_dim : classes_;
  return s;
}

Images ImageSet::gather(const std::vector<int64_t>& rows) const {
  const int64_t n = static_cast<int64_t>(rows.size()), d = pixels_->height * pixels_->width;
  Images b;
  b.inputs = Tensor::empty({n, d}, DType::f32);
  float* x = b.inputs.data<float>();
  std::vector<int32_t> labels;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(x + i * d, pixels_->values.data() + rows[static_cast<size_t>(i)] * d, static_cast<size_t>(d) * sizeof(float));
    if (!pixels_->labels.empty()) labels.push_back(pixels_->labels[static_cast<size_t>(rows[static_cast<size_t>(i)])]);
  }
  if (target_ == ImageTarget::image) b.targets = b.inputs;
  if (!labels.empty()) b.labels = ops::make_index(std::move(labels));
  b.height = pixels_->height;
  b.width = pixels_->width;
  return b;
}

std::unique_ptr<Data> ImageSet::draw(int64_t count, Rng& rng) const {
  if (count < 1) throw Error(fmt::format("data set '{}': a batch needs at least 1 image (got {})", name_, count));
  std::vector<int64_t> rows(static_cast<size_t>(count));
  for (int64_t& r : rows) r = uniform_int(rng, 0, pixels_->count - 1);
  return std::make_unique<Images>(gather(rows));
}

std::unique_ptr<Data> ImageSet::cases(int64_t first, int64_t count) const {
  if (first < 0 || count < 1 || first + count > pixels_->count)
    throw Error(fmt::format("{}: images [{}, {}) are outside [0, {})", source_, first, first + count, pixels_->count));
  std::vector<int64_t> rows(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) rows[static_cast<size_t>(i)] = first + i;
  return std::make_unique<Images>(gather(rows));
}

double ImageSet::score(const Data& d, const std::vector<Tensor>& outputs) const {
  const Images& b = data_as<Images>(d);
  const int64_t n = b.size();
  if (outputs.size() != 1 || outputs[0].shape().rank() != 2 || outputs[0].shape()[0] != n)
    throw Error(fmt::format("data set '{}': expects one output of {} rows", name_, n));
  const Tensor& z = outputs[0];
  const int64_t out = z.shape()[1];
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (target_ == ImageTarget::image) {
      for (int64_t k = 0; k < out; ++k) {
        const double xhat = 1.0 / (1.0 + std::exp(-z.at(i * out + k)));
        const double e = b.targets.at(i * out + k) - xhat;
        total += e * e;
      }
    } else {
      int64_t best = 0;
      for (int64_t k = 1; k < out; ++k)
        if (z.at(i * out + k) > z.at(i * out + best)) best = k;
      total += best != (*b.labels)[static_cast<size_t>(i)];
    }
  }
  return total / static_cast<double>(n);
}

std::string ImageSet::success_criterion() const {
  return "none (the score is reported, not passed: no threshold counts as solved)";
}

double ImageSet::success_threshold() const { return -std::numeric_limits<double>::infinity(); }

double ImageSet::chance_level() const {
  if (target_ == ImageTarget::label) {  // always answering the most frequent class
    std::vector<int64_t> counts(static_cast<size_t>(pixels_->classes));
    for (int32_t y : pixels_->labels) ++counts[static_cast<size_t>(y)];
    int64_t most = 0;
    for (int64_t c : counts) most = std::max(most, c);
    return 1.0 - static_cast<double>(most) / static_cast<double>(pixels_->count);
  }
  // the best constant image, the per-pixel mean: Σ_pixels variance
  const int64_t d = pixels_->height * pixels_->width;
  std::vector<double> sum(static_cast<size_t>(d)), sq(static_cast<size_t>(d));
  for (int64_t i = 0; i < pixels_->count; ++i)
    for (int64_t k = 0; k < d; ++k) {
      const double v = pixels_->values[static_cast<size_t>(i * d + k)];
      sum[static_cast<size_t>(k)] += v;
      sq[static_cast<size_t>(k)] += v * v;
    }
  double var = 0;
  const double n = static_cast<double>(pixels_->count);
  for (int64_t k = 0; k < d; ++k) var += sq[static_cast<size_t>(k)] / n - (sum[static_cast<size_t>(k)] / n) * (sum[static_cast<size_t>(k)] / n);
  return var;
}

ImageSet::Pixels read_idx_images(const std::string& images_path, const std::string& labels_path) {
  IdxArray a = read_idx(images_path);
  if (a.shape.size() != 3)
    throw Error(fmt::format("{}: an IDX image file has 3 dimensions (images, rows, columns), this one {}", images_path,
                            a.shape.size()));
  ImageSet::Pixels p;
  p.count = a.shape[0];
  p.height = a.shape[1];
  p.width = a.shape[2];
  const bool bytes = a.type == "unsigned byte";
  for (size_t i = 0; i < a.values.size(); ++i) {
    float& v = a.values[i];
    if (bytes) v /= 255.0f;
    if (!(v >= 0.0f && v <= 1.0f))
      throw Error(fmt::format("{}: value {} at image {} is outside [0, 1] (images of {}s must be scaled to [0, 1])",
                              images_path, v, static_cast<int64_t>(i) / (p.height * p.width), a.type));
  }
  p.values = std::move(a.values);
  if (labels_path.empty()) return p;
  IdxArray l = read_idx(labels_path);
  if (l.shape.size() != 1 || l.shape[0] != p.count)
    throw Error(fmt::format("{}: {} labels of shape [{}] for the {} images of {}", labels_path, l.values.size(),
                            fmt::join(l.shape, "x"), p.count, images_path));
  for (size_t i = 0; i < l.values.size(); ++i) {
    const float y = l.values[i];
    if (!(y >= 0 && y < 65536 && y == std::floor(y)))
      throw Error(fmt::format("{}: label {} of image {} is not a class number", labels_path, y, i));
    p.labels.push_back(static_cast<int32_t>(y));
    p.classes = std::max<int64_t>(p.classes, static_cast<int64_t>(y) + 1);
  }
  return p;
}

}  // namespace tg::tasks
