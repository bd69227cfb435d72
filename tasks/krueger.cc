// Krueger's adding task (004 §3.3, after Hochreiter & Schmidhuber and Le et al.): T = 400 pairs
// {n, i} with n ~ U[0, 1] and i marking exactly two steps; the target, at the last step only, is
// the plain sum of the two marked numbers (squared error, linear output). The seed leaves the marker
// placement open: "halves" (default, Le et al.'s and Arjovsky et al.'s convention) puts one marker
// in each half of the sequence, "uniform" puts both at distinct uniformly random steps.
#include <fmt/format.h>

#include <cmath>

#include "tasks/families.h"
#include "tasks/generated.h"
#include "core/options.h"
#include "tasks/random.h"

namespace tg::tasks {
namespace {

class AddingTask : public GeneratedTask {
 public:
  AddingTask(int64_t T, bool halves) : GeneratedTask("adding", make_signature()), T_(T), halves_(halves) {}

  Example generate(Rng& rng) const override {
    int64_t first, second;
    if (halves_) {
      first = uniform_int(rng, 0, T_ / 2 - 1);
      second = uniform_int(rng, T_ / 2, T_ - 1);
    } else {
      first = uniform_int(rng, 0, T_ - 1);
      do second = uniform_int(rng, 0, T_ - 1);
      while (second == first);
    }
    Example e = blank_example(sig_, T_);
    for (int64_t t = 0; t < T_; ++t) {
      e.input_dense[2 * t] = uniform01(rng);
      e.input_dense[2 * t + 1] = (t == first || t == second) ? 1.0 : 0.0;
      e.loss_mask[t] = 0;
    }
    e.target_dense[T_ - 1] = e.input_dense[2 * first] + e.input_dense[2 * second];
    e.loss_mask[T_ - 1] = 1;
    return e;
  }

  // The seed's measure: mean squared error (pred - target)^2 over the target steps (not halved).
  double error_rate(const Batch& b, const std::vector<Tensor>& outputs) const override {
    check_outputs(b, outputs, 1, name_);
    double sum = 0;
    int64_t n = 0;
    for (int64_t s = 0; s < b.size(); ++s) {
      for (int64_t t : target_steps(b, s)) {
        const double d = outputs[t].at(s) - b.targets.dense[t].at(s);
        sum += d * d;
        ++n;
      }
    }
    return n ? sum / static_cast<double>(n) : 0.0;
  }
  std::string success_criterion() const override {
    return "test MSE < 1/12, the short-sighted baseline (predicting one marked number + 0.5)";
  }
  double success_threshold() const override { return 1.0 / 12.0; }
  double chance_level() const override { return 1.0 / 6.0; }  // the constant 1: the sum's variance, 2/12

 private:
  static Signature make_signature() {
    Signature s;
    s.symbolic_input = false;
    s.input_dim = 2;
    s.output = OutputKind::linear;
    s.output_dim = 1;
    return s;
  }
  int64_t T_;
  bool halves_;
};

}  // namespace

void register_krueger(std::vector<TaskInfo>& r) {
  r.push_back({"adding", "Krueger's adding task: sum of two marked U[0,1] numbers among T = 400, MSE", "004 §3.3",
               {{"T", 400}, {"placement", "halves"}}, [](const nlohmann::json& cfg) -> std::unique_ptr<Task> {
                 OptionReader o("task 'adding'", cfg);
                 const int64_t T = o.integer("T", 2, 10'000'000);
                 const bool halves = o.choice("placement", {"halves", "uniform"}) == "halves";
                 return std::make_unique<AddingTask>(T, halves);
               }});
}

}  // namespace tg::tasks
