// RematEvaluation: an Evaluation over an ad::Remat computation (core/remat.h), for
// long sequences whose full tape would not fit: the forward pass keeps only segment-boundary states,
// and every gradient or curvature product recomputes one segment at a time.
#pragma once
#include <memory>
#include <optional>

#include "core/remat.h"
#include "optim/objective.h"

namespace tg::optim {

class RematEvaluation : public Evaluation {
 public:
  // Block indices into the segments' SegmentBuilt::blocks: the Gauss-Newton block, and optionally
  // the structural-damping block.
  RematEvaluation(std::unique_ptr<ad::Remat> c, size_t curvature_block,
                         std::optional<size_t> structural_block);
  double value() const override { return c_->value(); }
  ParamVec grad() override { return c_->grad(); }
  ParamVec gnvp(const ParamVec& v) override { return c_->gnvp(v, curvature_); }
  ParamVec structural_gnvp(const ParamVec& v) override;
  ParamVec hvp(const ParamVec& v) override { return c_->hvp(v); }
  ParamVec fisher_vp(const ParamVec& v) override;
  bool has_structural() const override { return structural_.has_value(); }
  std::vector<Tensor> output_values() const override;
  ad::Remat& remat() { return *c_; }

 private:
  std::unique_ptr<ad::Remat> c_;
  size_t curvature_;
  std::optional<size_t> structural_;
};

}  // namespace tg::optim
