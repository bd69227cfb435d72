#include "optim/remat_evaluation.h"

#include "core/error.h"

namespace tg::optim {

RematEvaluation::RematEvaluation(std::unique_ptr<ad::Remat> c, size_t curvature_block,
                                               std::optional<size_t> structural_block)
    : c_(std::move(c)), curvature_(curvature_block), structural_(structural_block) {
  if (!c_) throw Error("remat evaluation: no computation");
}

ParamVec RematEvaluation::structural_gnvp(const ParamVec& v) {
  if (!structural_) throw Error("structural damping: this objective has no structural block (no tagged pre-activations)");
  return c_->gnvp(v, *structural_);
}

ParamVec RematEvaluation::fisher_vp(const ParamVec&) {
  throw Error("empirical Fisher: not available with remat_segments (its head is not a sum over segments)");
}

std::vector<Tensor> RematEvaluation::output_values() const {
  std::vector<Tensor> out;
  for (const Tensor& t : c_->outputs()) out.push_back(t.astype(DType::f64));
  return out;
}

}  // namespace tg::optim
