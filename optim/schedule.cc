#include "optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"

namespace tg::optim {

namespace {
void check_finite(double v, const char* what) {
  if (!std::isfinite(v)) throw Error(fmt::format("schedule: {} must be finite, not {}", what, v));
}

void check_keys(const nlohmann::json& j, const std::string& kind, std::initializer_list<const char*> known) {
  std::set<std::string> ok{"kind"};
  for (const char* k : known) ok.insert(k);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!ok.count(it.key())) {
      std::string list;
      for (const auto& k : ok) list += (list.empty() ? "" : ", ") + k;
      throw Error(fmt::format("schedule: unknown key '{}' in a '{}' schedule (known: {})", it.key(), kind, list));
    }
}

const nlohmann::json& required(const nlohmann::json& j, const char* key, const std::string& kind) {
  if (!j.contains(key)) throw Error(fmt::format("schedule: a '{}' schedule needs '{}'", kind, key));
  return j.at(key);
}
}  // namespace

Schedule::Schedule(double value) : value_(value) { check_finite(value, "a constant"); }

Schedule Schedule::piecewise(std::vector<Piece> pieces, double then) {
  check_finite(then, "'then'");
  int64_t prev = 0;
  for (const auto& [until, v] : pieces) {
    if (until <= prev)
      throw Error(fmt::format("schedule: piece boundaries must be positive and strictly increasing ({} after {})", until, prev));
    check_finite(v, "a piece's value");
    prev = until;
  }
  Schedule s(then);
  s.kind_ = Kind::piecewise;
  s.pieces_ = std::move(pieces);
  return s;
}

Schedule Schedule::icml2013(double mu_max, int64_t period) {
  if (!(mu_max >= 0 && mu_max < 1)) throw Error(fmt::format("schedule: icml2013 mu_max must be in [0, 1), not {}", mu_max));
  if (period < 1) throw Error(fmt::format("schedule: icml2013 period must be >= 1, not {}", period));
  Schedule s(mu_max);
  s.kind_ = Kind::icml2013;
  s.period_ = period;
  return s;
}

Schedule Schedule::final_phase(Schedule base, int64_t from, double scale, std::optional<double> value) {
  if (from < 0) throw Error(fmt::format("schedule: final_phase 'from' must be >= 0, not {}", from));
  check_finite(scale, "final_phase 'scale'");
  Schedule s(value.value_or(0));
  s.kind_ = Kind::final_phase;
  s.from_ = from;
  s.scale_ = scale;
  s.fixed_ = value.has_value();
  s.base_ = std::make_shared<const Schedule>(std::move(base));
  return s;
}

Schedule Schedule::linear(double from, double to, int64_t steps) {
  check_finite(from, "linear 'from'");
  check_finite(to, "linear 'to'");
  if (steps < 1) throw Error(fmt::format("schedule: linear 'steps' must be >= 1, not {}", steps));
  Schedule s(to);
  s.kind_ = Kind::linear;
  s.start_ = from;
  s.from_ = steps;
  return s;
}

double Schedule::at(int64_t t) const {
  if (t < 0) throw Error(fmt::format("schedule: iteration {} is negative", t));
  switch (kind_) {
    case Kind::constant:
      return value_;
    case Kind::piecewise:
      for (const auto& [until, v] : pieces_)
        if (t < until) return v;
      return value_;
    case Kind::icml2013: {
      // 1 - 2^(-1 - log2 k) = 1 - 1/(2k): the closed form, exact in floating point
      const double k = static_cast<double>(t / period_ + 1);
      return std::min(1.0 - 0.5 / k, value_);
    }
    case Kind::final_phase:
      if (t < from_) return base_->at(t);
      return fixed_ ? value_ : base_->at(t) * scale_;
    case Kind::linear:
      if (t >= from_) return value_;
      return start_ + (value_ - start_) * static_cast<double>(t) / static_cast<double>(from_);
  }
  return value_;
}

std::pair<double, double> Schedule::range() const {
  switch (kind_) {
    case Kind::constant:
      return {value_, value_};
    case Kind::piecewise: {
      double lo = value_, hi = value_;
      for (const auto& [until, v] : pieces_) lo = std::min(lo, v), hi = std::max(hi, v);
      return {lo, hi};
    }
    case Kind::icml2013:
      return {std::min(0.5, value_), value_};  // k = 1 gives 1 - 1/2
    case Kind::final_phase: {  // the base's whole range on either side of `from`: a bound, exact when constant
      auto [lo, hi] = base_->range();
      const double a = fixed_ ? value_ : lo * scale_, b = fixed_ ? value_ : hi * scale_;
      if (from_ == 0) return {std::min(a, b), std::max(a, b)};  // the base is never used
      return {std::min({lo, a, b}), std::max({hi, a, b})};
    }
    case Kind::linear:
      return {std::min(start_, value_), std::max(start_, value_)};
  }
  return {value_, value_};
}

nlohmann::json Schedule::to_json() const {
  switch (kind_) {
    case Kind::constant:
      return value_;
    case Kind::piecewise: {
      nlohmann::json pieces = nlohmann::json::array();
      for (const auto& [until, v] : pieces_) pieces.push_back({until, v});
      return {{"kind", "piecewise"}, {"pieces", pieces}, {"then", value_}};
    }
    case Kind::icml2013:
      return {{"kind", "icml2013"}, {"mu_max", value_}, {"period", period_}};
    case Kind::final_phase: {
      nlohmann::json j = {{"kind", "final_phase"}, {"base", base_->to_json()}, {"from", from_}};
      if (fixed_) j["value"] = value_;
      else j["scale"] = scale_;
      return j;
    }
    case Kind::linear:
      return {{"kind", "linear"}, {"from", start_}, {"to", value_}, {"steps", from_}};
  }
  return value_;
}

Schedule Schedule::from_json(const nlohmann::json& j) {
  try {
    if (j.is_number()) return Schedule(j.get<double>());
    if (!j.is_object() || !j.contains("kind"))
      throw Error(fmt::format("schedule: expected a number or an object with a 'kind', not {}", j.dump()));
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "constant") {
      check_keys(j, kind, {"value"});
      return Schedule(required(j, "value", kind).get<double>());
    }
    if (kind == "piecewise") {
      check_keys(j, kind, {"pieces", "then"});
      std::vector<Piece> pieces;
      for (const auto& p : required(j, "pieces", kind)) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer())
          throw Error(fmt::format("schedule: a piece is [until_iteration, value], not {}", p.dump()));
        pieces.emplace_back(p[0].get<int64_t>(), p[1].get<double>());
      }
      return piecewise(std::move(pieces), required(j, "then", kind).get<double>());
    }
    if (kind == "icml2013") {
      check_keys(j, kind, {"mu_max", "period"});
      return icml2013(j.value("mu_max", 0.99), j.value("period", int64_t{250}));
    }
    if (kind == "linear") {
      check_keys(j, kind, {"from", "to", "steps"});
      return linear(required(j, "from", kind).get<double>(), j.value("to", 0.0),
                    required(j, "steps", kind).get<int64_t>());
    }
    if (kind == "final_phase") {
      check_keys(j, kind, {"base", "from", "scale", "value"});
      if (j.contains("scale") == j.contains("value"))
        throw Error("schedule: a 'final_phase' schedule needs exactly one of 'scale' and 'value'");
      std::optional<double> value;
      if (j.contains("value")) value = j.at("value").get<double>();
      return final_phase(from_json(required(j, "base", kind)), required(j, "from", kind).get<int64_t>(),
                         j.value("scale", 1.0), value);
    }
    if (kind == "preset") {
      check_keys(j, kind, {"name", "of"});
      const SchedulePreset& p = find_schedule_preset(required(j, "name", kind).get<std::string>());
      const std::string of = required(j, "of", kind).get<std::string>();
      if (of == "momentum") return p.momentum;
      if (of != "lr") throw Error(fmt::format("schedule: preset 'of' must be lr or momentum, not '{}'", of));
      if (!p.lr) throw Error(fmt::format("schedule: preset '{}' has no learning-rate schedule", p.name));
      return *p.lr;
    }
    throw Error(fmt::format("schedule: unknown kind '{}' (known: constant, piecewise, icml2013, final_phase, linear, preset)", kind));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("schedule: bad value in {}: {}", j.dump(), e.what()));
  }
}

const std::vector<SchedulePreset>& schedule_presets() {
  static const std::vector<SchedulePreset> presets = [] {
    // Thesis ch. 7 (digest 000 §3.1): the addition / multiplication schedule, "particularly sensitive".
    const Schedule add_mu = Schedule::piecewise({{4000, 0.9}}, 0.98);
    std::vector<SchedulePreset> out;
    out.push_back({"sutskever_add",
                   "thesis ch. 7, addition/multiplication: eps 3e-5 (1500 its), 3e-4 (1500), 3e-3 (3000), 1e-3 "
                   "(24000), then 1e-4; mu 0.9 for 4000 its, then 0.98",
                   Schedule::piecewise({{1500, 3e-5}, {3000, 3e-4}, {6000, 3e-3}, {30000, 1e-3}}, 1e-4), add_mu});
    // Memorization is "robust to the schedules"; the thesis only requires eps ~1e-5 after 1500 iterations.
    // The first phase and mu are our choice (the add schedule's), not the thesis's.
    out.push_back({"sutskever_mem",
                   "thesis ch. 7, memorization (reconstruction): eps 3e-5 for 1500 its, then 1e-5; mu as sutskever_add",
                   Schedule::piecewise({{1500, 3e-5}}, 1e-5), add_mu});
    // Deep autoencoders (digest 000 §3.5): mu ladder at our reconstruction of the "roughly exponentially
    // spaced" breakpoints; eps 0.005 (CURVES, MNIST); the last 10% of 600k iterations: eps / 10, mu = 0.99.
    const int64_t final_from = 540000;
    out.push_back({"sutskever_autoencoder",
                   "thesis ch. 7, deep autoencoders (breakpoints reconstructed): mu 0.8..0.999 by iteration 200k, "
                   "eps 0.005; from 540k (last 10% of 600k): eps/10, mu 0.99",
                   Schedule::final_phase(Schedule(0.005), final_from, 0.1),
                   Schedule::final_phase(Schedule::piecewise({{3125, 0.8}, {6250, 0.9}, {12500, 0.95}, {25000, 0.97},
                                                              {50000, 0.99}, {100000, 0.995}, {200000, 0.997}},
                                                             0.999),
                                         final_from, 1.0, 0.99)});
    out.push_back({"icml2013", "Sutskever et al. 2013: mu_t = min(1 - 1/(2(floor(t/250)+1)), 0.99); eps left to the optimizer",
                   std::nullopt, Schedule::icml2013(0.99, 250)});
    return out;
  }();
  return presets;
}

const SchedulePreset& find_schedule_preset(const std::string& name) {
  std::string known;
  for (const auto& p : schedule_presets()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw Error(fmt::format("schedule: unknown preset '{}' (known: {})", name, known));
}

Schedule read_schedule(const OptionReader& r, const std::string& key, double lo, double hi, bool hi_open) {
  if (!r.has(key)) r.fail(fmt::format("missing option '{}'", key));
  Schedule s;
  try {
    s = Schedule::from_json(r.json().at(key));
  } catch (const Error& e) {
    r.fail(fmt::format("option '{}': {}", key, e.what()));
  }
  const auto [least, greatest] = s.range();
  const bool inside = std::isfinite(least) && std::isfinite(greatest) && least >= lo &&
                      (hi_open ? greatest < hi : greatest <= hi);
  if (!inside) {
    const std::string bounds = std::isinf(hi) ? fmt::format("[{:g}, inf)", lo)
                                              : fmt::format("[{:g}, {:g}{}", lo, hi, hi_open ? ")" : "]");
    const double outside = !std::isfinite(least) || least < lo ? least : greatest;
    r.fail(fmt::format("option '{}' must stay in {} (its value reaches {:g})", key, bounds, outside));
  }
  return s;
}

}  // namespace tg::optim
