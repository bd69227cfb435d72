#include "tasks/reaching.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/error.h"
#include "core/options.h"
#include "tasks/families.h"
#include "tasks/random.h"

namespace tg::tasks {

void check_arm(const ArmOptions& o) {
  const ArmParams& p = o.arm;
  auto positive = [](const char* name, double v) {
    if (!(v > 0 && std::isfinite(v))) throw Error(fmt::format("arm: {} must be > 0 (got {})", name, v));
  };
  auto non_negative = [](const char* name, double v) {
    if (!(v >= 0 && std::isfinite(v))) throw Error(fmt::format("arm: {} must be >= 0 (got {})", name, v));
  };
  auto finite = [](const char* name, double v) {
    if (!std::isfinite(v)) throw Error(fmt::format("arm: {} must be finite (got {})", name, v));
  };
  positive("l1", p.l1), positive("l2", p.l2), positive("m1", p.m1), positive("m2", p.m2), positive("dt", o.dt);
  non_negative("s1", p.s1), non_negative("s2", p.s2), non_negative("i1", p.i1), non_negative("i2", p.i2);
  finite("b11", p.b11), finite("b12", p.b12), finite("b21", p.b21), finite("b22", p.b22);
  non_negative("command_noise", o.command_noise), non_negative("plant_noise", o.plant_noise);
  for (double v : o.disturbance) finite("disturbance", v);
  for (double v : o.hand_force) finite("hand_force", v);
  if (o.feedback_delay < 0) throw Error(fmt::format("arm: feedback_delay must be >= 0 (got {})", o.feedback_delay));
}

std::array<double, 2> hand_at(const ArmParams& p, double theta, double phi) {
  return {p.l1 * std::cos(theta) + p.l2 * std::cos(theta + phi), p.l1 * std::sin(theta) + p.l2 * std::sin(theta + phi)};
}

std::array<double, 2> arm_inverse_kinematics(const ArmParams& p, double x, double y) {
  const double r2 = x * x + y * y;
  const double cos_phi = (r2 - p.l1 * p.l1 - p.l2 * p.l2) / (2 * p.l1 * p.l2);
  if (!(cos_phi >= -1 && cos_phi <= 1))
    throw Error(fmt::format("arm inverse kinematics: hand ({}, {}) is out of reach", x, y));
  const double phi = std::acos(cos_phi);
  const double theta = std::atan2(y, x) - std::atan2(p.l2 * std::sin(phi), p.l1 + p.l2 * cos_phi);
  return {theta, phi};
}

namespace {
// Rows `rows` of a [N,k] block (or of every one of the T [N,k] blocks of a [T,N,k] array); empty stays empty.
template <class T>
std::vector<T> gather_rows(const std::vector<T>& v, int64_t n, int64_t k, int64_t blocks, const std::vector<int64_t>& rows) {
  if (v.empty()) return {};
  std::vector<T> out;
  out.reserve(rows.size() * static_cast<size_t>(k * blocks));
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t r : rows)
      for (int64_t j = 0; j < k; ++j) out.push_back(v[static_cast<size_t>((b * n + r) * k + j)]);
  return out;
}

ReachBatch gather(const ReachBatch& all, const std::vector<int64_t>& rows) {
  const int64_t n = all.count;
  ReachBatch b;
  b.count = static_cast<int64_t>(rows.size());
  b.steps = all.steps;
  b.starts = gather_rows(all.starts, n, 4, 1, rows);
  b.targets = gather_rows(all.targets, n, 4, 1, rows);
  b.disturbance = gather_rows(all.disturbance, n, 2, 1, rows);
  b.hand_force = gather_rows(all.hand_force, n, 2, 1, rows);
  b.onset = gather_rows(all.onset, n, 1, 1, rows);
  b.command_noise = gather_rows(all.command_noise, n, 2, all.steps, rows);
  b.plant_noise = gather_rows(all.plant_noise, n, 4, all.steps, rows);
  return b;
}

std::vector<int64_t> range_of(int64_t first, int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), first);
  return rows;
}
}  // namespace

std::unique_ptr<Data> ReachBatch::slice(int64_t first, int64_t n) const {
  if (first < 0 || n < 0 || first + n > count)
    throw Error(fmt::format("reaches: slice [{}, {}) is outside the batch of {}", first, first + n, count));
  return std::make_unique<ReachBatch>(gather(*this, range_of(first, n)));
}

bool ReachBatch::same_as(const Data& other) const {
  const auto* o = dynamic_cast<const ReachBatch*>(&other);
  return o && o->count == count && o->steps == steps && o->starts == starts && o->targets == targets &&
         o->disturbance == disturbance && o->hand_force == hand_force && o->onset == onset &&
         o->command_noise == command_noise && o->plant_noise == plant_noise;
}

std::string ReachBatch::describe() const { return fmt::format("{} reaches", count); }

ReachBatch center_out_reaches(const CenterOutOptions& o) {
  if (o.reaches < 1 || o.steps < 1 || !(o.radius > 0) || !(o.alpha >= 0))
    throw Error(fmt::format("center-out: need reaches >= 1, steps >= 1, radius > 0, alpha >= 0 (got {}, {}, {}, {})",
                            o.reaches, o.steps, o.radius, o.alpha));
  const ArmParams& p = o.plant.arm;
  const auto [hx, hy] = hand_at(p, o.start_angles[0], o.start_angles[1]);
  ReachBatch b;
  b.count = o.reaches;
  b.steps = o.steps;
  for (int64_t k = 0; k < o.reaches; ++k) {
    const double a = 2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(o.reaches);
    const auto q = arm_inverse_kinematics(p, hx + o.radius * std::cos(a), hy + o.radius * std::sin(a));
    b.starts.insert(b.starts.end(), {o.start_angles[0], o.start_angles[1], 0.0, 0.0});
    b.targets.insert(b.targets.end(), {q[0], q[1], 0.0, 0.0});
  }
  return b;
}

ReachTask::ReachTask(Spec spec) : spec_(std::move(spec)) {
  check_arm(spec_.plant);
  if (spec_.cost.steps < 1) throw Error(fmt::format("task '{}': steps must be >= 1", spec_.name));
  if (!(spec_.cost.alpha >= 0)) throw Error(fmt::format("task '{}': alpha must be >= 0", spec_.name));
}

Signature ReachTask::signature() const {
  return {.symbolic_input = false, .input_dim = 8, .output = OutputKind::linear, .output_dim = 2};
}

int64_t ReachTask::num_cases() const { return spec_.fixed.count; }

ReachBatch ReachTask::fixed(const std::vector<int64_t>& rows) const { return gather(spec_.fixed, rows); }

std::unique_ptr<Data> ReachTask::cases(int64_t first, int64_t count) const {
  if (num_cases() == 0) return Dataset::cases(first, count);
  if (first < 0 || count < 1 || first + count > num_cases())
    throw Error(fmt::format("task '{}': reaches [{}, {}) are outside [0, {})", name(), first, first + count, num_cases()));
  return std::make_unique<ReachBatch>(fixed(range_of(first, count)));
}

std::unique_ptr<Data> ReachTask::draw(int64_t count, Rng& rng) const {
  if (count < 1) throw Error(fmt::format("task '{}': a batch needs at least 1 reach (got {})", name(), count));
  const int64_t n = num_cases();
  if (n > 0) {
    if (count > n)
      throw Error(fmt::format("task '{}' has {} reaches: a batch of {} would repeat some (set batch <= {})", name(), n,
                              count, n));
    std::vector<int64_t> rows = range_of(0, n);
    if (count < n) {  // a partial Fisher–Yates shuffle: `count` distinct reaches
      for (int64_t i = 0; i < count; ++i) std::swap(rows[static_cast<size_t>(i)], rows[static_cast<size_t>(uniform_int(rng, i, n - 1))]);
      rows.resize(static_cast<size_t>(count));
    }
    return std::make_unique<ReachBatch>(fixed(rows));
  }
  // DDN: random start and target at rest in the box of joint angles, a disturbance per reach that
  // switches on at a random step of the first half, and the command noise's draws.
  const int64_t T = spec_.cost.steps;
  auto b = std::make_unique<ReachBatch>();
  b->count = count;
  b->steps = T;
  auto angle = [&](const std::array<double, 2>& r) { return r[0] + (r[1] - r[0]) * uniform01(rng); };
  for (int64_t i = 0; i < count; ++i) {
    b->starts.insert(b->starts.end(), {angle(spec_.theta_range), angle(spec_.phi_range), 0.0, 0.0});
    b->targets.insert(b->targets.end(), {angle(spec_.theta_range), angle(spec_.phi_range), 0.0, 0.0});
    if (spec_.disturbance_sigma > 0) {
      b->disturbance.push_back(spec_.disturbance_sigma * standard_normal(rng));
      b->disturbance.push_back(spec_.disturbance_sigma * standard_normal(rng));
      b->onset.push_back(uniform_int(rng, 0, std::max<int64_t>(0, T / 2 - 1)));
    }
  }
  if (spec_.plant.command_noise > 0)
    for (int64_t k = 0; k < T * count * 2; ++k) b->command_noise.push_back(standard_normal(rng));
  if (spec_.plant.plant_noise > 0)
    for (int64_t k = 0; k < T * count * 4; ++k) b->plant_noise.push_back(standard_normal(rng));
  return b;
}

double ReachTask::score(const Data& d, const std::vector<Tensor>& outputs) const {
  const ReachBatch& b = data_as<ReachBatch>(d);
  const int64_t T = spec_.cost.steps, n = b.count;
  if (static_cast<int64_t>(outputs.size()) != 2 * T)
    throw Error(fmt::format("task '{}': expects {} outputs (the states x_1..x_T, then the torques), got {}", name(),
                            2 * T, outputs.size()));
  const ArmParams& p = spec_.plant.arm;
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto goal = hand_at(p, b.targets[static_cast<size_t>(i * 4)], b.targets[static_cast<size_t>(i * 4 + 1)]);
    auto distance_at = [&](int64_t t) {  // x_t's hand to the goal, in cm
      const Tensor& x = outputs[static_cast<size_t>(t - 1)];
      const auto h = hand_at(p, x.at(i * 4), x.at(i * 4 + 1));
      return 100 * std::hypot(h[0] - goal[0], h[1] - goal[1]);
    };
    if (spec_.cost.every_step) {
      double sum = 0;
      for (int64_t t = 1; t <= T; ++t) sum += distance_at(t);
      total += sum / static_cast<double>(T);
    } else {
      total += distance_at(T);
    }
  }
  return total / static_cast<double>(n);
}

double ReachTask::success_threshold() const { return -std::numeric_limits<double>::infinity(); }

double ReachTask::chance_level() const {
  // Without torques an arm at rest, unforced, stays where it starts: center-out's hands are then the
  // circle's radius from their targets.
  if (spec_.name == "center_out" && spec_.fixed.count > 0) {
    const ReachBatch& b = spec_.fixed;
    const ArmParams& p = spec_.plant.arm;
    double total = 0;
    for (int64_t i = 0; i < b.count; ++i) {
      const auto s = hand_at(p, b.starts[static_cast<size_t>(i * 4)], b.starts[static_cast<size_t>(i * 4 + 1)]);
      const auto g = hand_at(p, b.targets[static_cast<size_t>(i * 4)], b.targets[static_cast<size_t>(i * 4 + 1)]);
      total += 100 * std::hypot(s[0] - g[0], s[1] - g[1]);
    }
    return total / static_cast<double>(b.count);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

namespace {
// The options every reaching task has: horizon, energy weight, Euler step.
ArmOptions plant_of(const OptionReader& o) {
  ArmOptions a;
  a.dt = o.number("dt", 0, 1, true, false);
  if (o.has("delay")) a.feedback_delay = static_cast<int>(o.integer("delay", 0, 1000));
  return a;
}
ReachCost cost_of(const OptionReader& o, bool every_step) {
  return {.steps = o.size("steps"), .alpha = o.number("alpha", 0, 1e6), .every_step = every_step};
}

std::unique_ptr<ReachTask> center_out(const nlohmann::json& cfg) {
  const OptionReader o("task 'center_out'", cfg);
  CenterOutOptions c;
  c.steps = o.size("steps");
  c.reaches = o.size("reaches");
  c.radius = o.number("radius", 0, 0.5, true, false);
  c.alpha = o.number("alpha", 0, 1e6);
  c.plant = plant_of(o);
  ReachTask::Spec s{.name = "center_out", .plant = c.plant, .cost = cost_of(o, false)};
  s.fixed = center_out_reaches(c);
  return std::make_unique<ReachTask>(std::move(s));
}

// 9 postures (a 3 × 3 grid of joint angles around the center-out start) × 8 forces at the hand in 8
// directions; each reach starts at rest at its posture, which is also its target.
std::unique_ptr<ReachTask> postural(const nlohmann::json& cfg) {
  const OptionReader o("task 'postural'", cfg);
  ReachTask::Spec s{.name = "postural", .plant = plant_of(o), .cost = cost_of(o, true)};
  const int64_t side = o.size("postures_per_side"), forces = o.size("forces");
  const double spacing = o.number("spacing", 0, 1), force = o.number("force", 0, 1000);
  const double th0 = std::numbers::pi / 4, ph0 = std::numbers::pi / 2;
  ReachBatch& b = s.fixed;
  b.steps = s.cost.steps;
  for (int64_t i = 0; i < side; ++i)
    for (int64_t j = 0; j < side; ++j) {
      const double th = th0 + spacing * (static_cast<double>(i) - static_cast<double>(side - 1) / 2);
      const double ph = ph0 + spacing * (static_cast<double>(j) - static_cast<double>(side - 1) / 2);
      for (int64_t k = 0; k < forces; ++k) {
        const double a = 2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(forces);
        b.starts.insert(b.starts.end(), {th, ph, 0.0, 0.0});
        b.targets.insert(b.targets.end(), {th, ph, 0.0, 0.0});
        b.hand_force.insert(b.hand_force.end(), {force * std::cos(a), force * std::sin(a)});
        ++b.count;
      }
    }
  return std::make_unique<ReachTask>(std::move(s));
}

// DDN's parts: the training part is a fixed pool of `pool` reaches (0: fresh reaches every batch);
// the validation and test parts are `held_out` other reaches each, all drawn from `seed`.
std::unique_ptr<ReachTask> ddn(const nlohmann::json& cfg) {
  const OptionReader o("task 'ddn'", cfg);
  ReachTask::Spec s{.name = "ddn", .plant = plant_of(o), .cost = cost_of(o, false)};
  s.plant.command_noise = o.number("command_noise", 0, 10);
  s.disturbance_sigma = o.number("disturbance", 0, 100);
  s.theta_range = {0.0, std::numbers::pi / 2};
  s.phi_range = {std::numbers::pi / 4, 3 * std::numbers::pi / 4};
  const std::string part = o.choice("part", {"train", "valid", "test"});
  const int64_t pool = part == "train" ? o.count("pool") : o.size("held_out");
  if (pool > 0) {
    const ReachTask generator(s);
    Rng rng(static_cast<uint64_t>(o.count("seed")) * 3 + (part == "train" ? 0 : part == "valid" ? 1 : 2));
    s.fixed = data_as<ReachBatch>(*generator.draw(pool, rng));
  }
  return std::make_unique<ReachTask>(std::move(s));
}
}  // namespace

std::unique_ptr<ReachTask> make_reach_task(const std::string& name, const nlohmann::json& options) {
  if (name == "center_out") return center_out(options);
  if (name == "postural") return postural(options);
  if (name == "ddn") return ddn(options);
  return nullptr;
}

void register_reaching(std::vector<TaskInfo>& r) {
  const auto make = [](const char* name) {
    return [name](const nlohmann::json& cfg) -> std::unique_ptr<Dataset> { return make_reach_task(name, cfg); };
  };
  r.push_back({"center_out", "arm control: 64 reaches from one posture to targets on a 10 cm circle in 40 steps",
               "000 §3.4 (thesis §6.7.1)",
               {{"steps", 40}, {"reaches", 64}, {"radius", 0.10}, {"alpha", 1e-4}, {"dt", 0.01}},
               make("center_out")});
  r.push_back({"postural", "arm control: hold 9 postures against 8 constant hand forces, feedback 10 steps late",
               "000 §3.4 (thesis §6.7.2)",
               {{"steps", 100}, {"delay", 10}, {"postures_per_side", 3}, {"spacing", 0.3}, {"forces", 8},
                {"force", 2.0}, {"alpha", 1e-8}, {"dt", 0.01}},
               make("postural")});
  r.push_back({"ddn", "arm control: random reaches under delay (7 steps), disturbance and signal-dependent noise",
               "000 §3.4 (thesis §6.7.3)",
               {{"steps", 60}, {"delay", 7}, {"disturbance", 0.2}, {"command_noise", 0.1}, {"alpha", 1e-6},
                {"dt", 0.01}, {"part", "train"}, {"pool", 400}, {"held_out", 2000}, {"seed", 1}},
               make("ddn")});
}

}  // namespace tg::tasks
