// Run under mpirun with 2 or more ranks (tests/CMakeLists.txt uses 3): the communicator's rank-ordered
// sum, and a DistributedObjective against the same objective evaluated on the whole batch by every rank.
// Only non-fatal EXPECTs after the first check: every rank must reach every collective.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "models/model.h"
#include "models/objective.h"
#include "optim/communicator.h"
#include "optim/distributed.h"
#include "tasks/task.h"

namespace tg::optim {
using tasks::Batch;
namespace {

// Rank r's buffer: values of mixed signs and magnitudes, so that the order of addition matters
// (floating-point addition is commutative but not associative: with 3+ ranks orders can differ).
std::vector<double> contribution(int rank, size_t n) {
  std::mt19937_64 rng(1000 + rank);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-8, 8);
  std::vector<double> x(n);
  for (double& v : x) v = u(rng) * std::pow(10.0, e(rng));
  const double first[3] = {1e16, 1.0, -1e16};  // rank order: (1e16 + 1) - 1e16 = 0; other orders give 1 or 2
  x[0] = rank < 3 ? first[rank] : 0.0;
  return x;
}

TEST(OrderedSum, AddsInRankOrderBitwiseTheSameOnEveryRankAndEveryCall) {
  Communicator& comm = world();
  ASSERT_GE(comm.size(), 2) << "run this test under mpirun with 2 or more ranks";
  const size_t n = 10007;
  std::vector<double> expected = contribution(0, n);
  for (int r = 1; r < comm.size(); ++r) {
    std::vector<double> x = contribution(r, n);
    for (size_t i = 0; i < n; ++i) expected[i] += x[i];
  }
  std::vector<double> a = contribution(comm.rank(), n), b = a;
  comm.sum(a);
  comm.sum(b);
  size_t wrong = 0, unrepeatable = 0;
  for (size_t i = 0; i < n; ++i) {
    wrong += std::memcmp(&a[i], &expected[i], sizeof(double)) != 0;
    unrepeatable += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
  }
  EXPECT_EQ(wrong, 0u) << "on rank " << comm.rank() << ": elements that differ from the rank-ordered sum";
  EXPECT_EQ(unrepeatable, 0u) << "on rank " << comm.rank() << ": elements that differ between two identical sums";
  if (comm.size() >= 3) {
    EXPECT_EQ(a[0], 0.0) << "(1e16 + 1) - 1e16 in rank order is 0";
  }
  // every rank holds rank 0's bits
  std::vector<double> root = a;
  comm.broadcast(root, 0);
  EXPECT_EQ(std::memcmp(root.data(), a.data(), n * sizeof(double)), 0) << "rank " << comm.rank();
}

TEST(OrderedSum, BroadcastFromEveryRoot) {
  Communicator& comm = world();
  for (int root = 0; root < comm.size(); ++root) {
    double v[2] = {comm.rank() * 1.5, -double(comm.rank())};
    comm.broadcast(v, root);
    EXPECT_EQ(v[0], root * 1.5);
    EXPECT_EQ(v[1], -double(root));
  }
  comm.barrier();
}

TEST(DistributedObjective, ShardsPartitionTheBatch) {
  for (int64_t n : {0, 1, 2, 5, 100, 101}) {
    for (int size : {1, 2, 3, 7}) {
      int64_t next = 0;
      for (int r = 0; r < size; ++r) {
        auto [first, count] = DistributedObjective::shard(n, r, size);
        EXPECT_EQ(first, next);
        EXPECT_LE(count, n / size + 1);
        EXPECT_GE(count, n / size);
        next = first + count;
      }
      EXPECT_EQ(next, n);
    }
  }
}

// Value, gradient and every curvature product of the distributed objective equal the whole batch's
// (float64: to rounding), on a task with variable lengths and loss masks, shards of unequal size and
// unequal loss weight per sequence.
void check_matches_whole_batch(int64_t batch_size) {
  Communicator& comm = world();
  auto task = tasks::make("addition", {{"T", 12}});
  const tasks::Signature sig = task->signature();
  const models::ModelInfo& info = models::find("rnn");
  nlohmann::json opts = models::resolve(info, {{"in", sig.input_dim}, {"out", sig.output_dim}, {"output", "linear"}, {"vocab", 0},
                                               {"hidden", 8}});
  Rng init(5);
  models::ModelObjective obj(info.make(opts, DType::f64, init),
                             models::objective_options_from_json({{"fisher", true}, {"structural", "tanh"}}));
  Rng data(9);
  Batch b = task->sample(batch_size, data);  // every rank draws the same batch
  // Targets at every step of the first sequences (addition has one per sequence): the shards then carry
  // loss weights out of proportion to their sequence counts, which the Fisher combination must handle.
  for (size_t t = 0; t < b.targets.mask.size(); ++t)
    for (int64_t s = 0; s < std::min<int64_t>(4, b.size()); ++s)
      if (b.inputs.mask.empty() || b.inputs.mask[t].at(s) != 0) b.targets.mask[t].data<float>()[s] = 1;
  ParamVec theta = obj.params().values().clone();
  Rng vr(11);
  ParamVec v = ParamVec::random_normal(theta.layout(), DType::f64, vr);

  auto whole = obj.evaluate(theta, b);
  DistributedObjective dist(obj, comm);
  auto part = dist.evaluate(theta, b);
  auto near = [&](const ParamVec& x, const ParamVec& y, const char* what) {
    const double err = x.clone().axpy(-1.0, y).norm(), scale = y.norm();
    EXPECT_LE(err, 1e-12 * std::max(1.0, scale)) << what << " on rank " << comm.rank() << ", batch " << batch_size
                                                 << ": |difference| " << err << ", |whole batch| " << scale;
  };
  EXPECT_NEAR(part->value(), whole->value(), 1e-13 * std::abs(whole->value())) << "batch " << batch_size;
  EXPECT_NEAR(dist.value(theta, b), whole->value(), 1e-13 * std::abs(whole->value()));
  near(part->grad(), whole->grad(), "gradient");
  near(part->gnvp(v), whole->gnvp(v), "Gauss-Newton product");
  EXPECT_TRUE(whole->has_structural());
  EXPECT_EQ(part->has_structural(), whole->has_structural());
  if (whole->has_structural()) {
    near(part->structural_gnvp(v), whole->structural_gnvp(v), "structural product");
    near(part->gnvp_structural(v, 0.3), whole->gnvp_structural(v, 0.3), "damped Gauss-Newton product");
  }
  near(part->hvp(v), whole->hvp(v), "Hessian product");
  near(part->fisher_vp(v), whole->fisher_vp(v), "empirical Fisher product");
}

TEST(DistributedObjective, MatchesTheWholeBatch) { check_matches_whole_batch(29); }
TEST(DistributedObjective, MatchesTheWholeBatchWhenSomeRanksHaveNoSequences) { check_matches_whole_batch(1); }

}  // namespace
}  // namespace tg::optim
