// Sizes that cannot work on this machine, refused before a run starts (before its directory exists):
// a tape larger than the available memory, more BLAS threads than cores, more fresh validation
// sequences than could be scored in any reasonable time. Each refusal is one line with the estimate
// and the bound.
#pragma once
#include <cstdint>

#include "tools/run_setup.h"

namespace tg::cli {

struct MachineLimits {
  int64_t cores = 1;            // CPUs this process may run on (sched_getaffinity)
  int64_t available_bytes = 0;  // MemAvailable of /proc/meminfo (free pages when it is missing)
};
MachineLimits machine_limits();
// The threads a run takes by default: the cores this process may use; when it may use every core, divided
// among the MPI ranks that share this machine (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS); at least 1.
int default_threads(const MachineLimits& m = machine_limits());

// At most this many fresh validation sequences per evaluation (eval_batch of a generated task).
constexpr int64_t kMaxFreshEvalSequences = 10'000'000;

// The tape's bytes per sequence and step of `run`'s model: measured on a small unroll (values of a
// 4-sequence batch at 8 steps minus at 4 steps), so it covers every model without a formula per model.
int64_t tape_bytes_per_sequence_step(const RunSetup& run);

// Throws tg::Error if `run` cannot work on `m`: the training step's tape (batch sequences, about twice
// the forward values: the forward pass and its derivative nodes; measured 0.6-0.96 GB for an estimate
// of 0.9 GB at batch=2000 of addition, with hf and adam), or the
// evaluation's (500 sequences at a time), needs more than the available memory; eval_batch fresh
// sequences exceed kMaxFreshEvalSequences; threads exceed the cores (a new run only: a resumed run
// keeps its thread count, which cannot change, and gets a warning on stderr instead).
void check_run_limits(const RunSetup& run, bool resume, const MachineLimits& m = machine_limits());

}  // namespace tg::cli
