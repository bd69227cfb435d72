// Early stopping with patience (Krueger §5.4.2: stop after 25 epochs without a better development-set
// score): the trainer reports every validation here; once `patience` of them in a row found no lower
// error than the best so far, the run stops and the best parameters (DIR/best.npz) are the result.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace tg::cli {

class EarlyStopping {
 public:
  explicit EarlyStopping(int64_t patience) : patience_(patience) {}
  bool enabled() const { return patience_ > 0; }
  // A validation at `iteration` (1-based) scored `error` (lower is better); true when it is the best
  // so far, strictly (a tie does not reset the count).
  bool observe(double error, int64_t iteration);
  bool exhausted() const { return enabled() && since_best_ >= patience_; }
  double best_error() const { return best_error_; }
  int64_t best_iteration() const { return best_iteration_; }
  int64_t since_best() const { return since_best_; }
  // What a checkpoint keeps ({} before the first validation); restore checks it and names `where`.
  nlohmann::json state() const;
  void restore(const nlohmann::json& s, const std::string& where);

 private:
  int64_t patience_;
  double best_error_ = std::numeric_limits<double>::infinity();
  int64_t best_iteration_ = 0, since_best_ = 0;
};

}  // namespace tg::cli
