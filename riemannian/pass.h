// One engine pass over the training or validation data, reduced to what the steps read: the LL, the
// gradient, the w-curvature and the tau-metric, summed over independent traces. The data is either
// the whole sequence (one trace, the paper's setting) or its lines, traced K at a time (lines.h), so
// memory is bounded by one chunk whatever the number of lines.
#pragma once
#include <cstdint>
#include <vector>

#include "models/model.h"
#include "riemannian/family.h"
#include "riemannian/lines.h"
#include "riemannian/trace.h"
#include "riemannian/transition_step.h"
#include "riemannian/writing_step.h"
#include "tasks/task.h"

namespace tg::riemannian {

struct Corpus {
  const tasks::Batch* seq = nullptr;  // one sequence (B = 1)
  int64_t line_batch = 0;             // K lines per unroll; 0: the whole sequence in one trace
  LineSplit split;                    // (line_batch > 0)
  // newline: the symbol that ends a line (read only when line_batch > 0).
  static Corpus of(const tasks::Batch& seq, int64_t line_batch, int32_t newline);
};

struct PassSums {
  Need need = Need::value;
  double ll = 0;                 // nats
  ParamVec grad;                 // Need::writing: w, w0 only
  WritingCurvature writing;      // Need::writing and ::all, started at eps_y
  TransitionMetric transition;   // Need::all
};

// Runs the pass at the parameters of m. The tau-metric (method) is summed only for Need::all.
PassSums run_pass(const models::Model& m, const Family& f, const Corpus& c, Need need,
                  const std::vector<double>& eps_y, TransitionMethod method);

// The task scores only some steps of seq (chi = 0 elsewhere: distant XOR), so its error rate is a fraction
// of the scored targets; the other tasks' errors are regrets per line, bar or pair.
bool error_is_a_fraction(const tasks::Batch& seq);
// seq's scored targets: its steps with chi != 0.
double scored_targets(const tasks::Batch& seq);

struct ValidationScore {
  double bits = 0;   // code length with the 1/(t+2) mixing (t restarts at each line when line-batched)
  double error = 0;  // the task's error rate; line-batched: NaN unless error_is_a_fraction
  double scored = 0;  // when error_is_a_fraction: the scored targets the rate is over; else 0
};
ValidationScore score_corpus(const models::Model& m, const Family& f, const tasks::Task& task, const Corpus& c);

}  // namespace tg::riemannian
