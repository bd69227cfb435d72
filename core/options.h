// Options as JSON: user values merged over defaults, and typed reads with one clear error line per
// bad value. The one reader of tasks, optimizers, models and objectives; `who` names the owner in
// every message ("task 'addition'", "model 'rnn'", "adam"):
//   task 'addition': option 'T' must be an integer in [10, 10000000] (got 5)
//   model 'rnn': unknown option 'hiden' (options: hidden, activation, ...)
#pragma once
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tg {

// `user` over `defaults`. An unknown key is a tg::Error listing the known ones; with check_kinds, so
// is a value of another JSON kind than its default (any number for a number: "T": "50" is caught by
// name here). A null `user` gives the defaults.
nlohmann::json merge_options(std::string_view who, const nlohmann::json& defaults, const nlohmann::json& user,
                             bool check_kinds = false);

class OptionReader {
 public:
  OptionReader(std::string who, const nlohmann::json& resolved) : who_(std::move(who)), j_(resolved) {}

  const std::string& who() const { return who_; }
  const nlohmann::json& json() const { return j_; }
  bool has(const std::string& key) const { return j_.contains(key); }

  // An integer in [lo, hi]; an integral float (100.0 from some JSON writers) counts.
  int64_t integer(const std::string& key, int64_t lo, int64_t hi = std::numeric_limits<int64_t>::max()) const;
  int64_t size(const std::string& key) const;   // an integer >= 1
  int64_t count(const std::string& key) const;  // an integer >= 0
  double number(const std::string& key) const;  // any finite number
  // A finite number in [lo, hi]; lo_open / hi_open make that end open.
  double number(const std::string& key, double lo, double hi, bool lo_open = false, bool hi_open = false) const;
  std::vector<double> numbers(const std::string& key, size_t count, double lo, double hi) const;
  bool flag(const std::string& key) const;
  std::string string(const std::string& key) const;
  std::string choice(const std::string& key, std::initializer_list<const char*> allowed) const;
  std::string choice(const std::string& key, const std::vector<const char*>& allowed) const;
  // A list of sizes >= 1 ([150, 130, 110]); a single integer is read as a one-element list.
  std::vector<int64_t> sizes(const std::string& key) const;

  // Throw tg::Error "<who>: <what>" and "<who>: option '<key>' <what>".
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  const nlohmann::json& at(const std::string& key) const;
  std::string who_;
  const nlohmann::json& j_;
};

}  // namespace tg
