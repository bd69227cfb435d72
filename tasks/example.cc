#include "tasks/example.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace tg::tasks {


Example blank_example(const Signature& sig, int64_t length) {
  Example e;
  e.length = length;
  const size_t n = static_cast<size_t>(length);
  if (sig.symbolic_input) e.input_symbols.assign(n, 0);
  else e.input_dense.assign(n * sig.input_dim, 0.0);
  if (sig.output == OutputKind::softmax) e.target_symbols.assign(n, 0);
  else e.target_dense.assign(n * sig.output_dim, 0.0);
  e.input_mask.assign(n, 1);
  e.loss_mask.assign(n, 1);
  return e;
}

Batch collate(const std::vector<Example>& examples, const Signature& sig) {
  TG_ASSERT(!examples.empty(), "collate needs at least one example");
  const int64_t B = static_cast<int64_t>(examples.size());
  int64_t T = 0;
  bool any_gap = false, all_bits = true;
  for (const Example& e : examples) {
    TG_ASSERT(e.length >= 1, "an example has {} steps", e.length);
    T = std::max(T, e.length);
    all_bits = all_bits && e.true_bits.has_value();
    for (uint8_t m : e.input_mask) any_gap = any_gap || m == 0;
  }
  for (const Example& e : examples) any_gap = any_gap || e.length < T;
  const bool dense_out = sig.output != OutputKind::softmax;
  const DType f32 = DType::f32;

  Batch b;
  b.inputs.T = T;
  b.inputs.B = B;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<int32_t> in_sym, out_sym;
    Tensor in_dense, out_dense;
    if (sig.symbolic_input) in_sym.assign(B, 0);
    else in_dense = Tensor::zeros(Shape{B, sig.input_dim}, f32);
    if (dense_out) out_dense = Tensor::zeros(Shape{B, sig.output_dim}, f32);
    else out_sym.assign(B, 0);
    Tensor in_mask = Tensor::zeros(Shape{B}, f32), loss_mask = Tensor::zeros(Shape{B}, f32);
    for (int64_t s = 0; s < B; ++s) {
      const Example& e = examples[s];
      if (t >= e.length) continue;  // padding: zeros everywhere
      if (sig.symbolic_input) {
        in_sym[s] = e.input_symbols[t];
      } else {
        float* row = in_dense.data<float>() + s * sig.input_dim;
        for (int64_t k = 0; k < sig.input_dim; ++k) row[k] = static_cast<float>(e.input_dense[t * sig.input_dim + k]);
      }
      if (dense_out) {
        float* row = out_dense.data<float>() + s * sig.output_dim;
        for (int64_t k = 0; k < sig.output_dim; ++k) row[k] = static_cast<float>(e.target_dense[t * sig.output_dim + k]);
      } else {
        out_sym[s] = e.target_symbols[t];
      }
      in_mask.data<float>()[s] = e.input_mask[t];
      loss_mask.data<float>()[s] = e.loss_mask[t];
    }
    if (sig.symbolic_input) b.inputs.symbols.push_back(ops::make_index(std::move(in_sym)));
    else b.inputs.dense.push_back(in_dense);
    if (dense_out) b.targets.dense.push_back(out_dense);
    else b.targets.symbols.push_back(ops::make_index(std::move(out_sym)));
    if (any_gap) b.inputs.mask.push_back(in_mask);
    b.targets.mask.push_back(loss_mask);
  }
  if (all_bits)
    for (const Example& e : examples) b.true_bits.push_back(*e.true_bits);
  return b;
}

std::vector<Example> split(const Batch& b, const Signature& sig) {
  const int64_t T = b.steps(), B = b.size();
  const bool dense_out = sig.output != OutputKind::softmax;
  std::vector<Example> out;
  for (int64_t s = 0; s < B; ++s) {
    auto in_mask = [&](int64_t t) { return b.inputs.mask.empty() ? 1.0 : b.inputs.mask[t].at(s); };
    auto loss_mask = [&](int64_t t) { return b.targets.mask.empty() ? 1.0 : b.targets.mask[t].at(s); };
    int64_t length = T;
    while (length > 1 && in_mask(length - 1) == 0 && loss_mask(length - 1) == 0) --length;
    Example e = blank_example(sig, length);
    for (int64_t t = 0; t < length; ++t) {
      if (sig.symbolic_input) {
        e.input_symbols[t] = (*b.inputs.symbols[t])[s];
      } else {
        for (int64_t k = 0; k < sig.input_dim; ++k) e.input_dense[t * sig.input_dim + k] = b.inputs.dense[t].at(s * sig.input_dim + k);
      }
      if (dense_out) {
        for (int64_t k = 0; k < sig.output_dim; ++k)
          e.target_dense[t * sig.output_dim + k] = b.targets.dense[t].at(s * sig.output_dim + k);
      } else {
        e.target_symbols[t] = (*b.targets.symbols[t])[s];
      }
      e.input_mask[t] = in_mask(t) != 0;
      e.loss_mask[t] = loss_mask(t) != 0;
    }
    if (static_cast<int64_t>(b.true_bits.size()) == B) e.true_bits = b.true_bits[s];
    out.push_back(std::move(e));
  }
  return out;
}

// ---- scoring --------------------------------------------------------------------------------------

void check_outputs(const Batch& b, const std::vector<Tensor>& outputs, int64_t out, const std::string& task) {
  if (static_cast<int64_t>(outputs.size()) != b.steps())
    throw Error(fmt::format("task '{}': {} output steps for a batch of {} steps", task, outputs.size(), b.steps()));
  for (size_t t = 0; t < outputs.size(); ++t)
    if (outputs[t].shape() != Shape{b.size(), out})
      throw Error(fmt::format("task '{}': output {} at step {} should be [{},{}]", task, outputs[t].shape().str(), t,
                              b.size(), out));
}

bool step_correct(const Batch& b, const std::vector<Tensor>& outputs, OutputKind kind, int64_t t, int64_t s,
                  double tolerance) {
  const Tensor& y = outputs[t];
  const int64_t out = y.shape()[1];
  switch (kind) {
    case OutputKind::softmax: {
      int64_t best = 0;
      for (int64_t k = 1; k < out; ++k)
        if (y.at(s * out + k) > y.at(s * out + best)) best = k;
      return best == (*b.targets.symbols[t])[s];
    }
    case OutputKind::logistic:
      for (int64_t k = 0; k < out; ++k)
        if ((y.at(s * out + k) > 0) != (b.targets.dense[t].at(s * out + k) > 0.5)) return false;
      return true;
    case OutputKind::linear:
      for (int64_t k = 0; k < out; ++k)  // written so that NaN predictions count as wrong
        if (!(std::fabs(y.at(s * out + k) - b.targets.dense[t].at(s * out + k)) <= tolerance)) return false;
      return true;
  }
  return false;
}

std::vector<int64_t> target_steps(const Batch& b, int64_t s) {
  std::vector<int64_t> steps;
  for (int64_t t = 0; t < b.steps(); ++t)
    if (b.targets.mask.empty() || b.targets.mask[t].at(s) != 0) steps.push_back(t);
  return steps;
}

double sequence_error(const Batch& b, const std::vector<Tensor>& outputs, OutputKind kind, const ScoredSteps& scored,
                      double tolerance) {
  int64_t wrong = 0;
  for (int64_t s = 0; s < b.size(); ++s) {
    for (int64_t t : scored(b, s)) {
      if (!step_correct(b, outputs, kind, t, s, tolerance)) {
        ++wrong;
        break;
      }
    }
  }
  return b.size() ? static_cast<double>(wrong) / static_cast<double>(b.size()) : 0.0;
}

double step_error(const Batch& b, const std::vector<Tensor>& outputs, OutputKind kind, const ScoredSteps& scored,
                  double tolerance) {
  int64_t wrong = 0, total = 0;
  for (int64_t s = 0; s < b.size(); ++s) {
    for (int64_t t : scored(b, s)) {
      ++total;
      wrong += !step_correct(b, outputs, kind, t, s, tolerance);
    }
  }
  return total ? static_cast<double>(wrong) / static_cast<double>(total) : 0.0;
}

std::vector<double> model_bits(const Batch& b, const std::vector<Tensor>& logits, bool smooth) {
  std::vector<double> bits(b.size(), 0.0);
  if (logits.empty()) return bits;
  const int64_t V = logits[0].shape()[1];
  std::vector<double> row(V);
  for (int64_t t = 0; t < b.steps(); ++t) {
    const double mix = smooth ? 1.0 / static_cast<double>(t + 2) : 0.0;
    for (int64_t s = 0; s < b.size(); ++s) {
      if (!b.targets.mask.empty() && b.targets.mask[t].at(s) == 0) continue;
      double top = -INFINITY;
      for (int64_t k = 0; k < V; ++k) top = std::max(top, row[k] = logits[t].at(s * V + k));
      double z = 0;
      for (int64_t k = 0; k < V; ++k) z += std::exp(row[k] - top);
      const double log_p = row[(*b.targets.symbols[t])[s]] - top - std::log(z);  // log space: no underflow to 0
      bits[s] -= mix == 0 ? log_p / std::log(2.0) : std::log2((1 - mix) * std::exp(log_p) + mix / static_cast<double>(V));
    }
  }
  return bits;
}

}  // namespace tg::tasks
