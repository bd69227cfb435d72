#include "tools/run_checkpoint.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "core/error.h"
#include "core/json.h"
#include "core/npz.h"

namespace tg::cli {

std::string rng_to_string(const Rng& r) {
  std::ostringstream os;
  os << r;
  return os.str();
}
Rng rng_from_string(const std::string& s, const std::string& where) {
  Rng r;
  std::istringstream is(s);
  is >> r;
  if (is.fail()) throw Error(fmt::format("{}: corrupt RNG state", where));
  return r;
}

void save_checkpoint(const std::string& path, const Checkpoint& c, const ParamSet& layout) {
  std::vector<NpzEntry> e;
  for (int32_t i = 0; i < layout.count(); ++i) e.emplace_back("param/" + layout.name(ParamId{i}), c.theta.part(i));
  e.emplace_back("theta", c.theta.flat());
  e.emplace_back("iteration", std::vector<int64_t>{c.iteration});
  e.emplace_back("seconds", std::vector<double>{c.seconds});
  e.emplace_back("cpu_seconds", std::vector<double>{c.cpu_seconds});
  e.emplace_back("rng_state", std::string_view(c.rng_state));
  e.emplace_back("optimizer_scalars", std::string_view(c.optimizer_scalars.dump()));
  for (const auto& [name, v] : c.optimizer_vectors) e.emplace_back("optimizer/" + name, v.flat());
  if (c.best_theta) e.emplace_back("best_theta", c.best_theta->flat());
  std::string cfg = c.config.dump(), trainer = c.trainer.dump();
  e.emplace_back("config", std::string_view(cfg));
  e.emplace_back("trainer", std::string_view(trainer));
  write_npz(path, e);
}

nlohmann::json read_checkpoint_config(const std::string& path) {
  try {
    return parse_json(NpzArchive(path).bytes("config"), path + ": config");
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: corrupt JSON state: {}", path, e.what()));
  }
}

Checkpoint load_checkpoint(const std::string& path, const ParamSet& layout) {
  NpzArchive a(path);
  Checkpoint c;
  auto flat = [&](const std::string& name) {
    Tensor t = a.tensor(name);
    if (t.shape().rank() != 1 || t.size() != layout.numel())
      throw Error(fmt::format("{}: '{}' has {} values, the model has {} parameters", path, name, t.size(), layout.numel()));
    ParamVec v = layout.zeros_like();
    Tensor src = t.astype(layout.dtype());
    std::memcpy(v.flat().raw(), src.raw(), static_cast<size_t>(src.size()) * dtype_size(src.dtype()));
    return v;
  };
  c.theta = flat("theta");
  if (!c.theta.all_finite()) throw Error(fmt::format("{}: the parameters contain NaN or Inf", path));
  if (a.contains("best_theta")) {
    c.best_theta = flat("best_theta");
    if (!c.best_theta->all_finite()) throw Error(fmt::format("{}: 'best_theta' contains NaN or Inf", path));
  }
  auto it = a.int64s("iteration");
  if (it.size() != 1 || it[0] < 0) throw Error(fmt::format("{}: bad 'iteration'", path));
  c.iteration = it[0];
  // One finite, non-negative number (checkpoints written before the CPU budget existed have no
  // cpu_seconds: 0).
  auto seconds = [&](const char* name, bool optional) {
    if (optional && !a.contains(name)) return 0.0;
    const std::vector<double> v = a.doubles(name);
    if (v.size() != 1 || !std::isfinite(v[0]) || v[0] < 0)
      throw Error(fmt::format("{}: '{}' must be one finite number >= 0 (got {} value{}{})", path, name, v.size(),
                              v.size() == 1 ? "" : "s", v.size() == 1 ? fmt::format(": {}", v[0]) : ""));
    return v[0];
  };
  c.seconds = seconds("seconds", false);
  c.cpu_seconds = seconds("cpu_seconds", true);
  c.rng_state = a.bytes("rng_state");
  // The state must read back exactly as written: an empty, truncated or altered one is refused here,
  // not discovered as a different run.
  if (rng_to_string(rng_from_string(c.rng_state, path + ": 'rng_state'")) != c.rng_state)
    throw Error(fmt::format("{}: 'rng_state' is not a random-number generator state written by tapegrad", path));
  try {
    c.optimizer_scalars = parse_json(a.bytes("optimizer_scalars"), path + ": optimizer_scalars");
    c.config = parse_json(a.bytes("config"), path + ": config");
    if (a.contains("trainer")) c.trainer = parse_json(a.bytes("trainer"), path + ": trainer");
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: corrupt JSON state: {}", path, e.what()));
  }
  if (!c.trainer.is_object()) throw Error(fmt::format("{}: 'trainer' must be a JSON object", path));
  if (!c.optimizer_scalars.is_object()) throw Error(fmt::format("{}: 'optimizer_scalars' must be a JSON object", path));
  for (const auto& [key, v] : c.optimizer_scalars.items()) {
    const bool counter = key == "step" || key == "updates" || key == "sequences";
    // the optimizer's own restore checks each value's range (HF: lambda >= 0)
    const bool ok = counter ? v.is_number_integer() && v.get<int64_t>() >= 0 : v.is_number() && std::isfinite(v.get<double>());
    if (!ok)
      throw Error(fmt::format("{}: optimizer state '{}' must be {} (got {})", path, key,
                              counter ? "an integer >= 0" : "a finite number", v.dump()));
  }
  for (const auto& [name, entry] : a.entries()) {
    if (name.rfind("optimizer/", 0) == 0) {
      ParamVec v = flat(name);
      if (!v.all_finite()) throw Error(fmt::format("{}: '{}' contains NaN or Inf", path, name));
      c.optimizer_vectors.emplace_back(name.substr(10), std::move(v));
    }
  }
  // param/<name> repeats theta for readers such as numpy: the two must agree, bit for bit.
  for (int32_t i = 0; i < layout.count(); ++i) {
    const std::string key = "param/" + layout.name(ParamId{i});
    if (!a.contains(key)) throw Error(fmt::format("{}: no array '{}'", path, key));
    const Tensor t = a.tensor(key).astype(layout.dtype());
    const Tensor part = c.theta.part(i);
    if (t.shape() != part.shape())
      throw Error(fmt::format("{}: '{}' has shape {}, its part of 'theta' {}", path, key, t.shape().str(),
                              part.shape().str()));
    if (std::memcmp(t.raw(), part.raw(), static_cast<size_t>(t.size()) * dtype_size(t.dtype())) != 0)
      throw Error(fmt::format("{}: '{}' {} holds other values than its part of 'theta'", path, key, t.shape().str()));
  }
  return c;
}

}  // namespace tg::cli
