// ThreadedObjective (optim/threaded_objective.h): value, gradient and every curvature product equal
// the whole batch's on one thread (float64: to rounding), with shards of unequal size and loss weight
// and with more threads than sequences; two evaluations give the same bits; an error in a worker
// thread's shard reaches the caller.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "models/model.h"
#include "models/objective.h"
#include "optim/threaded_objective.h"
#include "tasks/task.h"

namespace tg::optim {
using tasks::Batch;
namespace {

std::unique_ptr<models::ModelObjective> addition_rnn(const tasks::Signature& sig) {
  const models::ModelInfo& info = models::find("rnn");
  const nlohmann::json opts = models::resolve(
      info, {{"in", sig.input_dim}, {"out", sig.output_dim}, {"output", "linear"}, {"vocab", 0}, {"hidden", 8}});
  Rng init(5);
  return std::make_unique<models::ModelObjective>(
      info.make(opts, DType::f64, init), models::objective_options_from_json({{"fisher", true}, {"structural", "tanh"}}));
}

bool same_bits(const ParamVec& a, const ParamVec& b) {
  return a.size() == b.size() && std::memcmp(a.flat().data<double>(), b.flat().data<double>(),
                                              static_cast<size_t>(a.size()) * sizeof(double)) == 0;
}

void check_matches_whole_batch(int64_t batch_size, int threads) {
  auto task = tasks::make("addition", {{"T", 12}});
  std::vector<std::unique_ptr<models::ModelObjective>> objectives;
  std::vector<Objective*> replicas;
  for (int t = 0; t < threads; ++t) replicas.push_back(objectives.emplace_back(addition_rnn(task->signature())).get());
  Rng data(9);
  Batch b = dynamic_cast<const tasks::Task&>(*task).sample(batch_size, data);
  // targets at every step of the first sequences: shards carry loss weights out of proportion to
  // their sequence counts, which the Fisher combination must handle
  for (size_t t = 0; t < b.targets.mask.size(); ++t)
    for (int64_t s = 0; s < std::min<int64_t>(4, b.size()); ++s)
      if (b.inputs.mask.empty() || b.inputs.mask[t].at(s) != 0) b.targets.mask[t].data<float>()[s] = 1;
  Objective& one = *objectives[0];
  const ParamVec theta = one.params().values().clone();
  Rng vr(11);
  const ParamVec v = ParamVec::random_normal(theta.layout(), DType::f64, vr);

  auto whole = one.evaluate(theta, b);
  ThreadedObjective threaded(replicas);
  auto part = threaded.evaluate(theta, b);
  const std::string where = "batch " + std::to_string(batch_size) + ", " + std::to_string(threads) + " threads";
  auto near = [&](const ParamVec& x, const ParamVec& y, const char* what) {
    const double err = x.clone().axpy(-1.0, y).norm(), scale = y.norm();
    EXPECT_LE(err, 1e-12 * std::max(1.0, scale)) << what << ", " << where << ": |difference| " << err;
  };
  EXPECT_NEAR(part->value(), whole->value(), 1e-13 * std::abs(whole->value())) << where;
  EXPECT_NEAR(threaded.value(theta, b), whole->value(), 1e-13 * std::abs(whole->value())) << where;
  near(part->grad(), whole->grad(), "gradient");
  near(part->gnvp(v), whole->gnvp(v), "Gauss-Newton product");
  ASSERT_TRUE(part->has_structural());
  near(part->structural_gnvp(v), whole->structural_gnvp(v), "structural product");
  near(part->gnvp_structural(v, 0.3), whole->gnvp_structural(v, 0.3), "damped Gauss-Newton product");
  near(part->hvp(v), whole->hvp(v), "Hessian product");
  near(part->fisher_vp(v), whole->fisher_vp(v), "empirical Fisher product");
  // the same bits every time: a fixed combination order
  auto again = threaded.evaluate(theta, b);
  EXPECT_TRUE(same_bits(again->grad(), part->grad())) << where;
  EXPECT_TRUE(same_bits(again->gnvp(v), part->gnvp(v))) << where;
}

TEST(ThreadedObjective, MatchesTheWholeBatch) {
  for (int threads : {2, 3}) check_matches_whole_batch(29, threads);
}
TEST(ThreadedObjective, MatchesTheWholeBatchWithMoreThreadsThanSequences) { check_matches_whole_batch(2, 3); }

// The second shard's replica: the same objective, whose evaluations fail while `fail` is set.
class FailingReplica : public Objective {
 public:
  explicit FailingReplica(Objective& inner) : inner_(inner) {}
  const ParamSet& params() const override { return inner_.params(); }
  std::unique_ptr<Evaluation> evaluate(const ParamVec& theta, const Data& b) override {
    if (fail) throw Error("the worker's shard failed");
    return inner_.evaluate(theta, b);
  }
  double weight(const Data& b) const override { return inner_.weight(b); }
  bool fail = true;

 private:
  Objective& inner_;
};

TEST(ThreadedObjective, AnErrorInAWorkersShardReachesTheCaller) {
  auto task = tasks::make("addition", {{"T", 12}});
  auto a = addition_rnn(task->signature()), c = addition_rnn(task->signature());
  FailingReplica second(*c);
  ThreadedObjective threaded({a.get(), &second});
  Rng data(9);
  const Batch b = dynamic_cast<const tasks::Task&>(*task).sample(6, data);
  const ParamVec theta = a->params().values().clone();
  try {
    threaded.evaluate(theta, b);
    FAIL() << "the failure on the worker thread was lost";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the worker's shard failed");
  }
  second.fail = false;
  EXPECT_NO_THROW(threaded.evaluate(theta, b)->grad());  // and the pool still works
}

}  // namespace
}  // namespace tg::optim
