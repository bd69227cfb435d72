#include "tools/run_config.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json.h"

namespace tg::cli {

nlohmann::json to_json(const RunConfig& c) {
  return {{"model", c.model},
          {"model_options", c.model_options},
          {"task", c.task},
          {"task_options", c.task_options},
          {"optimizer", c.optimizer},
          {"optimizer_options", c.optimizer_options},
          {"objective_options", c.objective_options},
          {"seed", c.seed},
          {"steps", c.steps},
          {"max_seconds", c.max_seconds},
          {"cpu_budget", c.cpu_budget},
          {"batch", c.batch},
          {"curvature_batch", c.curvature_batch},
          {"eval_every", c.eval_every},
          {"eval_batch", c.eval_batch},
          {"checkpoint_every", c.checkpoint_every},
          {"stop_on_success", c.stop_on_success},
          {"confirm_sequences", c.confirm_sequences},
          {"patience", c.patience},
          {"nan_rule", c.nan_rule},
          {"threads", c.threads},
          {"gemm", c.gemm},
          {"denormals", c.denormals},
          {"dtype", c.dtype}};
}

nlohmann::json run_identity(RunConfig c) {
  c.steps = 0;
  c.max_seconds = c.cpu_budget = 0;
  c.checkpoint_every = 0;
  return to_json(c);
}

namespace {
template <class T>
void take(const nlohmann::json& j, const char* key, T& out, const std::string& where) {
  if (!j.contains(key)) return;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann converts a float to an integer with a plain cast: "batch": 1e300 became INT64_MIN
    // (undefined behaviour). An integral float (100.0 from some JSON writers) counts, within T's range.
    using limits = std::numeric_limits<T>;
    const nlohmann::json& v = j.at(key);
    std::optional<T> x;
    if (v.is_number_unsigned()) {
      if (std::in_range<T>(v.get<uint64_t>())) x = static_cast<T>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      if (std::in_range<T>(v.get<int64_t>())) x = static_cast<T>(v.get<int64_t>());
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d == std::floor(d) && d >= static_cast<double>(limits::min()) && d < std::ldexp(1.0, limits::digits))
        x = static_cast<T>(d);
    }
    if (!x && v.is_number() && (v.is_number_integer() || v.get<double>() == std::floor(v.get<double>())))
      throw Error(fmt::format("{}: '{}' is out of range (got {}; the limits are [{}, {}])", where, key, v.dump(),
                              limits::min(), limits::max()));
    if (!x) throw Error(fmt::format("{}: '{}' must be a whole number (got {})", where, key, v.dump()));
    out = *x;
    return;
  }
  try {
    out = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("{}: '{}' has the wrong type ({})", where, key, j.at(key).dump()));
  }
}
void take_object(const nlohmann::json& j, const char* key, nlohmann::json& out, const std::string& where) {
  if (!j.contains(key)) return;
  if (!j.at(key).is_object()) throw Error(fmt::format("{}: '{}' must be a JSON object", where, key));
  out = j.at(key);
}
}  // namespace

RunConfig run_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw Error(fmt::format("{}: a run config must be a JSON object", where));
  RunConfig c;
  const nlohmann::json known = to_json(c);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.contains(it.key())) throw Error(fmt::format("{}: unknown key '{}'", where, it.key()));
  take(j, "model", c.model, where);
  take_object(j, "model_options", c.model_options, where);
  take(j, "task", c.task, where);
  take_object(j, "task_options", c.task_options, where);
  take(j, "optimizer", c.optimizer, where);
  take_object(j, "optimizer_options", c.optimizer_options, where);
  take_object(j, "objective_options", c.objective_options, where);
  take(j, "seed", c.seed, where);
  take(j, "steps", c.steps, where);
  take(j, "max_seconds", c.max_seconds, where);
  take(j, "cpu_budget", c.cpu_budget, where);
  take(j, "batch", c.batch, where);
  take(j, "curvature_batch", c.curvature_batch, where);
  take(j, "eval_every", c.eval_every, where);
  take(j, "eval_batch", c.eval_batch, where);
  take(j, "checkpoint_every", c.checkpoint_every, where);
  take(j, "stop_on_success", c.stop_on_success, where);
  take(j, "confirm_sequences", c.confirm_sequences, where);
  take(j, "patience", c.patience, where);
  take(j, "nan_rule", c.nan_rule, where);
  take(j, "threads", c.threads, where);
  take(j, "gemm", c.gemm, where);
  take(j, "denormals", c.denormals, where);
  take(j, "dtype", c.dtype, where);
  if (!c.gemm.empty() && c.gemm != "auto" && c.gemm != "openblas" && c.gemm != "onednn")
    throw Error(fmt::format("{}: 'gemm' must be auto, openblas or onednn, got \"{}\"", where, c.gemm));
  if (!c.denormals.empty() && c.denormals != "flush" && c.denormals != "keep")
    throw Error(fmt::format("{}: 'denormals' must be flush or keep, got \"{}\"", where, c.denormals));
  auto positive = [&](int64_t v, const char* key) {
    if (v <= 0) throw Error(fmt::format("{}: '{}' must be positive, got {}", where, key, v));
  };
  positive(c.batch, "batch");
  if (c.threads < 0) throw Error(fmt::format("{}: 'threads' must be >= 0 (0: every core), got {}", where, c.threads));
  if (c.steps < 0) throw Error(fmt::format("{}: 'steps' must be >= 0, got {}", where, c.steps));
  if (c.curvature_batch < 0 || c.curvature_batch > c.batch)
    throw Error(fmt::format("{}: 'curvature_batch' must be in [0, batch={}], got {}", where, c.batch, c.curvature_batch));
  auto non_negative = [&](double v, const char* key) {
    if (!(v >= 0)) throw Error(fmt::format("{}: '{}' must be >= 0, got {}", where, key, v));
  };
  non_negative(static_cast<double>(c.eval_every), "eval_every");
  non_negative(static_cast<double>(c.checkpoint_every), "checkpoint_every");
  non_negative(c.max_seconds, "max_seconds");
  non_negative(c.cpu_budget, "cpu_budget");
  positive(c.eval_batch, "eval_batch");
  if (c.confirm_sequences < 0)
    throw Error(fmt::format("{}: 'confirm_sequences' must be >= 0 (0: no confirmation), got {}", where,
                            c.confirm_sequences));
  if (c.patience < 0) throw Error(fmt::format("{}: 'patience' must be >= 0 (0: no early stopping), got {}", where, c.patience));
  if (c.patience > 0 && c.eval_every == 0)
    throw Error(fmt::format("{}: 'patience' counts validations, and eval_every is 0 (none): set eval_every", where));
  if (c.dtype != "float32" && c.dtype != "float64")
    throw Error(fmt::format("{}: 'dtype' must be float32 or float64, got '{}'", where, c.dtype));
  return c;
}

void apply_set(nlohmann::json& j, const std::string& assignment, const std::string& flag) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(fmt::format("{}: expected key=value, got '{}'", flag, assignment));
  std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  nlohmann::json value = set_value(text, flag + " " + key);
  nlohmann::json* at = &j;
  size_t start = 0;
  for (size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1) {
    std::string part = key.substr(start, dot - start);
    if (!at->contains(part)) (*at)[part] = nlohmann::json::object();
    at = &(*at)[part];
    if (!at->is_object()) throw Error(fmt::format("{} {}: '{}' is not an object", flag, assignment, part));
  }
  (*at)[key.substr(start)] = value;
}

nlohmann::json set_value(const std::string& text, const std::string& what) {
  nlohmann::json value = parse_json(text, what, /*allow_exceptions=*/false);
  if (!value.is_discarded()) return value;
  const size_t first = text.find_first_not_of(" \t\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[' || text[first] == '"')) {
    try {
      (void)parse_json(text, what);  // throws with the parser's position and reason
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: invalid JSON: {}", what, e.what()));
    }
  }
  return text;
}

nlohmann::json read_json_file(const std::string& path) {
  const std::string text = read_input_file(path, "config", kMaxJsonFileBytes);  // no FIFOs, devices or huge files
  try {
    return parse_json(text, path);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e400 (fuzz/run_config_fuzz)
    throw Error(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
}

}  // namespace tg::cli
