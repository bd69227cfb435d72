// Task files: sequences with their inputs, targets and masks as JSON lines (docs/tasks.md, "Task
// files"), written by `tapegrad tasks --dump` so users can inspect the data, and read back, with
// every field validated, so a model can be scored on sequences generated elsewhere.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tasks/example.h"

namespace tg::tasks {

struct TaskFileHeader {
  std::string task;                 // a registered task's name, or any label for data made elsewhere
  nlohmann::json options = nlohmann::json::object();  // the task's resolved options
  std::optional<uint64_t> seed;     // the generator's seed, if generated
  Signature signature;
};

struct TaskFile {
  std::string path;
  TaskFileHeader header;
  std::vector<Example> examples;
};

// Writes `count` sequences of `task`: exactly task.sample(count, Rng(seed)), generated and written in
// chunks. `options` are the task's resolved options, recorded in the header. Atomic: on any error
// the file is left as it was.
void write_task_file(const std::string& path, const Task& task, const nlohmann::json& options, uint64_t seed,
                     int64_t count);
void write_task_file(const std::string& path, const TaskFileHeader& header, const std::vector<Example>& examples);

// Whether a file's first line is a task file's header (its "format" is "tapegrad-task-file"); a cheap
// sniff to tell task files from text files, not a validation.
bool looks_like_task_file(const std::string& path);

// Reads and validates a task file; any problem is one tg::Error "FILE:LINE: what is wrong".
TaskFile read_task_file(const std::string& path);

// The file's sequences as a Task: sample() draws them at random, sequences() in order. If the header
// names a registered task, its error measure and criterion apply (its options are checked and its
// signature must match); otherwise the generic one for the output kind (docs/tasks.md).
std::unique_ptr<Task> open_task_file(const std::string& path);
std::unique_ptr<Task> open_task_file(TaskFile file);  // one already read

}  // namespace tg::tasks
