// Data parallelism inside one process: an Objective whose every evaluation splits the batch's sequences
// into contiguous shards, one per thread, each evaluated by its own replica of the objective (its own
// model and graph: nothing is shared between threads but θ and the batch, read-only), and combines the
// shards' values and products as DistributedObjective combines ranks (optim/distributed.h: weights
// W_r / W, in double, in shard order). Results are therefore bit-identical from run to run at a given
// thread count, and equal one thread's to rounding, except where a model draws its own random numbers
// from a batch's sample_seed (temporal RBMs' Gibbs chains, gated models' corruption): a shard's slice
// gets a seed of its own, so those differ with the thread count. Constructing one makes the BLAS
// single-threaded (blas::set_threads(1)): the threads split the batch instead.
#pragma once
#include <memory>
#include <vector>

#include "core/fork_join.h"
#include "optim/objective.h"

namespace tg::optim {

class ThreadedObjective : public Objective {
 public:
  // replicas[0] answers params(), weight(), cost() and draws the noise; every replica must be the same
  // objective (built from the same config) and outlive this object. One thread per replica.
  // Evaluations it returns must not outlive the replicas (their graphs read the replicas' models).
  explicit ThreadedObjective(std::vector<Objective*> replicas);
  ThreadedObjective(const ThreadedObjective&) = delete;
  ThreadedObjective& operator=(const ThreadedObjective&) = delete;
  const ParamSet& params() const override { return replicas_[0]->params(); }
  std::unique_ptr<Evaluation> evaluate(const ParamVec& theta, const Data& b) override;
  double value(const ParamVec& theta, const Data& b) override;
  int64_t cost(const Data& b) const override { return replicas_[0]->cost(b); }
  double weight(const Data& b) const override { return replicas_[0]->weight(b); }
  void draw_noise(Data& b, Rng& rng) override { replicas_[0]->draw_noise(b, rng); }
  void at_iteration(int64_t it) override {
    for (Objective* r : replicas_) r->at_iteration(it);
  }
  int threads() const { return static_cast<int>(replicas_.size()); }

 private:
  std::vector<Objective*> replicas_;
  std::shared_ptr<ForkJoin> pool_;  // shared with the evaluations it returns
};

}  // namespace tg::optim
