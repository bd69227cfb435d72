// Data parallelism: an Objective whose every evaluation is spread over the ranks of a Communicator.
// Every rank holds the same θ and the same (global) batch; rank r evaluates only its contiguous shard
// of the batch's sequences, and each quantity is combined into the global batch's value with the
// deterministic sum of optim/communicator.h:
//   value, gradient, Gauss-Newton / Hessian / structural products:  Σ_r (W_r / W) x_r
//     (each x_r is a mean over its shard's W_r loss weight, W = Σ_r W_r: the mean over the batch)
//   empirical Fisher products:  Σ_r (N W_r²) / (N_r W²) F_r  (the block's N/2W² normalisation, objective.h)
// so an optimizer sees, to rounding, what one process would see on the whole batch, and every rank
// sees bitwise the same numbers and so takes the same decisions (line searches, CG backtracking, λ).
// A rank whose shard is empty (a batch smaller than the job) contributes zeros.
//
// Exactness: the combination is exact for losses that are means over the loss weight. A graph
// regulariser that is a mean over sequences instead (the norm stabiliser) is combined with the
// weights W_r / W too, which is exact when every sequence carries the same weight (fixed-length or
// one-target tasks) and close otherwise: the same convention HF uses to evaluate a batch in chunks.
#pragma once
#include "optim/communicator.h"
#include "optim/objective.h"

namespace tg::optim {

// `values` (a combination summed in double) in `like`'s layout and dtype: the last step of every
// combination of shards or ranks (here and in optim/threaded_objective.cc).
ParamVec param_vec_of(std::span<const double> values, const ParamVec& like);

class DistributedObjective : public Objective {
 public:
  // Both must outlive this object.
  DistributedObjective(Objective& inner, Communicator& comm);
  const ParamSet& params() const override { return inner_.params(); }
  std::unique_ptr<Evaluation> evaluate(const ParamVec& theta, const Data& b) override;
  double value(const ParamVec& theta, const Data& b) override;
  // The global batch's: "sequences processed" counts the whole job's work, as one process would.
  int64_t cost(const Data& b) const override { return inner_.cost(b); }
  double weight(const Data& b) const override { return inner_.weight(b); }
  // Every rank draws the same global batch and the same noise from the same RNG state; slices share it.
  void draw_noise(Data& b, Rng& rng) override { inner_.draw_noise(b, rng); }
  void at_iteration(int64_t it) override { inner_.at_iteration(it); }

  // This rank's sequences [first, first + count) of a batch of n.
  static std::pair<int64_t, int64_t> shard(int64_t n, int rank, int size);

 private:
  Objective& inner_;
  Communicator& comm_;
};

}  // namespace tg::optim
