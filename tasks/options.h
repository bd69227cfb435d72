// Typed reads of a task's resolved JSON options: a bad value is one tg::Error line naming the task
// and the key ("task 'addition': option 'T' must be an integer >= 10 (got 5)").
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tg::tasks {

class OptionReader {
 public:
  OptionReader(std::string task, const nlohmann::json& cfg) : task_(std::move(task)), cfg_(cfg) {}

  int64_t integer(const std::string& key, int64_t lo, int64_t hi = INT64_MAX) const;
  double number(const std::string& key, double lo, double hi) const;
  std::string string(const std::string& key) const;
  std::string choice(const std::string& key, std::initializer_list<const char*> allowed) const;
  std::vector<double> numbers(const std::string& key, size_t count, double lo, double hi) const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  const nlohmann::json& at(const std::string& key) const;
  std::string task_;
  const nlohmann::json& cfg_;
};

}  // namespace tg::tasks
