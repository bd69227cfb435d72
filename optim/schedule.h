// Schedules: a hyperparameter (learning rate ε, momentum μ) as a function of the iteration count t.
// t is 0 for an optimizer's first step and counts every step taken, skipped ones included, so a
// schedule follows the training loop's clock. "The first 1500 iterations" are t = 0..1499.
//
// JSON forms (Schedule::from_json; unknown keys are an error; to_json gives the expanded form):
//   0.01                                                       constant
//   {"kind": "constant", "value": 0.01}
//   {"kind": "piecewise", "pieces": [[1500, 3e-5], [3000, 3e-4]], "then": 1e-4}
//        value of the first piece with t < until (untils strictly increasing), else `then`
//   {"kind": "icml2013", "mu_max": 0.99, "period": 250}
//        Sutskever et al. 2013: μ_t = min(1 - 2^(-1-log2(⌊t/period⌋+1)), μ_max) = min(1 - 1/(2k), μ_max)
//   {"kind": "final_phase", "base": <schedule>, "from": 540000, "scale": 0.1}   (or "value": 0.99)
//        the base schedule until `from`, then base × scale (or a fixed value): thesis ch. 7's last 10%
//   {"kind": "linear", "from": 0.01, "to": 0, "steps": 100000}
//        from `from` at t = 0 straight to `to` at t = steps, then `to` (the thesis's Ch. 3 decay)
//   {"kind": "preset", "name": "sutskever_add", "of": "lr"}   (or "of": "momentum")
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/options.h"

namespace tg::optim {

class Schedule {
 public:
  using Piece = std::pair<int64_t, double>;  // (until iteration, exclusive; value)

  explicit Schedule(double value = 0);  // constant
  static Schedule piecewise(std::vector<Piece> pieces, double then);
  static Schedule icml2013(double mu_max, int64_t period = 250);
  // From iteration `from` on: base × scale, or `value` when given.
  static Schedule final_phase(Schedule base, int64_t from, double scale, std::optional<double> value = {});
  static Schedule linear(double from, double to, int64_t steps);
  static Schedule from_json(const nlohmann::json& j);  // throws tg::Error naming the bad key / value

  double at(int64_t t) const;
  // The least and the greatest value over every t >= 0; for final_phase, bounds that take the base's whole
  // range before and after `from`, so they may be wider than the values reached.
  std::pair<double, double> range() const;
  nlohmann::json to_json() const;
  bool is_constant_zero() const { return kind_ == Kind::constant && value_ == 0; }

 private:
  enum class Kind { constant, piecewise, icml2013, final_phase, linear };
  Kind kind_ = Kind::constant;
  double value_ = 0;  // constant; piecewise's `then`; icml2013's μ_max; final_phase's fixed value
  std::vector<Piece> pieces_;
  int64_t period_ = 0;   // icml2013
  int64_t from_ = 0;     // final_phase; linear: its steps
  double start_ = 0;     // linear: the value at t = 0 (value_ is the end)
  double scale_ = 1;     // final_phase
  bool fixed_ = false;   // final_phase uses value_ rather than base × scale_
  std::shared_ptr<const Schedule> base_;
};

// The schedule under option `key` of an optimizer's options; errors name the optimizer and the key.
// Every value it takes must lie in [lo, hi] ([lo, hi) with hi_open): a negative learning rate or a
// momentum of 1.5 is refused, not trained with.
Schedule read_schedule(const OptionReader& r, const std::string& key, double lo, double hi, bool hi_open = false);

// Named (ε, μ) schedules from the seeds. A preset may leave ε to the optimizer (lr empty).
struct SchedulePreset {
  std::string name;
  std::string description;
  std::optional<Schedule> lr;
  Schedule momentum;
};
const std::vector<SchedulePreset>& schedule_presets();
const SchedulePreset& find_schedule_preset(const std::string& name);  // tg::Error naming the known ones

}  // namespace tg::optim
