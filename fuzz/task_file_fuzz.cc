// libFuzzer harness for the task-file reader (tasks/task_file.h): `tapegrad eval --data FILE` and
// `tapegrad tasks --check FILE` read these. Reads and validates the file, opens it as a task (which
// makes the registered task the header names, with the header's options) and draws batches from it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "core/params.h"
#include "tasks/task_file.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = tg::fuzz::write_scratch({reinterpret_cast<const char*>(data), size}, ".jsonl");
  try {
    (void)tg::tasks::looks_like_task_file(path);
    auto task = tg::tasks::open_task_file(path);
    (void)task->signature();
    tg::Rng rng(1);
    (void)task->sample(3, rng);
    const int64_t n = task->num_sequences();
    if (n > 0) (void)task->sequences(0, n < 4 ? n : 4);
    (void)task->success_criterion();
  } catch (const tg::Error&) {
  }
  return 0;
}
