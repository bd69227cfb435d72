#include "models/loss.h"

#include <fmt/format.h>

#include <cstring>

#include "core/error.h"
#include "ops/ops.h"

namespace tg::models {

namespace {
// Stacks tensors of one shape [B, ...] along the first axis (data, not differentiated).
Tensor stack_rows(const std::vector<Tensor>& parts, DType dt) {
  Shape s = parts.at(0).shape();
  const int64_t rows = s[0];
  s[0] = rows * static_cast<int64_t>(parts.size());
  Tensor out = Tensor::empty(s, dt);
  const size_t bytes = static_cast<size_t>(parts[0].size()) * dtype_size(dt);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].shape() != parts[0].shape())
      throw Error(fmt::format("matching_loss: targets {} and {} differ in shape", parts[0].shape().str(),
                              parts[i].shape().str()));
    Tensor p = parts[i].astype(dt);
    std::memcpy(static_cast<char*>(out.raw()) + i * bytes, p.raw(), bytes);
  }
  return out;
}

// One loss mask per step, or none.
void check_mask_steps(const Outputs& out, const Targets& ys) {
  if (!ys.mask.empty() && ys.mask.size() != out.logits.size())
    throw Error(fmt::format("matching_loss: {} masks for {} steps", ys.mask.size(), out.logits.size()));
}

// Whether step t's targets count (a mask of all zeros drops the step).
bool step_scored(const Targets& ys, size_t t) {
  if (ys.mask.empty()) return true;
  for (int64_t b = 0; b < ys.mask[t].size(); ++b)
    if (ys.mask[t].at(b) != 0) return true;
  return false;
}

// out.logits_all when the loss may read it for every step's rows: every step scored, one row block per step.
Var stacked_logits(const Outputs& out, const Targets& ys) {
  const size_t T = out.logits.size();
  check_mask_steps(out, ys);
  if (out.logits_all.empty() || T < 2 || out.logits_all.shape()[0] != static_cast<int64_t>(T) * out.logits[0].shape()[0])
    return {};
  for (size_t t = 0; t < T && t < ys.mask.size(); ++t)
    if (!step_scored(ys, t)) return {};
  return out.logits_all;
}

// `stacked`: the steps' rows in one node, read instead of their concatenation when every step is scored.
Var matching_loss_rows(OutputKind kind, std::span<const Var> logits, Var stacked, const Targets& ys, bool mean,
                       Site site);
}  // namespace

Var matching_loss(OutputKind kind, std::span<const Var> logits, const Targets& ys, bool mean, Site site) {
  return matching_loss_rows(kind, logits, Var{}, ys, mean, site);
}

Var matching_loss(OutputKind kind, const Outputs& out, const Targets& ys, bool mean, Site site) {
  return matching_loss_rows(kind, out.logits, stacked_logits(out, ys), ys, mean, site);
}

std::vector<Var> scored_logits(const Outputs& out, const Targets& ys) {
  check_mask_steps(out, ys);
  if (Var all = stacked_logits(out, ys); !all.empty()) return {all};
  std::vector<Var> read;
  for (size_t t = 0; t < out.logits.size(); ++t)
    if (step_scored(ys, t)) read.push_back(out.logits[t]);
  return read;
}

namespace {
Var matching_loss_rows(OutputKind kind, std::span<const Var> logits, Var stacked, const Targets& ys, bool mean,
                       Site site) {
  const size_t T = logits.size();
  if (T == 0) throw Error(fmt::format("matching_loss: no steps at {}", site.str()));
  const bool symbolic = kind == OutputKind::softmax;
  if (symbolic ? ys.symbols.size() != T : ys.dense.size() != T)
    throw Error(fmt::format("matching_loss: {} {} targets for {} steps at {}",
                            symbolic ? ys.symbols.size() : ys.dense.size(), symbolic ? "symbol" : "dense", T,
                            site.str()));
  if (!ys.mask.empty() && ys.mask.size() != T)
    throw Error(fmt::format("matching_loss: {} masks for {} steps at {}", ys.mask.size(), T, site.str()));
  const int64_t B = logits[0].shape()[0];
  const DType dt = logits[0].dtype();

  std::vector<Var> z;
  std::vector<int32_t> classes;
  std::vector<Tensor> dense, mask;
  for (size_t t = 0; t < T; ++t) {
    if (!ys.mask.empty()) {
      if (ys.mask[t].size() != B)
        throw Error(fmt::format("matching_loss: mask {} at step {} for batch {} at {}", ys.mask[t].shape().str(), t, B,
                                site.str()));
      bool any = false;
      for (int64_t b = 0; b < B; ++b) any = any || ys.mask[t].at(b) != 0;
      if (!any) continue;
      mask.push_back(ys.mask[t].reshaped(symbolic ? Shape{B} : Shape{B, 1}));
    }
    z.push_back(logits[t]);
    if (symbolic) {
      if (!ys.symbols[t] || static_cast<int64_t>(ys.symbols[t]->size()) != B)
        throw Error(fmt::format("matching_loss: step {} needs {} target symbols at {}", t, B, site.str()));
      classes.insert(classes.end(), ys.symbols[t]->begin(), ys.symbols[t]->end());
    } else {
      dense.push_back(ys.dense[t]);
    }
  }
  if (z.empty()) throw Error(fmt::format("matching_loss: the loss mask selects no step at {}", site.str()));

  Graph& g = *z[0].graph();
  Var all = !stacked.empty() && z.size() == T ? stacked : z.size() == 1 ? z[0] : ops::concat(z, 0, site);
  Var m = mask.empty() ? Var{} : g.input(stack_rows(mask, dt));
  switch (kind) {
    case OutputKind::softmax:
      return losses::softmax_xent(all, ops::make_index(std::move(classes)), m, mean, site);
    case OutputKind::logistic:
      return losses::sigmoid_bce(all, g.input(stack_rows(dense, dt)), m, mean, site);
    case OutputKind::linear:
      return losses::squared_error(all, g.input(stack_rows(dense, dt)), m, mean, site);
  }
  throw Error("matching_loss: unknown output kind");
}
}  // namespace

Var per_row_loss(OutputKind kind, Var z, const ops::Index& classes, Var y) {
  switch (kind) {
    case OutputKind::softmax:
      return ops::sub(ops::logsumexp(z, 1), ops::pick_columns(z, classes));
    case OutputKind::logistic:
      return ops::sum(ops::sub(ops::softplus(z), ops::mul(z, y)), 1);
    case OutputKind::linear:
      return ops::sum(ops::scale(ops::square(ops::sub(z, y)), 0.5), 1);
  }
  throw Error("per_row_loss: unknown output kind");
}

Var structural_damping_head(Graph& g, std::string_view kind, std::span<const Var> preact,
                            const std::vector<Tensor>& input_mask, int64_t first_step, double weight) {
  // Only the head's curvature is ever used (G_S v), never its value: deferred, its forward nodes
  // (a softplus over every pre-activation) run only if something reads them.
  const bool was_deferred = g.set_deferred(true);
  struct Restore {
    Graph& g;
    bool on;
    ~Restore() { g.set_deferred(on); }
  } restore{g, was_deferred};
  Var head;
  for (size_t i = 0; i < preact.size(); ++i) {
    Var u = preact[i];
    Var h = kind == "tanh" ? ops::sub(ops::softplus(ops::scale(u, 2.0)), u)  // log cosh u + log 2
                           : ops::scale(ops::square(u), 0.5);
    Var per = ops::sum(h, 1);
    if (!input_mask.empty())
      per = ops::mul(per, g.input(input_mask[first_step + i].astype(u.dtype()).reshaped({u.shape()[0]})));
    head = ops::add(head, ops::sum(per));
  }
  return ops::scale(head, weight);  // deferred too: an eager node would evaluate its pending input
}

}  // namespace tg::models
