// Character-level text: UTF-8 loading and every bad input, the vocabulary (sorted + unknown) and its
// JSON round trip, splits, non-overlapping sequences, batches, bits per character, the "text" task.
#include <gtest/gtest.h>

#include <cmath>

#include "tasks/text.h"
#include "tests/tasks/util.h"
#include "tests/harness/temp_files.h"

namespace tg::tasks {
namespace {

using testing::expect_error;
using testing::ScratchDir;
using testing::tiny_text_path;

TEST(Text, ReadsTheTinyTextAsCodePoints) {
  const std::u32string text = text::read_utf8_file(tiny_text_path());
  const std::string bytes = testing::read_all(tiny_text_path());
  EXPECT_LT(text.size(), bytes.size()) << "some characters take several bytes";
  EXPECT_NE(text.find(U'é'), std::u32string::npos);
  EXPECT_NE(text.find(U'—'), std::u32string::npos);
  EXPECT_NE(text.find(U'€'), std::u32string::npos);
  EXPECT_EQ(text::encode_utf8(text), bytes) << "decoding then encoding gives the bytes back";
}

TEST(Text, BadFilesGetOneClearError) {
  ScratchDir dir;
  expect_error([&] { text::read_utf8_file(dir.path("missing.txt")); }, {"missing.txt", "no such file"});
  expect_error([&] { text::read_utf8_file(dir.path("")); }, {"directory"});
  expect_error([&] { text::read_utf8_file(dir.write("empty.txt", "")); }, {"empty.txt", "empty"});
  expect_error([&] { text::read_utf8_file(dir.write("bin.dat", std::string("ab\ncd\0ef", 8))); },
               {"bin.dat:2:", "binary", "byte offset 5"});
  expect_error([&] { text::read_utf8_file(dir.write("latin1.txt", "line one\nline two\ncaf\xE9 au lait\n")); },
               {"latin1.txt:3:", "invalid UTF-8", "byte offset 21", "0xE9"});
  expect_error([&] { text::read_utf8_file(dir.write("cut.txt", "abc\xE2\x82")); }, {"cut.txt:1:", "cut off"});
  expect_error([&] { text::read_utf8_file(dir.write("overlong.txt", "a\xC0\xAF")); }, {"overlong.txt:1:", "byte offset 1"});
  expect_error([&] { text::read_utf8_file(dir.write("surrogate.txt", "\xED\xA0\x80")); }, {"surrogate"});
  expect_error([&] { text::read_utf8_file(dir.write("stray.txt", "ok\n\x80")); }, {"stray.txt:2:", "continuation"});
  expect_error([&] { text::read_utf8_file(dir.write("bom.txt", "\xEF\xBB\xBF")); }, {"bom.txt"});
  EXPECT_EQ(text::read_utf8_file(dir.write("bom2.txt", "\xEF\xBB\xBFhi")), U"hi") << "a byte-order mark is dropped";
}

TEST(Text, VocabularyIsSortedPlusUnknown) {
  const text::Vocabulary v = text::Vocabulary::from_text(U"banana band\n");
  EXPECT_EQ(v.chars(), U"\n abdn");
  EXPECT_EQ(v.size(), 7);
  EXPECT_EQ(v.unknown(), 6);
  EXPECT_EQ(v.index(U'a'), 2);
  EXPECT_EQ(v.index(U'z'), v.unknown());
  EXPECT_EQ(v.decode(v.unknown()), "\xEF\xBF\xBD");
  EXPECT_EQ(v.encode(U"bz"), (std::vector<int32_t>{3, 6}));
}

TEST(Text, VocabularyRoundTripAndBadFiles) {
  ScratchDir dir;
  const text::Vocabulary v = text::Vocabulary::from_text(text::read_utf8_file(tiny_text_path()));
  v.save(dir.path("vocab.json"));
  EXPECT_FALSE(check::has_temporary_files(dir.path("vocab.json")));
  const text::Vocabulary back = text::Vocabulary::load(dir.path("vocab.json"));
  EXPECT_TRUE(back == v);
  EXPECT_EQ(back.alphabet(), v.alphabet());
  expect_error([&] { v.save(dir.path("no/such/dir/vocab.json")); }, {"cannot write"});
  expect_error([&] { text::Vocabulary::load(dir.path("nope.json")); }, {"nope.json", "no such file"});
  expect_error([&] { text::Vocabulary::load(dir.write("bad.json", "{not json")); }, {"bad.json", "not valid JSON"});
  expect_error([&] {
    text::Vocabulary::load(dir.write("unsorted.json", R"({"format":"tapegrad-vocab","version":1,"symbols":["b","a"]})"));
  }, {"unsorted.json", "symbol 1", "sorted"});
  expect_error([&] {
    text::Vocabulary::load(dir.write("two.json", R"({"format":"tapegrad-vocab","version":1,"symbols":["ab"]})"));
  }, {"two.json", "exactly one character"});
  expect_error([&] { text::Vocabulary::load(dir.write("fmt.json", R"({"format":"x","version":1,"symbols":["a"]})")); },
               {"fmt.json", "format"});
  expect_error([&] { text::Vocabulary::load(dir.write("fmtnum.json", R"({"format":1,"version":1,"symbols":["a"]})")); },
               {"fmtnum.json", "format"});  // was a JSON type_error without the file's name
}

TEST(Text, SplitsByFractionAndSequencesDoNotOverlap) {
  text::Sources src;
  src.file = tiny_text_path();
  src.split = {0.8, 0.1, 0.1};
  const text::Corpus c = text::Corpus::load(src);
  const std::u32string all = text::read_utf8_file(tiny_text_path());
  const size_t n = all.size(), n_train = static_cast<size_t>(std::floor(n * 0.8));
  EXPECT_EQ(c.ids(text::Part::train).size(), n_train);
  EXPECT_EQ(c.ids(text::Part::train).size() + c.ids(text::Part::valid).size() + c.ids(text::Part::test).size(), n);
  EXPECT_TRUE(c.vocab() == text::Vocabulary::from_text(all.substr(0, n_train))) << "vocabulary from the train part only";

  const int64_t T = 32;
  const std::vector<int32_t>& ids = c.ids(text::Part::train);
  const int64_t count = text::num_sequences(static_cast<int64_t>(ids.size()), T);
  EXPECT_EQ(count, static_cast<int64_t>((ids.size() - 1) / T));
  std::vector<int64_t> which(count);
  for (int64_t k = 0; k < count; ++k) which[k] = k;
  const Batch b = text::make_batch(ids, T, which, 5);
  ASSERT_EQ(b.steps(), T);
  for (int64_t k = 0; k < count; ++k) {
    for (int64_t t = 0; t < T; ++t) {
      EXPECT_EQ((*b.inputs.symbols[t])[k], ids[k * T + t]);
      EXPECT_EQ((*b.targets.symbols[t])[k], ids[k * T + t + 1]);
      EXPECT_EQ(b.targets.mask[t].at(k), t < 5 ? 0 : 1) << "warm-up steps have no loss";
    }
  }
}

TEST(Text, SeparateFilesMapUnseenCharactersToUnknown) {
  ScratchDir dir;
  text::Sources src;
  src.train_file = dir.write("train.txt", "abc abc abc\n");
  src.valid_file = dir.write("valid.txt", "abz\n");
  const text::Corpus c = text::Corpus::load(src);
  EXPECT_EQ(c.vocab().size(), 6);  // "\n", " ", a, b, c + unknown
  EXPECT_EQ(c.ids(text::Part::valid), (std::vector<int32_t>{2, 3, 5, 0}));
  EXPECT_TRUE(c.ids(text::Part::test).empty());
  expect_error([&] { make("text", {{"train_file", src.train_file}, {"T", 4}, {"part", "test"}}); },
               {"part 'test' has no text", "'test_file'"});
  src.file = tiny_text_path();
  expect_error([&] { text::Corpus::load(src); }, {"not both"});
}

TEST(Text, BitsPerCharacter) {
  EXPECT_DOUBLE_EQ(text::bits_per_char(100 * std::log(2.0), 50), 2.0);
  Batch b = text::make_batch({0, 1, 2, 3, 0, 1, 2, 3, 0}, 4, std::vector<int64_t>{0, 1});
  std::vector<Tensor> uniform(4, Tensor::zeros(Shape{2, 8}, DType::f32));
  EXPECT_NEAR(text::bits_per_char(b, uniform), 3.0, 1e-9) << "log2 8";
}

TEST(Text, TaskFromOptions) {
  ScratchDir dir;
  auto task = make("text", {{"file", tiny_text_path()}, {"T", 32}});
  const Signature sig = task->signature();
  EXPECT_TRUE(sig.symbolic_input);
  EXPECT_EQ(sig.input_dim, sig.output_dim);
  EXPECT_EQ(static_cast<int64_t>(sig.alphabet.size()), sig.input_dim);
  EXPECT_EQ(sig.alphabet.back(), "\xEF\xBF\xBD");
  EXPECT_GT(task->num_sequences(), 50);
  Rng a(1), b(1);
  const Batch x = task->sample(6, a), y = task->sample(6, b);
  for (int64_t t = 0; t < 32; ++t) EXPECT_EQ(*x.inputs.symbols[t], *y.inputs.symbols[t]);
  const Batch all = task->sequences(0, task->num_sequences());
  EXPECT_EQ(all.size(), task->num_sequences());
  EXPECT_GT(task->chance_level(), 3.0) << "unigram entropy of English text, bits per character";
  EXPECT_LT(task->chance_level(), std::log2(static_cast<double>(sig.input_dim)));
  EXPECT_TRUE(std::isfinite(task->error_rate(x, std::vector<Tensor>(32, Tensor::zeros(Shape{6, sig.output_dim}, DType::f32)))));

  auto valid = make("text", {{"file", tiny_text_path()}, {"T", 16}, {"part", "valid"}});
  EXPECT_EQ(valid->signature().input_dim, sig.input_dim) << "same vocabulary, from the train part";

  expect_error([&] { make("text", {{"file", tiny_text_path()}, {"T", 100000}}); }, {"'T'", "train part"});
  expect_error([&] { make("text", {{"file", tiny_text_path()}, {"split", {0.5, 0.1}}}); }, {"'split'"});
  expect_error([&] { make("text", {{"file", tiny_text_path()}, {"split", {0.5, 0.1, 0.1}}}); }, {"'split'", "summing to 1"});
  expect_error([&] { make("text", {{"file", tiny_text_path()}, {"part", "dev"}}); }, {"'part'", "train, valid, test"});
  expect_error([&] { make("text", {{"file", tiny_text_path()}, {"warmup", 100}}); }, {"'warmup'"});
  expect_error([&] { make("text", {{"file", dir.path("nothing.txt")}}); }, {"nothing.txt", "no such file"});
  expect_error([&] { task->sequences(0, task->num_sequences() + 1); }, {"outside"});

  // A saved vocabulary replaces the train part's.
  auto* tt = dynamic_cast<text::TextTask*>(task.get());
  ASSERT_NE(tt, nullptr);
  tt->corpus().vocab().save(dir.path("v.json"));
  auto again = make("text", {{"file", tiny_text_path()}, {"T", 32}, {"vocab", dir.path("v.json")}});
  EXPECT_EQ(again->signature().alphabet, sig.alphabet);
}

TEST(Text, PartsOfARunShareOneCorpusUntilTheFileChanges) {
  // make_run builds the train, valid and test tasks from the same options: one read of the text, not
  // three (a 100 MB text took 2.7 GB resident).
  ScratchDir dir;
  const std::string file = dir.write("t.txt", std::string(3000, 'a') + "bc\n");
  auto as_text = [](const std::unique_ptr<Task>& t) { return &dynamic_cast<const text::TextTask&>(*t).corpus(); };
  auto train = make("text", {{"file", file}, {"T", 10}});
  auto valid = make("text", {{"file", file}, {"T", 10}, {"part", "valid"}});
  auto test = make("text", {{"file", dir.path("./t.txt")}, {"T", 20}, {"part", "test"}});  // another spelling, another T
  EXPECT_EQ(as_text(train), as_text(valid));
  EXPECT_EQ(as_text(train), as_text(test));
  auto other_split = make("text", {{"file", file}, {"T", 10}, {"split", {0.8, 0.1, 0.1}}});
  EXPECT_NE(as_text(train), as_text(other_split));
  dir.write("t.txt", std::string(4000, 'z') + "y\n");  // a new size (and time): read again
  auto changed = make("text", {{"file", file}, {"T", 10}});
  EXPECT_NE(as_text(train), as_text(changed));
  EXPECT_EQ(as_text(changed)->vocab().chars(), U"z");  // the train part: the first 90%
}

}  // namespace
}  // namespace tg::tasks
