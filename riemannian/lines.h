// Line batching, for tasks whose lines are independent instances (distant XOR: each line is its own
// problem; only the bit after "=" is scored). The sequence is cut after every step whose target is
// the newline, every line starts again from the model's start state (the paper carries the state
// across lines: a deviation, docs/results/ollivier.md), and up to K lines are unrolled as one batch.
//
// Padding: the lines of a chunk are right-aligned to the longest with dummy steps (chi = 0, no input
// mask). Steps after a line's end cannot influence that line's states, outputs or adjoints (nothing
// flows backwards in time in the forward pass, and the padded steps carry no loss, so their adjoints
// are 0), and each line's trace is cut at its length; so a padded line gives exactly what tracing it
// alone gives. Right-padding keeps one unroll per chunk whatever the lengths (the alphabet's lines vary
// widely); distant XOR's lengths differ by at most 10%, so padding costs at most that much.
#pragma once
#include <cstdint>
#include <vector>

#include "models/model.h"
#include "riemannian/family.h"
#include "riemannian/trace.h"
#include "tasks/task.h"

namespace tg::riemannian {

// Line l is steps [begin[l], begin[l + 1]) of the sequence; a final piece without newline is a line too.
struct LineSplit {
  std::vector<int64_t> begin;
  int64_t lines() const { return static_cast<int64_t>(begin.size()) - 1; }
  int64_t length(int64_t l) const { return begin[l + 1] - begin[l]; }
};
// seq: one sequence (B = 1, no input masks); newline: the symbol that ends a line.
LineSplit split_lines(const tasks::Batch& seq, int32_t newline);

// Lines [first, first + count) as a batch of `count` sequences padded at the end (targets masked there).
// The target mask is present when seq has one or when some line is padded.
tasks::Batch line_chunk(const tasks::Batch& seq, const LineSplit& s, int64_t first, int64_t count);

struct ChunkTrace {
  std::vector<Trace> lines;    // per line what trace() of that line alone gives, except logits and grad (empty);
                               // Need::value: no lines (the chunk's LL and logits only)
  double ll = 0;               // Σ over the chunk's lines
  ParamVec grad;               // Σ over the chunk's lines (Need::writing: w, w0 only)
  std::vector<Tensor> logits;  // per step [count, O] (scoring the chunk batch)
};
// One unroll of the chunk batch; lengths[k] is line k's length.
ChunkTrace trace_chunk(const models::Model& m, const Family& f, const tasks::Batch& chunk,
                       const std::vector<int64_t>& lengths, Need need);

}  // namespace tg::riemannian
