// The image data sets of the registry: CURVES, Fashion-MNIST from Debian's dataset-fashion-mnist (the stand-in
// for MNIST, which Debian does not package), images in any IDX file, and CURVES (tasks/curves.h).
// Each comes as an autoencoder's data set (the image is the target) and, where it has labels, a
// classifier's (name_classes).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>

#include "core/error.h"
#include "core/options.h"
#include "tasks/curves.h"
#include "tasks/families.h"
#include "tasks/images.h"

namespace tg::tasks {

namespace {
using Pixels = ImageSet::Pixels;

// One copy of a file's images however many parts and runs read it (the validation part is the test part).
// The lock is not held while loading: a loader may itself read the cache (a held-out part of a file).
std::shared_ptr<const Pixels> cached(const std::string& key, const std::function<Pixels()>& load) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const Pixels>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto p = cache[key].lock()) return p;
  }
  auto loaded = std::make_shared<const Pixels>(load());
  std::lock_guard<std::mutex> lock(mu);
  if (auto p = cache[key].lock()) return p;  // another thread loaded it meanwhile
  cache[key] = loaded;
  return loaded;
}

std::shared_ptr<const Pixels> idx_pixels(const std::string& images, const std::string& labels) {
  return cached("idx:" + images + "|" + labels, [&] { return read_idx_images(images, labels); });
}

// Images [first, first + count) of `all`, as their own set.
std::shared_ptr<const Pixels> images_of(const Pixels& all, int64_t first, int64_t count) {
  auto p = std::make_shared<Pixels>();
  const int64_t d = all.height * all.width;
  p->values.assign(all.values.begin() + first * d, all.values.begin() + (first + count) * d);
  if (!all.labels.empty()) p->labels.assign(all.labels.begin() + first, all.labels.begin() + first + count);
  p->count = count;
  p->height = all.height;
  p->width = all.width;
  p->classes = all.classes;
  return p;
}

// Whether a part of a data set without a validation part reads the training images: the training part,
// and the validation part with validate_on "train" (the thesis's Table 7.2 reports training error);
// else the test part.
bool reads_training_images(const OptionReader& o) {
  const std::string part = o.choice("part", {"train", "valid", "test"});
  return part == "train" || (part == "valid" && o.choice("validate_on", {"test", "train"}) == "train");
}

std::string fashion_mnist_stem(const std::string& dir, bool train) { return dir + (train ? "/train" : "/t10k"); }

std::unique_ptr<Dataset> fashion_mnist(const std::string& name, const nlohmann::json& cfg, ImageTarget target) {
  OptionReader o(fmt::format("task '{}'", name), cfg);
  const std::string dir = o.string("dir");
  // Fashion-MNIST has no validation part (nothing is tuned on it here)
  const bool train = reads_training_images(o);
  return std::make_unique<ImageSet>(name, fashion_mnist_pixels(name, dir, train, target == ImageTarget::label), target,
                                    fashion_mnist_stem(dir, train) + "-images-idx3-ubyte.gz");
}

// CURVES (tasks/curves.h): the training part is images [0, 20000) of the generator's stream from
// `seed`, the test part the next 10,000; validation scores the test part, or with validate_on "train"
// the training images.
std::unique_ptr<Dataset> curves_images(const nlohmann::json& cfg) {
  OptionReader o("task 'curves'", cfg);
  const uint64_t seed = static_cast<uint64_t>(o.integer("seed", 0));
  const bool train = reads_training_images(o);
  const int64_t first = train ? 0 : curves::kTrainImages, count = train ? curves::kTrainImages : curves::kTestImages;
  auto pixels = cached(fmt::format("curves:{}:{}", seed, first), [&] {
    Pixels p;
    p.values = curves::generate(seed, first, count);
    p.count = count;
    p.height = p.width = curves::kSide;
    return p;
  });
  return std::make_unique<ImageSet>("curves", pixels, ImageTarget::image,
                                    fmt::format("CURVES {} images (seed {})", train ? "training" : "test", seed));
}

// A user's IDX file: the test part is test_file, or without one the last 10% of the file's images
// (then the first 90% train).
std::unique_ptr<Dataset> idx_images(const std::string& name, const nlohmann::json& cfg, ImageTarget target) {
  OptionReader o(fmt::format("task '{}'", name), cfg);
  const bool classes = target == ImageTarget::label;
  const std::string file = o.string("file"), test_file = o.string("test_file");
  const std::string labels = classes ? o.string("labels") : "", test_labels = classes ? o.string("test_labels") : "";
  if (file.empty()) o.fail("file", "is required: an IDX file of images (train --data FILE.idx)");
  if (classes && labels.empty()) o.fail("labels", "is required: the IDX file of the images' class labels");
  if (classes && test_file.empty() != test_labels.empty())
    o.fail("test_labels", "and test_file go together (give both or neither)");
  const bool train = o.choice("part", {"train", "valid", "test"}) == "train";
  if (!test_file.empty()) {
    // both parts' outputs cover every class either file has, so the parts' signatures agree
    const auto train_pixels = idx_pixels(file, labels), test_pixels = idx_pixels(test_file, test_labels);
    return std::make_unique<ImageSet>(name, train ? train_pixels : test_pixels, target, train ? file : test_file,
                                      std::max(train_pixels->classes, test_pixels->classes));
  }
  const std::string key = fmt::format("idx:{}|{}|{}", file, labels, train ? "head" : "tail");
  const auto part = cached(key, [&] {
    const auto all = idx_pixels(file, labels);
    const int64_t test = all->count / 10, kept = all->count - test;
    if (test < 1)
      throw Error(fmt::format("task '{}': {} holds {} image(s), too few to hold out a test part (give test_file)", name,
                              file, all->count));
    return *(train ? images_of(*all, 0, kept) : images_of(*all, kept, test));
  });
  return std::make_unique<ImageSet>(name, part, target,  // images_of keeps the whole file's class count
                                    fmt::format("{} ({} part)", file, train ? "training" : "held-out"));
}
}  // namespace

std::shared_ptr<const Pixels> fashion_mnist_pixels(const std::string& task, const std::string& dir, bool train,
                                                   bool labels) {
  const std::string stem = fashion_mnist_stem(dir, train);
  const std::string images = stem + "-images-idx3-ubyte.gz";
  try {
    return idx_pixels(images, labels ? stem + "-labels-idx1-ubyte.gz" : "");
  } catch (const Error&) {
    if (dir == kFashionMnistDir && !std::ifstream(images))
      throw Error(fmt::format("task '{}': {} is missing: install Debian's dataset-fashion-mnist (bash scripts/setup.sh)",
                              task, images));
    throw;
  }
}

void register_image_sets(std::vector<TaskInfo>& r) {
  r.push_back({"curves", "CURVES: 28x28 images of random curves (20,000 training, 10,000 test), generated by seed",
               "000 §3.5 (Hinton & Salakhutdinov 2006)", {{"seed", 1}, {"part", "train"}, {"validate_on", "test"}},
               curves_images});
  const nlohmann::json fashion = {{"dir", kFashionMnistDir}, {"part", "train"}, {"validate_on", "test"}};
  r.push_back({"fashion_mnist", "Fashion-MNIST images (28x28, 60,000 + 10,000) reconstructed by an autoencoder",
               "000 §3.5 (stand-in for MNIST)", fashion,
               [](const nlohmann::json& cfg) { return fashion_mnist("fashion_mnist", cfg, ImageTarget::image); }});
  r.push_back({"fashion_mnist_classes", "Fashion-MNIST images classified into their 10 classes", "002 §2.1", fashion,
               [](const nlohmann::json& cfg) { return fashion_mnist("fashion_mnist_classes", cfg, ImageTarget::label); }});
  r.push_back({"images", "images of an IDX file (train --data FILE.idx) reconstructed by an autoencoder", "000 §3.5",
               {{"file", ""}, {"test_file", ""}, {"part", "train"}},
               [](const nlohmann::json& cfg) { return idx_images("images", cfg, ImageTarget::image); }});
  r.push_back({"image_classes", "images of an IDX file classified by the labels of another", "002 §2.1",
               {{"file", ""}, {"labels", ""}, {"test_file", ""}, {"test_labels", ""}, {"part", "train"}},
               [](const nlohmann::json& cfg) { return idx_images("image_classes", cfg, ImageTarget::label); }});
}

}  // namespace tg::tasks
