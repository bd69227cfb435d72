// Non-sequence data (tasks/images): Images batches slice like sequence batches (an autoencoder's
// targets stay its inputs), image sets draw and hand out their cases, score reconstructions and
// classifications by the numbers worked out here, IDX image files are read with their labels and bad
// ones refused in one line; the registry's image tasks (a user's IDX file, Fashion-MNIST when installed).
#include <gtest/gtest.h>

#include <cmath>

#include "tasks/curves.h"
#include "tasks/images.h"
#include "tasks/task.h"
#include "tests/tasks/util.h"

namespace tg::tasks {
namespace {

using testing::expect_error;
using testing::ScratchDir;

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16 & 255), static_cast<char>(v >> 8 & 255),
          static_cast<char>(v & 255)};
}
// An IDX file of n images of h x w unsigned bytes, image i's pixels all equal to 10 i + pixel index.
std::string idx_images(int n, int h, int w) {
  std::string s = std::string("\0\0\x08\x03", 4) + be32(n) + be32(h) + be32(w);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < h * w; ++k) s.push_back(static_cast<char>(10 * i + k));
  return s;
}
std::string idx_labels(std::initializer_list<int> labels) {
  std::string s = std::string("\0\0\x08\x01", 4) + be32(static_cast<uint32_t>(labels.size()));
  for (int y : labels) s.push_back(static_cast<char>(y));
  return s;
}

std::shared_ptr<const ImageSet::Pixels> pixels(int n, int h, int w, std::vector<int32_t> labels = {}) {
  auto p = std::make_shared<ImageSet::Pixels>();
  p->count = n, p->height = h, p->width = w;
  for (int i = 0; i < n * h * w; ++i) p->values.push_back(static_cast<float>(i % 7) / 6.0f);
  p->labels = std::move(labels);
  for (int32_t y : p->labels) p->classes = std::max<int64_t>(p->classes, y + 1);
  return p;
}

TEST(Images, SliceKeepsRowsLabelsMasksAndTheSharedTarget) {
  ImageSet set("t", pixels(5, 2, 2, {0, 1, 2, 1, 0}), ImageTarget::image, "test images");
  auto all = set.cases(0, 5);
  Images& b = data_as<Images>(*all);
  ASSERT_TRUE(b.targets.shares_buffer(b.inputs));
  b.labels = ops::make_index({0, 1, 2, 1, 0});
  b.keep = {Tensor::full({5, 4}, 2.0, DType::f32), Tensor{}};
  auto part = b.slice(1, 3);
  const Images& s = data_as<Images>(*part);
  EXPECT_EQ(s.size(), 3);
  EXPECT_EQ(s.inputs.shape(), (Shape{3, 4}));
  EXPECT_TRUE(s.targets.shares_buffer(s.inputs)) << "an autoencoder's targets are its inputs in every slice";
  for (int64_t k = 0; k < 12; ++k) EXPECT_EQ(s.inputs.at(k), b.inputs.at(4 + k));
  EXPECT_EQ(*s.labels, (std::vector<int32_t>{1, 2, 1}));
  ASSERT_EQ(s.keep.size(), 2u);
  EXPECT_EQ(s.keep[0].shape(), (Shape{3, 4}));
  EXPECT_EQ(s.keep[1].raw(), nullptr);
  EXPECT_EQ(s.height, 2);
  expect_error([&] { b.slice(3, 3); }, {"[3, 6)", "batch of 5"});
  EXPECT_TRUE(b.same_as(*b.clone()));
  EXPECT_FALSE(b.same_as(*set.cases(0, 5)));
}

TEST(Images, DrawIsDeterministicByRngAndCasesComeInOrder) {
  ImageSet set("t", pixels(50, 2, 3), ImageTarget::image, "test images");
  Rng a(4), b(4), c(5);
  const Images x = data_as<Images>(*set.draw(20, a)), y = data_as<Images>(*set.draw(20, b)),
               z = data_as<Images>(*set.draw(20, c));
  EXPECT_EQ(x.inputs.to_vector(), y.inputs.to_vector());
  EXPECT_NE(x.inputs.to_vector(), z.inputs.to_vector());
  const Images in_order = data_as<Images>(*set.cases(10, 2));
  for (int64_t k = 0; k < 12; ++k) EXPECT_EQ(in_order.inputs.at(k), set.pixels().values[60 + k]);
  expect_error([&] { set.cases(49, 2); }, {"[49, 51)", "[0, 50)", "test images"});
  expect_error([&] { set.draw(0, a); }, {"at least 1 image"});
}

TEST(Images, ScoresReconstructionsAndClassifications) {
  ImageSet ae("t", pixels(2, 1, 3), ImageTarget::image, "test images");
  const auto b = ae.cases(0, 2);
  // logits 0: every reconstruction is 0.5, so the score is the mean over images of Σ (x - 0.5)²
  double want = 0;
  for (int k = 0; k < 6; ++k) want += std::pow(ae.pixels().values[k] - 0.5, 2);
  EXPECT_NEAR(ae.score(*b, {Tensor::zeros({2, 3}, DType::f64)}), want / 2, 1e-12);
  // logits that differ per pixel: image i, pixel k reconstructed as σ(z_ik)
  const std::vector<double> z = {-2, -1, 0, 0.5, 1, 3};
  double by_hand = 0;
  for (int k = 0; k < 6; ++k) by_hand += std::pow(ae.pixels().values[k] - 1 / (1 + std::exp(-z[k])), 2);
  EXPECT_NEAR(ae.score(*b, {Tensor::from({2, 3}, z, DType::f64)}), by_hand / 2, 1e-12);
  EXPECT_EQ(ae.signature().output, OutputKind::logistic);
  EXPECT_EQ(ae.signature().output_dim, 3);
  ImageSet cls("c", pixels(4, 1, 2, {0, 2, 1, 2}), ImageTarget::label, "test images");
  EXPECT_EQ(cls.signature().output, OutputKind::softmax);
  EXPECT_EQ(cls.signature().output_dim, 3);
  const std::vector<double> scores = {5, 0, 0, /**/ 0, 0, 5, /**/ 5, 0, 0, /**/ 0, 5, 0};  // right, right, wrong, wrong
  EXPECT_DOUBLE_EQ(cls.score(*cls.cases(0, 4), {Tensor::from({4, 3}, scores, DType::f64)}), 0.5);
  EXPECT_DOUBLE_EQ(cls.chance_level(), 0.5);  // class 2 is half of them
  expect_error([] { ImageSet("c", pixels(2, 1, 1), ImageTarget::label, "unlabelled images"); },
               {"unlabelled images", "no class labels"});
}

TEST(Images, ReadsIdxImagesWithLabelsAndRefusesBadOnes) {
  ScratchDir dir;
  const ImageSet::Pixels p = read_idx_images(dir.write("i.idx", idx_images(3, 2, 2)), dir.write("l.idx", idx_labels({4, 0, 4})));
  EXPECT_EQ(p.count, 3);
  EXPECT_EQ(p.height, 2);
  EXPECT_FLOAT_EQ(p.values[5], 11.0f / 255.0f);  // image 1, pixel 1
  EXPECT_EQ(p.labels, (std::vector<int32_t>{4, 0, 4}));
  EXPECT_EQ(p.classes, 5);
  expect_error([&] { read_idx_images(dir.write("v.idx", std::string("\0\0\x08\x02", 4) + be32(2) + be32(2) + "abcd")); },
               {"v.idx", "3 dimensions"});
  expect_error([&] { read_idx_images(dir.write("i2.idx", idx_images(3, 2, 2)), dir.write("l2.idx", idx_labels({1, 2}))); },
               {"l2.idx", "2 labels", "3 images"});
  // floats outside [0, 1]
  const std::string f = std::string("\0\0\x0D\x03", 4) + be32(1) + be32(1) + be32(1) + be32(0x3fc00000);  // 1.5f
  expect_error([&] { read_idx_images(dir.write("f.idx", f)); }, {"f.idx", "1.5", "outside [0, 1]"});
}

TEST(Images, ClassifierPartsCoverTheClassesOfBothLabelFiles) {
  ScratchDir dir;
  const std::string train = dir.write("tr.idx", idx_images(3, 2, 2)), train_labels = dir.write("trl.idx", idx_labels({0, 1, 1}));
  const std::string test = dir.write("te.idx", idx_images(2, 2, 2)), test_labels = dir.write("tel.idx", idx_labels({3, 0}));
  const nlohmann::json o = {{"file", train}, {"labels", train_labels}, {"test_file", test}, {"test_labels", test_labels}};
  nlohmann::json t = o;
  t["part"] = "test";
  EXPECT_EQ(make_dataset("image_classes", o)->signature().output_dim, 4);
  EXPECT_EQ(make_dataset("image_classes", t)->signature().output_dim, 4);
}

TEST(Images, UserIdxTaskHoldsOutATenthWithoutATestFile) {
  ScratchDir dir;
  const std::string file = dir.write("twenty.idx", idx_images(20, 2, 2));
  auto train = make_dataset("images", {{"file", file}});
  auto test = make_dataset("images", {{"file", file}, {"part", "test"}});
  EXPECT_EQ(train->num_cases(), 18);
  EXPECT_EQ(test->num_cases(), 2);
  EXPECT_EQ(train->case_noun(), "images");
  EXPECT_EQ(train->signature().input_dim, 4);
  expect_error([&] { make_dataset("images", {}); }, {"file", "required"});
  expect_error([&] { make("images", {{"file", file}}); }, {"needs sequences", "images"});
  expect_error([&] { as_task(*train, "sample"); }, {"sample needs sequences", "'images'"});
  EXPECT_EQ(measure("images").short_name, "sq.err");
}

TEST(Images, CurvesPartsAreDisjointRangesOfOneGeneratorStream) {
  auto train = make_dataset("curves", {});
  auto test = make_dataset("curves", {{"part", "test"}});
  auto valid_train = make_dataset("curves", {{"part", "valid"}, {"validate_on", "train"}});
  EXPECT_EQ(train->num_cases(), 20000);
  EXPECT_EQ(test->num_cases(), 10000);
  EXPECT_EQ(valid_train->num_cases(), 20000);
  EXPECT_EQ(train->signature().input_dim, 784);
  const auto& tr = dynamic_cast<const ImageSet&>(*train).pixels();
  const auto& te = dynamic_cast<const ImageSet&>(*test).pixels();
  const std::vector<float> first_test = curves::generate(1, 20000, 1), first_train = curves::generate(1, 0, 1);
  EXPECT_TRUE(std::equal(first_test.begin(), first_test.end(), te.values.begin()));
  EXPECT_TRUE(std::equal(first_train.begin(), first_train.end(), tr.values.begin()));
  auto other = make_dataset("curves", {{"seed", 2}});
  EXPECT_NE(dynamic_cast<const ImageSet&>(*other).pixels().values, tr.values);
  EXPECT_GT(train->chance_level(), 0);
}

TEST(Images, FashionMnistFromDebian) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  auto train = make_dataset("fashion_mnist", {});
  auto test = make_dataset("fashion_mnist_classes", {{"part", "test"}});
  EXPECT_EQ(train->num_cases(), 60000);
  EXPECT_EQ(test->num_cases(), 10000);
  EXPECT_EQ(train->signature().input_dim, 784);
  EXPECT_EQ(test->signature().output_dim, 10);
  EXPECT_NEAR(test->chance_level(), 0.9, 1e-12);  // 1,000 of each class
  const auto& p = dynamic_cast<const ImageSet&>(*train).pixels();
  EXPECT_EQ(*std::max_element(p.values.begin(), p.values.end()), 1.0f);
  expect_error([] { make_dataset("fashion_mnist", {{"dir", "/nonexistent"}}); }, {"/nonexistent/train-images"});
}

}  // namespace
}  // namespace tg::tasks
