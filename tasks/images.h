// Non-sequence data: N cases of fixed-size dense vectors (images, flattened row-major) and their
// targets, and the data sets that hold them (CURVES, Fashion-MNIST, any IDX file). Feedforward
// networks (models/network.h) read Images; no sequence type is involved.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "tasks/dataset.h"

namespace tg::tasks {

struct Images : Data {
  Tensor inputs;       // [N, D]
  Tensor targets;      // [N, out]: dense targets (an autoencoder's: its inputs, the same buffer); or empty
  ops::Index labels;   // N class ids in [0, out) (a classifier's targets), or null
  // Training-time dropout factors (0 or 1/(1-p)) drawn by the objective and sliced with the batch: one
  // [N, width] tensor per layer input of the network (models/network.h), an empty tensor where a layer
  // has none. Empty: no dropout (evaluation).
  std::vector<Tensor> keep;
  int64_t height = 0, width = 0;  // of one image (for pictures); 0 when the vectors are not images

  int64_t size() const override { return inputs.shape().rank() ? inputs.shape()[0] : 0; }
  std::unique_ptr<Data> slice(int64_t first, int64_t count) const override;
  std::unique_ptr<Data> clone() const override { return std::make_unique<Images>(*this); }
  bool same_as(const Data& other) const override;
  std::string describe() const override;
};

// What an image set trains a network to produce.
enum class ImageTarget {
  image,  // the image itself (an autoencoder): logistic outputs, scored by squared error per image
  label,  // the class label: softmax outputs, scored by the fraction misclassified
};

// A fixed set of images in memory (values in [0, 1]), with class labels where the data has them.
// draw() picks cases uniformly at random with replacement (a stream that resumes exactly from the
// RNG state alone, unlike epochs of a shuffled order); cases() hands them out in order.
class ImageSet : public Dataset {
 public:
  struct Pixels {
    std::vector<float> values;   // N × height × width, row-major
    std::vector<int32_t> labels;  // N class ids, or empty
    int64_t count = 0, height = 0, width = 0;
    int64_t classes = 0;  // 1 + the largest label (0 without labels)
  };
  // `source` names the data in messages ("CURVES training images", a file name). `classes`: the number
  // of classes the outputs cover when the other parts of the data have more than these pixels' labels.
  ImageSet(std::string name, std::shared_ptr<const Pixels> pixels, ImageTarget target, std::string source,
           int64_t classes = 0);

  const std::string& name() const override { return name_; }
  Signature signature() const override;
  std::unique_ptr<Data> draw(int64_t count, Rng& rng) const override;
  int64_t num_cases() const override { return pixels_->count; }
  std::unique_ptr<Data> cases(int64_t first, int64_t count) const override;
  // target image: Σ_pixels (x - x̂)² per image, averaged (x̂ = σ(output): the outputs are logits);
  // target label: the fraction of images whose largest output is not their label.
  double score(const Data& d, const std::vector<Tensor>& outputs) const override;
  std::string success_criterion() const override;
  double success_threshold() const override;
  double chance_level() const override;
  std::string case_noun() const override { return "images"; }
  ImageTarget target() const { return target_; }
  const Pixels& pixels() const { return *pixels_; }

 private:
  Images gather(const std::vector<int64_t>& rows) const;
  std::string name_;
  std::shared_ptr<const Pixels> pixels_;
  ImageTarget target_;
  std::string source_;
  int64_t classes_;
};

// An IDX image file (and optionally its labels file) as Pixels: unsigned-byte images are scaled by
// 1/255, others must already lie in [0, 1]; labels must match the image count. Errors name the file.
ImageSet::Pixels read_idx_images(const std::string& images_path, const std::string& labels_path = "");

// Where Debian's dataset-fashion-mnist puts the files (scripts/setup.sh installs it).
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Fashion-MNIST's training (60,000) or test (10,000) images in `dir`, with their labels if asked: one copy
// however many tasks read them. A file missing from kFashionMnistDir is an error of task `task` that says
// how to install it.
std::shared_ptr<const ImageSet::Pixels> fashion_mnist_pixels(const std::string& task, const std::string& dir,
                                                             bool train, bool labels);

}  // namespace tg::tasks
