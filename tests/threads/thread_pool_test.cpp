// The CPU thread pool: every task once, for any thread count, nested and from many callers.

#include "backend/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace openaclnn::cpu {
namespace {

class ThreadPoolTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { SetNumThreads(GetParam()); }
  void TearDown() override { SetNumThreads(0); }
};

TEST_P(ThreadPoolTest, RunsEveryTaskExactlyOnce) {
  for (int64_t n : {0, 1, 2, 3, 17, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    ParallelFor(n, [&](int64_t t) { ++hits[static_cast<size_t>(t)]; });
    for (int64_t t = 0; t < n; ++t) ASSERT_EQ(hits[static_cast<size_t>(t)].load(), 1) << n;
  }
  EXPECT_EQ(NumThreads(), GetParam());
}

TEST_P(ThreadPoolTest, NestedCallsFinish) {
  std::atomic<int64_t> sum{0};
  ParallelFor(
      8, [&](int64_t outer) { ParallelFor(8, [&](int64_t inner) { sum += outer * 8 + inner; }); });
  EXPECT_EQ(sum.load(), 63 * 64 / 2);
}

TEST_P(ThreadPoolTest, ManyCallersAtOnce) {
  std::vector<std::thread> callers;
  std::vector<int64_t> sums(6, 0);
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([&sums, c] {
      for (int rep = 0; rep < 20; ++rep) {
        std::vector<int64_t> parts(64, 0);
        ParallelFor(64, [&](int64_t t) { parts[static_cast<size_t>(t)] = t; });
        for (int64_t p : parts) sums[static_cast<size_t>(c)] += p;
      }
    });
  }
  for (auto& t : callers) t.join();
  for (int64_t s : sums) EXPECT_EQ(s, 20 * 63 * 64 / 2);
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(1, 2, 3, 8));

}  // namespace
}  // namespace openaclnn::cpu
