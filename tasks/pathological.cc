// The pathological long-term-dependency problems of 000 §3.1 (Sutskever's thesis, appendix 4.4,
// after Hochreiter & Schmidhuber 1997). Positions in the comments are the thesis's, 1-based; the
// code stores step p at index p - 1. i[a, b] is a uniform integer with both ends included, integer
// divisions (T'/10, 2T/10, ...) round down.
#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "tasks/families.h"
#include "tasks/generated.h"
#include "core/options.h"
#include "tasks/random.h"

namespace tg::tasks {
namespace {


constexpr double kTolerance = 0.04;  // a continuous prediction is wrong when further than this from the target

Signature dense_signature(int64_t in, OutputKind out_kind, int64_t out) {
  Signature s;
  s.symbolic_input = false;
  s.input_dim = in;
  s.output = out_kind;
  s.output_dim = out;
  return s;
}

Signature symbol_signature(int64_t in, int64_t out) {
  Signature s;
  s.symbolic_input = true;
  s.input_dim = in;
  s.output = OutputKind::softmax;
  s.output_dim = out;
  return s;
}

// ---- addition, multiplication, XOR (thesis 4.4.1) -------------------------------------------------
// Length T' ~ i[T, 11T/10]; markers I ~ i[1, T'/10] and J ~ i[T'/10, T'/2] (the OCR's "and let
// i[...]" is J), J redrawn if it equals I; input v_t = (u_t, marker_t); one target, at step T'.
enum class PairOp { add, mul, xor_ };

class MarkedPairTask : public GeneratedTask {
 public:
  MarkedPairTask(std::string name, PairOp op, int64_t T, bool cues)
      : GeneratedTask(std::move(name), dense_signature(2, op == PairOp::xor_ ? OutputKind::logistic : OutputKind::linear, 1)),
        op_(op),
        T_(T),
        cues_(cues) {}

  Example generate(Rng& rng) const override {
    const int64_t length = uniform_int(rng, T_, 11 * T_ / 10);
    const int64_t I = uniform_int(rng, cues_ ? 2 : 1, length / 10);
    int64_t J = uniform_int(rng, length / 10, length / 2);
    while (J == I) J = uniform_int(rng, length / 10, length / 2);  // two distinct marked numbers
    Example e = blank_example(sig_, length);
    for (int64_t p = 1; p <= length; ++p) {
      const double u = op_ == PairOp::xor_ ? static_cast<double>(uniform_int(rng, 0, 1)) : uniform01(rng);
      e.input_dense[2 * (p - 1)] = u;
      e.input_dense[2 * (p - 1) + 1] = (p == I || p == J) ? 1.0 : 0.0;
      e.loss_mask[p - 1] = 0;
    }
    if (cues_) e.input_dense[1] = e.input_dense[2 * (length - 3) + 1] = -1.0;
    const double a = e.input_dense[2 * (I - 1)], b = e.input_dense[2 * (J - 1)];
    e.target_dense[length - 1] = op_ == PairOp::add ? (a + b) / 2 : op_ == PairOp::mul ? a * b : double((a != 0) != (b != 0));
    e.loss_mask[length - 1] = 1;
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, 1, name_);
    return sequence_error(b, outputs, sig_.output, target_steps, kTolerance);
  }
  std::string success_criterion() const override {
    return op_ == PairOp::xor_ ? "< 1% of sequences with the XOR bit wrong (logit on the wrong side of 0)"
                               : "< 1% of sequences with |prediction - target| > 0.04 at the last step";
  }
  double success_threshold() const override { return 0.01; }
  double chance_level() const override {
    switch (op_) {
      case PairOp::add:  // constant 1/2: right when |u_I + u_J - 1| <= 0.08, probability 1 - 0.92^2
        return (1 - 2 * kTolerance) * (1 - 2 * kTolerance);
      case PairOp::mul: {  // constant 0.04: the product's density -ln p is largest near 0
        const double w = 2 * kTolerance;
        return 1 - (w - w * std::log(w));
      }
      case PairOp::xor_:
        return 0.5;
    }
    return NAN;
  }

 private:
  PairOp op_;
  int64_t T_;
  bool cues_;
};

// ---- temporal order, 2-bit and 3-bit (thesis 4.4.2-3, H&S 6a/6b) ----------------------------------
// Symbols 1..6 are inputs 0..5. Noise c_t ~ i[3, 6]; special values a, b (, c) ~ i[1, 2] at
// I ~ i[T/10, 2T/10], J ~ i[5T/10, 6T/10] (2-bit), or I ~ i[T/10, 2T/10], J ~ i[3T/10, 4T/10],
// K ~ i[6T/10, 7T/10] (3-bit); the ranges never overlap for T >= 10. One target at step T: the class (a-1)*2 + (b-1), or (a-1)*4 + (b-1)*2 + (c-1).
class TemporalOrderTask : public GeneratedTask {
 public:
  TemporalOrderTask(int64_t T, int bits)
      : GeneratedTask("temporal_order", symbol_signature(6, int64_t{1} << bits)), T_(T), bits_(bits) {}

  Example generate(Rng& rng) const override {
    const int64_t T = T_;
    std::vector<int64_t> pos;
    if (bits_ == 2) {
      pos = {uniform_int(rng, T / 10, 2 * T / 10), uniform_int(rng, 5 * T / 10, 6 * T / 10)};
    } else {
      pos = {uniform_int(rng, T / 10, 2 * T / 10), uniform_int(rng, 3 * T / 10, 4 * T / 10),
             uniform_int(rng, 6 * T / 10, 7 * T / 10)};
    }
    std::vector<int64_t> value;
    for (int k = 0; k < bits_; ++k) value.push_back(uniform_int(rng, 1, 2));
    Example e = blank_example(sig_, T);
    for (int64_t p = 1; p <= T; ++p) {
      e.input_symbols[p - 1] = static_cast<int32_t>(uniform_int(rng, 3, 6) - 1);
      e.loss_mask[p - 1] = 0;
    }
    int32_t cls = 0;
    for (int k = 0; k < bits_; ++k) {
      e.input_symbols[pos[k] - 1] = static_cast<int32_t>(value[k] - 1);
      cls = cls * 2 + static_cast<int32_t>(value[k] - 1);
    }
    e.target_symbols[T - 1] = cls;
    e.loss_mask[T - 1] = 1;
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, sig_.output_dim, name_);
    return sequence_error(b, outputs, OutputKind::softmax);
  }
  std::string success_criterion() const override { return "< 1% of sequences with the wrong class at the last step"; }
  double success_threshold() const override { return 0.01; }
  double chance_level() const override { return 1.0 - 1.0 / static_cast<double>(sig_.output_dim); }

 private:
  int64_t T_;
  int bits_;
};

// ---- random permutation (thesis 4.4.4, H&S 2b) ----------------------------------------------------
// Symbols 1..100 are classes 0..99. v_1 = v_T ~ i[1, 2], the others ~ i[3, 100]. The target at every
// step is the next input, so a sequence is T-1 steps: inputs v_1..v_{T-1}, targets v_2..v_T. Every
// step has a target (and a loss); success is judged on the last one only.
class RandomPermutationTask : public GeneratedTask {
 public:
  explicit RandomPermutationTask(int64_t T) : GeneratedTask("random_permutation", symbol_signature(100, 100)), T_(T) {}

  Example generate(Rng& rng) const override {
    std::vector<int32_t> v(static_cast<size_t>(T_));
    v[0] = static_cast<int32_t>(uniform_int(rng, 1, 2));
    for (int64_t p = 2; p < T_; ++p) v[p - 1] = static_cast<int32_t>(uniform_int(rng, 3, 100));
    v[T_ - 1] = v[0];
    Example e = blank_example(sig_, T_ - 1);
    for (int64_t t = 0; t < T_ - 1; ++t) {
      e.input_symbols[t] = v[t] - 1;
      e.target_symbols[t] = v[t + 1] - 1;
    }
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, 100, name_);
    return sequence_error(b, outputs, OutputKind::softmax, [](const Batch& bb, int64_t s) {
      std::vector<int64_t> steps = target_steps(bb, s);
      return steps.empty() ? steps : std::vector<int64_t>{steps.back()};
    });
  }
  std::string success_criterion() const override {
    return "< 1% of sequences with the wrong symbol predicted at the last step";
  }
  double success_threshold() const override { return 0.01; }
  double chance_level() const override { return 0.5; }  // the last symbol is 1 or 2

 private:
  int64_t T_;
};

// ---- noiseless memorization, 5-bit and 20-bit (thesis 4.4.5) --------------------------------------
// 5-bit: v_1..v_5 ~ i[1, 2], then the constant symbol 3, except the trigger 4 at t = T+5; length
// T+10; targets y_t = 3 for t <= T+5, y_{T+5+j} = v_j. 20-bit ("adapted straightforwardly"): 10
// symbols ~ i[1, 5], constant 6, trigger 7 at t = T+10, length T+20. Symbol k is index k-1 for
// inputs and targets alike. Every step has a target.
// blank "symbol": every input a symbol, the constant one included (the thesis's 1-of-K encoding);
// blank "zero": the same one-hot vectors as dense inputs, but the constant steps' input the zero vector,
// so that between the bits and the trigger nothing drives the network (a probe of why momentum methods
// fail this task here: docs/results/hf_grid.md, Table 7.3).
Signature memorization_signature(int bits, bool zero_blank) {
  const int64_t in = bits == 5 ? 4 : 7, out = bits == 5 ? 3 : 6;  // values, constant, trigger / values, constant
  return zero_blank ? dense_signature(in, OutputKind::softmax, out) : symbol_signature(in, out);
}

class MemorizationTask : public GeneratedTask {
 public:
  MemorizationTask(int64_t T, int bits, bool per_step, bool zero_blank)
      : GeneratedTask("memorization", memorization_signature(bits, zero_blank)),
        T_(T),
        values_(bits == 5 ? 2 : 5),
        count_(bits == 5 ? 5 : 10),
        per_step_(per_step),
        zero_blank_(zero_blank) {}

  Example generate(Rng& rng) const override {
    const int64_t L = count_, K = values_, length = T_ + 2 * L;
    const int32_t constant = static_cast<int32_t>(K + 1), trigger = static_cast<int32_t>(K + 2);
    Example e = blank_example(sig_, length);
    std::vector<int32_t> inputs(static_cast<size_t>(length));
    for (int64_t p = 1; p <= length; ++p) {
      int32_t v = constant;
      if (p <= L) v = static_cast<int32_t>(uniform_int(rng, 1, K));
      if (p == T_ + L) v = trigger;
      inputs[p - 1] = v - 1;
      e.target_symbols[p - 1] = p <= T_ + L ? constant - 1 : inputs[p - T_ - L - 1];
      if (zero_blank_ && v != constant) e.input_dense[(p - 1) * sig_.input_dim + (v - 1)] = 1;
    }
    if (!zero_blank_) e.input_symbols = std::move(inputs);
    return e;
  }

  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, sig_.output_dim, name_);
    if (!per_step_) return sequence_error(b, outputs, OutputKind::softmax);
    const int64_t L = count_;
    return step_error(b, outputs, OutputKind::softmax, [L](const Batch& bb, int64_t s) {
      std::vector<int64_t> steps = target_steps(bb, s);  // the recall: the last L target steps
      if (static_cast<int64_t>(steps.size()) > L) steps.erase(steps.begin(), steps.end() - L);
      return steps;
    });
  }
  std::string success_criterion() const override {
    return per_step_ ? "< 1% of the recall steps predicted wrongly (000 Ch.7's per-timestep metric)"
                     : "< 1% of sequences with any step predicted wrongly";
  }
  double success_threshold() const override { return 0.01; }
  double chance_level() const override {  // guessing the recalled symbols; the constant steps are easy
    const double K = static_cast<double>(values_);
    return per_step_ ? 1 - 1 / K : 1 - std::pow(K, -static_cast<double>(count_));
  }

 private:
  int64_t T_, values_, count_;
  bool per_step_, zero_blank_;
};

}  // namespace

void register_pathological(std::vector<TaskInfo>& r) {
  auto pair_task = [](const char* name, PairOp op, const char* what) {
    return TaskInfo{name, what, "000 §3.1", {{"T", 100}, {"cues", "none"}},
                    [name, op](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                      OptionReader o(fmt::format("task '{}'", name), cfg);
                      const int64_t T = o.integer("T", 10, 10'000'000);
                      const bool cues = o.choice("cues", {"none", "code"}) == "code";
                      if (cues && T < 20) o.fail("T", fmt::format("must be >= 20 with cues \"code\" (got {})", T));
                      return std::make_unique<MarkedPairTask>(name, op, T, cues);
                    }};
  };
  r.push_back(pair_task("addition", PairOp::add,
                        "two marked U[0,1] numbers among T..1.1T; target their mean at the last step (linear)"));
  r.push_back(pair_task("multiplication", PairOp::mul,
                        "two marked U[0,1] numbers among T..1.1T; target their product at the last step (linear)"));
  r.push_back(pair_task("xor", PairOp::xor_, "two marked random bits among T..1.1T; target their XOR at the last step (logistic)"));
  r.push_back({"temporal_order", "the order of 2 (or 3) special symbols among T noise symbols, as 1 of 4 (or 8) classes",
               "000 §3.1", {{"T", 100}, {"bits", 2}}, [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'temporal_order'", cfg);
                 const int64_t T = o.integer("T", 10, 10'000'000);
                 const int64_t bits = o.integer("bits", 2, 3);
                 return std::make_unique<TemporalOrderTask>(T, static_cast<int>(bits));
               }});
  r.push_back({"random_permutation", "predict the next of T symbols; the last equals the first (1 or 2), the rest 3..100",
               "000 §3.1", {{"T", 100}}, [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'random_permutation'", cfg);
                 return std::make_unique<RandomPermutationTask>(o.integer("T", 2, 10'000'000));
               }});
  r.push_back({"memorization", "reproduce 5 bits (or 10 symbols of 5, bits: 20) after T steps, on a trigger",
               "000 §3.1", {{"T", 100}, {"bits", 5}, {"metric", "sequence"}, {"blank", "symbol"}},
               [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'memorization'", cfg);
                 const int64_t T = o.integer("T", 1, 10'000'000);
                 const int64_t bits = o.integer("bits", 5, 20);
                 if (bits != 5 && bits != 20) o.fail("bits", fmt::format("must be 5 or 20 (got {})", bits));
                 const bool per_step = o.choice("metric", {"sequence", "timestep"}) == "timestep";
                 const bool zero_blank = o.choice("blank", {"symbol", "zero"}) == "zero";
                 return std::make_unique<MemorizationTask>(T, static_cast<int>(bits), per_step, zero_blank);
               }});
}

}  // namespace tg::tasks
