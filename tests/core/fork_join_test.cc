// ForkJoin (core/fork_join.h): every index runs once per run, on distinct threads at once, the first
// error by index is rethrown after all have finished, and runs with fewer indices than workers work.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/fork_join.h"

namespace tg {
namespace {

TEST(ForkJoin, RunsEveryIndexOnceOnItsOwnThread) {
  std::atomic<int> started{0};
  ForkJoin pool([&] { started++; });
  for (int round = 0; round < 50; ++round)
    for (int n : {1, 4, 2, 3}) {
      std::vector<int> calls(static_cast<size_t>(n), 0);
      std::vector<std::thread::id> ids(static_cast<size_t>(n));
      pool.run(n, [&](int i) {
        calls[static_cast<size_t>(i)]++;
        ids[static_cast<size_t>(i)] = std::this_thread::get_id();
      });
      EXPECT_EQ(calls, std::vector<int>(static_cast<size_t>(n), 1));
      EXPECT_EQ(ids[0], std::this_thread::get_id());  // index 0 on the caller
      EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), static_cast<size_t>(n));
    }
  EXPECT_EQ(started.load(), 3);  // three workers, each started once
}

TEST(ForkJoin, RethrowsTheFirstErrorByIndexAfterAllFinish) {
  ForkJoin pool;
  std::atomic<int> finished{0};
  try {
    pool.run(3, [&](int i) {
      finished++;
      if (i > 0) throw std::runtime_error("shard " + std::to_string(i));
    });
    FAIL() << "no error reached the caller";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "shard 1");
  }
  EXPECT_EQ(finished.load(), 3);
  int ran = 0;
  pool.run(3, [&](int i) { if (i == 0) ran++; });
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace tg
