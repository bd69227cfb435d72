#include "tools/early_stopping.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace tg::cli {

bool EarlyStopping::observe(double error, int64_t iteration) {
  if (error < best_error_) {  // a NaN error is never the best
    best_error_ = error;
    best_iteration_ = iteration;
    since_best_ = 0;
    return true;
  }
  ++since_best_;
  return false;
}

nlohmann::json EarlyStopping::state() const {
  if (best_iteration_ == 0 && since_best_ == 0) return nlohmann::json::object();
  nlohmann::json s = {{"best_iteration", best_iteration_}, {"since_best", since_best_}};
  if (std::isfinite(best_error_)) s["best_error"] = best_error_;  // JSON has no infinity
  return s;
}

void EarlyStopping::restore(const nlohmann::json& s, const std::string& where) {
  *this = EarlyStopping(patience_);
  if (s.empty()) return;
  auto integer = [&](const char* key) {
    if (!s.contains(key) || !s[key].is_number_integer() || s[key].get<int64_t>() < 0)
      throw Error(fmt::format("{}: early-stopping state '{}' must be an integer >= 0 (got {})", where, key,
                              s.contains(key) ? s[key].dump() : "nothing"));
    return s[key].get<int64_t>();
  };
  best_iteration_ = integer("best_iteration");
  since_best_ = integer("since_best");
  if (s.contains("best_error")) {
    if (!s["best_error"].is_number() || !std::isfinite(s["best_error"].get<double>()))
      throw Error(fmt::format("{}: early-stopping state 'best_error' must be a finite number (got {})", where,
                              s["best_error"].dump()));
    best_error_ = s["best_error"].get<double>();
  }
}

}  // namespace tg::cli
