// Task files (JSONL): round trips for dense, symbolic and Ollivier tasks, atomic writes that never
// leave a partial file, every validation error as "FILE:LINE: what", and a file as a Task.
#include <gtest/gtest.h>

#include "tasks/task_file.h"
#include "tests/tasks/util.h"
#include "tests/harness/temp_files.h"

namespace tg::tasks {
namespace {

using testing::expect_error;
using testing::read_all;
using testing::ScratchDir;

void expect_same(const std::vector<Example>& a, const std::vector<Example>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].length, b[i].length);
    EXPECT_EQ(a[i].input_symbols, b[i].input_symbols);
    ASSERT_EQ(a[i].input_dense.size(), b[i].input_dense.size());
    for (size_t k = 0; k < a[i].input_dense.size(); ++k)  // batches are float32: equal as float32
      EXPECT_EQ(static_cast<float>(a[i].input_dense[k]), static_cast<float>(b[i].input_dense[k]));
    EXPECT_EQ(a[i].input_mask, b[i].input_mask);
    EXPECT_EQ(a[i].loss_mask, b[i].loss_mask);
    // Targets count only where the loss mask is 1 (files hold null elsewhere).
    const int64_t out = a[i].length ? static_cast<int64_t>(a[i].target_dense.size()) / a[i].length : 0;
    for (int64_t t = 0; t < a[i].length; ++t) {
      if (!a[i].loss_mask[t]) continue;
      if (!a[i].target_symbols.empty()) {
        EXPECT_EQ(a[i].target_symbols[t], b[i].target_symbols[t]);
      }
      for (int64_t k = 0; k < out; ++k)
        EXPECT_EQ(static_cast<float>(a[i].target_dense[t * out + k]), static_cast<float>(b[i].target_dense[t * out + k]));
    }
    EXPECT_EQ(a[i].true_bits, b[i].true_bits);
  }
}

TEST(TaskFile, RoundTripsWhatSampleGives) {
  ScratchDir dir;
  for (auto [name, options, n] : {std::tuple<std::string, nlohmann::json, int64_t>{"addition", {{"T", 20}}, 7},
                                  {"temporal_order", {{"T", 30}, {"bits", 3}}, 130},  // > one chunk of 64
                                  {"alphabet", {{"lines", 2}}, 3},
                                  {"distant_xor", {{"T", 10}, {"lines", 2}}, 3},
                                  {"xor", {{"T", 10}}, 4}}) {
    const TaskInfo& info = find(name);
    const nlohmann::json cfg = resolve(info, options);
    auto task = make(name, cfg);
    const std::string path = dir.path(name + ".jsonl");
    write_task_file(path, *task, cfg, 42, n);
    EXPECT_FALSE(check::has_temporary_files(path));
    const TaskFile f = read_task_file(path);
    EXPECT_EQ(f.header.task, name);
    EXPECT_EQ(f.header.options, cfg);
    EXPECT_EQ(f.header.seed, 42u);
    EXPECT_EQ(f.header.signature.input_dim, task->signature().input_dim);
    EXPECT_EQ(f.header.signature.alphabet, task->signature().alphabet);
    Rng rng(42);
    const std::vector<Example> want = split(task->sample(n, rng), task->signature());
    expect_same(f.examples, want);
    // Written again from what was read: the same bytes.
    write_task_file(dir.path("again.jsonl"), f.header, f.examples);
    EXPECT_EQ(read_all(dir.path("again.jsonl")), read_all(path)) << name;
  }
}

TEST(TaskFile, TargetsAreNullWithoutALoss) {
  ScratchDir dir;
  auto task = make("addition", {{"T", 10}});
  write_task_file(dir.path("a.jsonl"), *task, resolve(find("addition"), {{"T", 10}}), 1, 1);
  const std::string text = read_all(dir.path("a.jsonl"));
  const std::string record = text.substr(text.find('\n') + 1);
  const nlohmann::json j = nlohmann::json::parse(record);
  const size_t L = j["inputs"].size();
  for (size_t t = 0; t + 1 < L; ++t) EXPECT_TRUE(j["targets"][t].is_null());
  EXPECT_TRUE(j["targets"][L - 1].is_array());
  EXPECT_EQ(j["loss_mask"][L - 1], 1);
}

// A task that fails after its first batch: the dump must leave nothing behind.
class FailingTask : public Task {
 public:
  explicit FailingTask(std::unique_ptr<Task> inner) : inner_(std::move(inner)) {}
  const std::string& name() const override { return inner_->name(); }
  Signature signature() const override { return inner_->signature(); }
  Batch sample(int64_t batch, Rng& rng) const override {
    if (++calls_ > 1) throw Error("generator broke");
    return inner_->sample(batch, rng);
  }
  double error_rate(const Batch& b, const std::vector<Tensor>& y) const override { return inner_->error_rate(b, y); }
  std::string success_criterion() const override { return ""; }
  double success_threshold() const override { return 0; }
  double chance_level() const override { return 0; }

 private:
  std::unique_ptr<Task> inner_;
  mutable int calls_ = 0;
};

TEST(TaskFile, FailuresLeaveNoPartialOrDamagedFile) {
  ScratchDir dir;
  const std::string path = dir.write("keep.jsonl", "previous contents\n");
  FailingTask failing(make("addition", {{"T", 10}}));
  expect_error([&] { write_task_file(path, failing, nlohmann::json::object(), 1, 200); }, {"generator broke"});
  EXPECT_EQ(read_all(path), "previous contents\n");
  EXPECT_FALSE(check::has_temporary_files(path));
  FailingTask failing2(make("addition", {{"T", 10}}));
  expect_error([&] { write_task_file(dir.path("new.jsonl"), failing2, nlohmann::json::object(), 1, 200); }, {"generator broke"});
  EXPECT_FALSE(std::filesystem::exists(dir.path("new.jsonl")));
  EXPECT_FALSE(check::has_temporary_files(dir.path("new.jsonl")));
  auto task = make("addition", {{"T", 10}});
  expect_error([&] { write_task_file(dir.path("no/dir/x.jsonl"), *task, nlohmann::json::object(), 1, 2); }, {"cannot write"});
  expect_error([&] { write_task_file(dir.path(""), *task, nlohmann::json::object(), 1, 2); }, {"directory"});
  expect_error([&] { write_task_file(dir.path("zero.jsonl"), *task, nlohmann::json::object(), 1, 0); }, {">= 1"});
  EXPECT_FALSE(std::filesystem::exists(dir.path("zero.jsonl")));
}

TEST(TaskFile, ReaderRejectsBadFilesWithFileAndLine) {
  ScratchDir dir;
  const std::string header =
      R"({"format":"tapegrad-task-file","version":1,"task":"custom","input":{"kind":"symbols","size":4},"output":{"kind":"softmax","size":3}})";
  const std::string good = R"({"inputs":[0,1,2],"targets":[null,2,1]})";
  auto bad = [&](const std::string& name, const std::string& contents, std::initializer_list<std::string> fragments) {
    const std::string p = dir.write(name, contents);
    expect_error([&] { read_task_file(p); }, fragments);
  };
  expect_error([&] { read_task_file(dir.path("absent.jsonl")); }, {"absent.jsonl", "no such file"});
  bad("empty.jsonl", "", {"empty.jsonl", "empty"});
  bad("binary.jsonl", std::string("\x7f" "ELF\0\0", 6), {"binary.jsonl:1:", "binary"});
  bad("notjson.jsonl", header + "\n{oops\n", {"notjson.jsonl:2:", "not valid JSON"});
  bad("latin1.jsonl", header + "\n{\"inputs\":[0],\"targets\":[1],\"note\":\"caf\xE9\"}\n", {"latin1.jsonl:2:", "not valid JSON"});
  bad("header.jsonl", "[1,2]\n" + good + "\n", {"header.jsonl:1:", "header"});
  bad("format.jsonl", R"({"format":"npz","version":1})" "\n", {"format.jsonl:1:", "\"format\""});
  bad("version.jsonl", R"({"format":"tapegrad-task-file","version":2})" "\n", {"version.jsonl:1:", "\"version\" must be 1"});
  bad("kind.jsonl",
      R"({"format":"tapegrad-task-file","version":1,"task":"x","input":{"kind":"pixels","size":4},"output":{"kind":"softmax","size":3}})" "\n",
      {"kind.jsonl:1:", "\"symbols\" or \"dense\""});
  // a "kind" that is not a string (found by fuzz/task_file_fuzz: it escaped as a JSON type_error)
  bad("kindnum.jsonl",
      R"({"format":"tapegrad-task-file","version":1,"task":"x","input":{"kind":100,"size":4},"output":{"kind":"softmax","size":3}})" "\n",
      {"kindnum.jsonl:1:", "\"symbols\" or \"dense\""});
  bad("outkindnum.jsonl",
      R"({"format":"tapegrad-task-file","version":1,"task":"x","input":{"kind":"symbols","size":4},"output":{"kind":[1],"size":3}})" "\n",
      {"outkindnum.jsonl:1:", "\"softmax\", \"logistic\" or \"linear\""});
  bad("noseq.jsonl", header + "\n", {"noseq.jsonl", "no sequences"});
  bad("range.jsonl", header + "\n" + good + "\n" + R"({"inputs":[0,7],"targets":[1,1]})" "\n",
      {"range.jsonl:3:", "\"inputs\"[1]", "[0, 4)", "7"});
  bad("length.jsonl", header + "\n" + R"({"inputs":[0,1],"targets":[1]})" "\n", {"length.jsonl:2:", "\"targets\"", "2 entries"});
  bad("class.jsonl", header + "\n" + R"({"inputs":[0,1],"targets":[1,3]})" "\n", {"class.jsonl:2:", "\"targets\"[1]", "[0, 3)"});
  bad("mask.jsonl", header + "\n" + R"({"inputs":[0,1],"targets":[1,2],"input_mask":[1,2]})" "\n",
      {"mask.jsonl:2:", "\"input_mask\"[1]", "0 or 1"});
  bad("lossnull.jsonl", header + "\n" + R"({"inputs":[0,1],"targets":[null,2],"loss_mask":[1,1]})" "\n",
      {"lossnull.jsonl:2:", "\"loss_mask\"[0] is 1 but \"targets\"[0] is null"});
  bad("notarget.jsonl", header + "\n" + R"({"inputs":[0,1],"targets":[null,null]})" "\n", {"notarget.jsonl:2:", "no step has a target"});
  bad("key.jsonl", header + "\n" + R"({"inputs":[0],"targets":[1],"weights":[1]})" "\n", {"key.jsonl:2:", "unknown key \"weights\""});
  bad("blank.jsonl", header + "\n\n" + good + "\n", {"blank.jsonl:2:", "empty line"});
  bad("count.jsonl",
      R"({"format":"tapegrad-task-file","version":1,"task":"custom","count":3,"input":{"kind":"symbols","size":4},"output":{"kind":"softmax","size":3}})"
      "\n" + good + "\n",
      {"count.jsonl:1:", "\"count\": 3", "1 sequences"});
  const std::string dense_header =
      R"({"format":"tapegrad-task-file","version":1,"task":"custom","input":{"kind":"dense","size":2},"output":{"kind":"logistic","size":1}})";
  bad("dense.jsonl", dense_header + "\n" + R"({"inputs":[[0.5,1],[0.5]],"targets":[null,[1]]})" "\n",
      {"dense.jsonl:2:", "\"inputs\"[1]", "2 numbers"});
  bad("logistic.jsonl", dense_header + "\n" + R"({"inputs":[[0.5,1]],"targets":[[1.5]]})" "\n",
      {"logistic.jsonl:2:", "\"targets\"[0][0]", "[0, 1]"});
  bad("bits.jsonl", header + "\n" + R"({"inputs":[0],"targets":[1],"true_bits":-1})" "\n", {"bits.jsonl:2:", "true_bits"});
  // A header naming a registered task must match it.
  dir.write("mismatch.jsonl",
            R"({"format":"tapegrad-task-file","version":1,"task":"addition","options":{"T":10},"input":{"kind":"symbols","size":4},"output":{"kind":"softmax","size":3}})"
            "\n" + good + "\n");
  EXPECT_NO_THROW(read_task_file(dir.path("mismatch.jsonl"))) << "well-formed; the mismatch shows when opened as a task";
  expect_error([&] { open_task_file(dir.path("mismatch.jsonl")); }, {"mismatch.jsonl:1:", "do not match task 'addition'"});
  dir.write("badopt.jsonl",
            R"({"format":"tapegrad-task-file","version":1,"task":"addition","options":{"T":3},"input":{"kind":"dense","size":2},"output":{"kind":"linear","size":1}})"
            "\n" R"({"inputs":[[0.5,1]],"targets":[[0.5]]})" "\n");
  expect_error([&] { open_task_file(dir.path("badopt.jsonl")); }, {"badopt.jsonl:1:", "'T'"});
}

TEST(TaskFile, HandWrittenFileIsATask) {
  ScratchDir dir;
  // Optional masks omitted: every step is real, a target wherever one is given; CRLF line ends are fine.
  const std::string path = dir.write(
      "mine.jsonl",
      R"({"format":"tapegrad-task-file","version":1,"task":"custom","input":{"kind":"symbols","size":4},"output":{"kind":"softmax","size":3}})"
      "\r\n" R"({"inputs":[0,1,2],"targets":[null,2,1]})" "\r\n" R"({"inputs":[3],"targets":[0]})" "\n");
  EXPECT_TRUE(looks_like_task_file(path));
  EXPECT_FALSE(looks_like_task_file(testing::tiny_text_path()));
  EXPECT_FALSE(looks_like_task_file(dir.path("absent")));
  auto task = open_task_file(path);
  EXPECT_EQ(task->name(), "custom");
  EXPECT_EQ(task->num_sequences(), 2);
  const Batch b = task->sequences(0, 2);
  EXPECT_EQ(b.steps(), 3);
  ASSERT_EQ(b.inputs.mask.size(), 3u) << "different lengths: padded with input mask 0";
  EXPECT_EQ(b.inputs.mask[1].at(1), 0);
  EXPECT_EQ(b.targets.mask[0].at(0), 0);
  EXPECT_EQ(b.targets.mask[0].at(1), 1);
  // Generic criterion: a sequence is wrong if any target step's argmax is wrong.
  std::vector<Tensor> y(3, Tensor::zeros(Shape{2, 3}, DType::f32));
  for (Tensor& t : y) t = t.clone();
  y[1].data<float>()[0 * 3 + 2] = 5;  // sequence 0, step 1: class 2, right
  y[2].data<float>()[0 * 3 + 1] = 5;  // sequence 0, step 2: class 1, right
  EXPECT_EQ(task->error_rate(b, y), 0.0) << "sequence 1's target 0 is the argmax of zeros (first index)";
  y[2].data<float>()[0 * 3 + 1] = -5;
  EXPECT_EQ(task->error_rate(b, y), 0.5);
  EXPECT_TRUE(std::isnan(task->chance_level()));
}

TEST(TaskFile, DumpOfARegisteredTaskScoresLikeIt) {
  ScratchDir dir;
  const nlohmann::json cfg = resolve(find("temporal_order"), {{"T", 20}});
  auto task = make("temporal_order", cfg);
  write_task_file(dir.path("to.jsonl"), *task, cfg, 9, 10);
  auto file = open_task_file(dir.path("to.jsonl"));
  EXPECT_EQ(file->success_criterion(), task->success_criterion());
  EXPECT_EQ(file->chance_level(), task->chance_level());
  const Batch b = file->sequences(0, 10);
  std::vector<Tensor> y;
  for (int64_t t = 0; t < b.steps(); ++t) {
    Tensor z = Tensor::zeros(Shape{10, 4}, DType::f32);
    for (int64_t s = 0; s < 10; ++s) z.data<float>()[s * 4 + (*b.targets.symbols[t])[s]] = 1;
    y.push_back(z);
  }
  EXPECT_EQ(file->error_rate(b, y), 0.0);
  Rng rng(3);
  EXPECT_EQ(file->sample(4, rng).size(), 4);
}

}  // namespace
}  // namespace tg::tasks
