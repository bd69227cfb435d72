// Base of the synthetic tasks: a generator of one unpadded Example at a time; sample() draws B of
// them in order from the RNG and pads them into a batch (so a dump of N sequences is exactly
// sample(N) with the same seed, however it is chunked).
#pragma once
#include <string>
#include <utility>

#include "tasks/example.h"

namespace tg::tasks {

class GeneratedTask : public Task {
 public:
  GeneratedTask(std::string name, Signature sig) : name_(std::move(name)), sig_(std::move(sig)) {}
  const std::string& name() const override { return name_; }
  Signature signature() const override { return sig_; }
  Batch sample(int64_t batch, Rng& rng) const override;
  virtual Example generate(Rng& rng) const = 0;

 protected:
  std::string name_;
  Signature sig_;
};

}  // namespace tg::tasks
