// Typed reads of a model's resolved JSON options, with one clear error line per bad value
// ("model 'rnn': option 'hidden' must be a positive integer (got "abc")") instead of a JSON exception.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tg::models {

class OptionReader {
 public:
  OptionReader(std::string model, const nlohmann::json& cfg) : model_(std::move(model)), cfg_(cfg) {}

  const std::string& model() const { return model_; }
  const nlohmann::json& json() const { return cfg_; }
  bool has(const std::string& key) const { return cfg_.contains(key); }

  int64_t size(const std::string& key) const;   // an integer >= 1
  int64_t count(const std::string& key) const;  // an integer >= 0
  double number(const std::string& key) const;
  bool flag(const std::string& key) const;
  std::string choice(const std::string& key, std::initializer_list<const char*> allowed) const;
  // A list of sizes >= 1 ([150, 130, 110]); a single integer is read as a one-element list.
  std::vector<int64_t> sizes(const std::string& key) const;

  // Throws tg::Error "model '<model>': <what>".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const nlohmann::json& at(const std::string& key) const;
  std::string model_;
  const nlohmann::json& cfg_;
};

}  // namespace tg::models
