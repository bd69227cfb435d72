// ParamBuilder: adds a model's parameters under its name scope ("lstm/W_gx") and picks each weight
// matrix's initializer from the model's init options by its role (input, recurrent or other).
#pragma once
#include <cstdint>
#include <string>

#include "core/params.h"
#include "models/init.h"

namespace tg::models {

class ParamBuilder {
 public:
  ParamBuilder(ParamSet& ps, std::string scope, init::InitOptions opt, Rng& rng)
      : ps_(&ps), scope_(std::move(scope)), opt_(std::move(opt)), rng_(&rng) {}

  // The same builder one scope deeper: "stacked_mrnn" -> "stacked_mrnn/l2".
  ParamBuilder scoped(const std::string& sub) const;

  // Weight matrices [rows, cols]; `blocks` > 1 marks a fused matrix of equal column blocks (gates),
  // each initialised on its own.
  ParamId input(const std::string& name, int64_t rows, int64_t cols, int64_t blocks = 1);      // × input_scale
  ParamId recurrent(const std::string& name, int64_t rows, int64_t cols, int64_t blocks = 1);  // square blocks
  ParamId output(const std::string& name, int64_t rows, int64_t cols);                          // × output_scale
  ParamId weight(const std::string& name, int64_t rows, int64_t cols, int64_t blocks = 1);     // any other
  // Anything else (biases, peepholes, initial states) with an explicit initializer.
  ParamId add(const std::string& name, const Shape& shape, const Init& init);

  // The recurrent-matrix initializer for one n×n block (recurrent_init, then spectral_radius).
  Init recurrent_init() const;

  ParamSet& params() const { return *ps_; }
  DType dtype() const { return ps_->dtype(); }
  const std::string& scope() const { return scope_; }
  const init::InitOptions& options() const { return opt_; }
  Rng& rng() const { return *rng_; }

 private:
  std::string full(const std::string& name) const { return scope_.empty() ? name : scope_ + "/" + name; }
  // The init scheme's draws times `factor` (no rescaling at 1), per block.
  ParamId scaled_weight(const std::string& name, int64_t rows, int64_t cols, int64_t blocks, double factor);
  ParamSet* ps_;
  std::string scope_;
  init::InitOptions opt_;
  Rng* rng_;
};

}  // namespace tg::models
