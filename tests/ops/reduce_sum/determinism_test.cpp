// Bitwise determinism: thread counts 1, 2 and 3 and every SIMD target this CPU runs (a planning
// cap on the thread that runs phase 1) give the same output bytes, on problems large enough to
// split over many tasks, in run order and in column order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/reduce.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "ops/reduce_sum/rs_test_util.h"

namespace openaclnn::rs_test {
namespace {

class ReduceSumDeterminism : public test::RuntimeTest {};

struct Problem {
  std::vector<int64_t> shape;
  std::vector<int64_t> dims;
  aclDataType in;
  aclDataType out;
};

// The output bytes (as doubles, exactly) of one run on fixed random inputs.
std::vector<double> RunOnce(const Problem& p) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  DeviceTensor self(p.shape, p.in);
  std::vector<double> v(static_cast<size_t>(self.numel()));
  for (double& x : v) x = u(rng) * (1.0 + 1000.0 * (u(rng) > 0.95));  // a few large values
  self.FillDouble(v);
  std::vector<int64_t> out_shape = p.shape;
  for (auto it = p.dims.rbegin(); it != p.dims.rend(); ++it)
    out_shape.erase(out_shape.begin() + *it);
  DeviceTensor out(out_shape, p.out);
  EXPECT_EQ(RunReduceSum(self.get(), p.dims, false, p.out, out.get()), ACLNN_SUCCESS)
      << test::RecentError();
  EXPECT_EQ(out.DamagedCanaries(), 0);
  return out.ValuesDouble();
}

bool BitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// dims sorted ascending (RunOnce drops them from the shape back to front).
const Problem kProblems[] = {
    {{200, 3000}, {1}, ACL_FLOAT, ACL_FLOAT},      // inner, whole outputs per task
    {{3, 100000}, {1}, ACL_BF16, ACL_FLOAT},       // inner, chunks split over tasks
    {{5000, 64}, {1}, ACL_BF16, ACL_BF16},         // inner, short rows folded in batches
    {{3001, 100}, {1}, ACL_FLOAT16, ACL_FLOAT},    // inner, short rows with a partial round
    {{300000}, {0}, ACL_FLOAT16, ACL_FLOAT16},     // all, one output over 64 tasks
    {{30000, 20}, {0}, ACL_FLOAT, ACL_FLOAT},      // outer, partial sums per leaf group
    {{2000, 700}, {0}, ACL_BF16, ACL_BF16},        // outer, tiles
    {{1001, 300}, {0}, ACL_BF16, ACL_FLOAT},       // outer, BF16 column pairs, short last sweep
    {{4000, 16}, {0}, ACL_BF16, ACL_BF16},         // outer, narrow tile, blocks side by side
    {{16, 1000, 40}, {1}, ACL_FLOAT, ACL_FLOAT},   // middle
    {{50, 60, 70}, {0, 2}, ACL_FLOAT, ACL_FLOAT},  // several: runs with outer reduced dims
    {{100000, 3}, {0}, ACL_FLOAT, ACL_BF16},       // FLOAT to BFLOAT16: scalar loop
};

TEST_F(ReduceSumDeterminism, ThreadCountsAndIsas) {
  const std::vector<std::string> isas = cpu::AvailableIsas();
  ASSERT_FALSE(isas.empty());
  for (const Problem& p : kProblems) {
    SCOPED_TRACE("shape[0]=" + std::to_string(p.shape[0]) + " in " + DTypeName(p.in));
    cpu::SetNumThreads(1);
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isas.front()));
    const std::vector<double> base = RunOnce(p);
    for (int threads : {2, 3}) {
      cpu::SetNumThreads(threads);
      EXPECT_TRUE(BitwiseEqual(base, RunOnce(p))) << threads << " threads";
    }
    cpu::SetNumThreads(2);
    for (const std::string& isa : isas) {
      ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
      EXPECT_TRUE(BitwiseEqual(base, RunOnce(p))) << "isa " << isa;
    }
  }
  cpu::SetPlanningIsaCap("");
  cpu::SetNumThreads(0);
}

}  // namespace
}  // namespace openaclnn::rs_test

namespace openaclnn::rs_test {
namespace {

// The recursive definition of the pairwise tree (api/reduce.h).
float RecursivePairwise(const float* p, int64_t n) {
  if (n == 1) return p[0];
  const int64_t m = PairwiseSplit(n);
  return RecursivePairwise(p, m) + RecursivePairwise(p + m, n - m);
}

// The binary-counter PairwiseSum makes the recursion's additions, and any aligned group of 2^k
// values is a subtree: summing the groups first (as tasks do) gives the same bits.
TEST(ReducePairwiseTree, CounterEqualsRecursionAndGroupsAreSubtrees) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t n = 1; n <= 300; ++n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = u(rng) * (u(rng) > 0.9f ? 1e6f : 1.0f);
    const float whole = PairwiseSum(v.data(), n);
    uint32_t a, b;
    const float recursive = RecursivePairwise(v.data(), n);
    std::memcpy(&a, &whole, 4);
    std::memcpy(&b, &recursive, 4);
    ASSERT_EQ(a, b) << "n = " << n;
    for (int64_t group : {1, 2, 4, 8, 32}) {
      std::vector<float> partial;
      for (int64_t g0 = 0; g0 < n; g0 += group) {
        partial.push_back(PairwiseSum(v.data() + g0, std::min(group, n - g0)));
      }
      const float grouped = PairwiseSum(partial.data(), static_cast<int64_t>(partial.size()));
      std::memcpy(&b, &grouped, 4);
      ASSERT_EQ(a, b) << "n = " << n << ", groups of " << group;
    }
  }
}

}  // namespace
}  // namespace openaclnn::rs_test
