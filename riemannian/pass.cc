#include "riemannian/pass.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "tasks/example.h"
#include "tasks/ollivier_tasks.h"

namespace tg::riemannian {

Corpus Corpus::of(const tasks::Batch& seq, int64_t line_batch, int32_t newline) {
  if (line_batch < 0) throw Error(fmt::format("line batch K = {} must be >= 0 (0: no line batching)", line_batch));
  Corpus c;
  c.seq = &seq;
  c.line_batch = line_batch;
  if (line_batch > 0) c.split = split_lines(seq, newline);
  return c;
}

namespace {
// Calls visit(ChunkTrace, chunk batch) for each chunk of K lines.
template <class Visit>
void for_each_chunk(const models::Model& m, const Family& f, const Corpus& c, Need need, Visit visit) {
  const int64_t L = c.split.lines();
  for (int64_t first = 0; first < L; first += c.line_batch) {
    const int64_t count = std::min(c.line_batch, L - first);
    tasks::Batch chunk = line_chunk(*c.seq, c.split, first, count);
    std::vector<int64_t> lengths(count);
    for (int64_t k = 0; k < count; ++k) lengths[k] = c.split.length(first + k);
    ChunkTrace ct = trace_chunk(m, f, chunk, lengths, need);
    visit(ct, chunk);
  }
}
}  // namespace

PassSums run_pass(const models::Model& m, const Family& f, const Corpus& c, Need need,
                  const std::vector<double>& eps_y, TransitionMethod method) {
  const ParamSet& ps = m.params();
  PassSums s;
  s.need = need;
  if (need != Need::value) s.writing = writing_curvature(f, eps_y);
  if (need == Need::all) s.transition = transition_metric(f, method);
  auto add = [&](const Trace& tr) {
    if (need != Need::value) add_writing_curvature(f, tr, s.writing);
    if (need == Need::all) add_transition_metric(f, ps, tr, s.transition);
  };
  if (c.line_batch == 0) {
    Trace tr = trace(m, f, *c.seq, need);
    s.ll = tr.ll;
    add(tr);
    s.grad = std::move(tr.grad);
    return s;
  }
  s.grad = ps.zeros_like();
  for_each_chunk(m, f, c, need, [&](const ChunkTrace& ct, const tasks::Batch&) {
    s.ll += ct.ll;
    s.grad.axpy(1.0, ct.grad);
    for (const Trace& tr : ct.lines) add(tr);
  });
  return s;
}

bool error_is_a_fraction(const tasks::Batch& seq) {
  for (const Tensor& mt : seq.targets.mask)
    if (mt.at(0) == 0) return true;
  return false;
}

double scored_targets(const tasks::Batch& seq) {
  if (seq.targets.mask.empty()) return static_cast<double>(seq.steps());
  double n = 0;
  for (const Tensor& mt : seq.targets.mask) n += mt.at(0) != 0;
  return n;
}

ValidationScore score_corpus(const models::Model& m, const Family& f, const tasks::Task& task, const Corpus& c) {
  ValidationScore v;
  const bool per_step_error = error_is_a_fraction(*c.seq);
  if (c.line_batch == 0) {
    Trace tr = trace(m, f, *c.seq, Need::value);
    v.bits = tasks::ollivier::cumulative_regret(*c.seq, tr.logits, /*smooth=*/true) + c.seq->true_bits.at(0);
    v.error = task.error_rate(*c.seq, tr.logits);
    if (per_step_error) v.scored = scored_targets(*c.seq);
    return v;
  }
  // Each line is scored as its own sequence. When the error is a fraction of the scored steps, the
  // chunks' rates weighted by their scored steps give it exactly. The other tasks' errors (regret per
  // line, bar or pair of the whole sequence) are not defined per line: NaN.
  double wrong = 0, scored = 0;
  for_each_chunk(m, f, c, Need::value, [&](const ChunkTrace& ct, const tasks::Batch& chunk) {
    for (double b : tasks::model_bits(chunk, ct.logits, /*smooth=*/true)) v.bits += b;
    if (!per_step_error) return;
    double n = 0;
    for (const Tensor& mt : chunk.targets.mask)
      for (int64_t k = 0; k < mt.size(); ++k) n += mt.at(k) != 0;
    if (n > 0) wrong += task.error_rate(chunk, ct.logits) * n, scored += n;
  });
  v.error = per_step_error && scored > 0 ? wrong / scored : NAN;
  v.scored = scored;
  return v;
}

}  // namespace tg::riemannian
