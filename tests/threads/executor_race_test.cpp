// An executor is for one thread at a time (as in CANN), but a caller that breaks the rule must get
// a serialisation or a documented status, never a use-after-free or a data race: a destroy racing
// phase 2, a rebinding racing phase 2, two phase 2 calls on one single-use executor, two destroys.
// Run under the thread sanitizer (the threads suite) and the address sanitizer.

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

constexpr int64_t kElements = 4096;

class ExecutorRaceTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    std::vector<float> a(kElements), b(kElements);
    for (int64_t i = 0; i < kElements; ++i) {
      a[i] = static_cast<float>(i % 97);
      b[i] = static_cast<float>(i % 13) * 0.5f;
      expected_.push_back(a[i] + 2.0f * b[i]);  // exact in fp32
    }
    self_.Fill(a);
    other_.Fill(b);
    alpha_ = aclCreateScalar(&two_, ACL_FLOAT);
    ASSERT_NE(alpha_, nullptr);
  }
  void TearDown() override {
    aclDestroyScalar(alpha_);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  // Phase 1 of out = self + 2 * other; repeatable when asked.
  aclOpExecutor* Build(DeviceTensor& out, bool repeatable) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnAddGetWorkspaceSize(self_.get(), other_.get(), alpha_, out.get(), &workspace,
                                       &executor),
              ACLNN_SUCCESS)
        << RecentError();
    EXPECT_EQ(workspace, 0u);
    if (repeatable) {
      EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    }
    return executor;
  }
  bool HoldsResult(const DeviceTensor& out) const { return out.Values() == expected_; }

  float two_ = 2.0f;
  aclScalar* alpha_ = nullptr;
  aclrtStream stream_ = nullptr;
  DeviceTensor self_{{kElements}, ACL_FLOAT};
  DeviceTensor other_{{kElements}, ACL_FLOAT};
  std::vector<float> expected_;
};

TEST_F(ExecutorRaceTest, DestroyRacingPhase2) {
  for (int round = 0; round < 60; ++round) {
    DeviceTensor out({kElements}, ACL_FLOAT);
    aclOpExecutor* executor = Build(out, true);
    std::atomic<bool> started{false};
    std::vector<aclnnStatus> statuses;
    std::string first_failure;
    std::thread runner([&] {
      for (int i = 0; i < 40; ++i) {
        const aclnnStatus status = aclnnAdd(nullptr, 0, executor, stream_);
        statuses.push_back(status);
        started.store(true);
        if (status != ACLNN_SUCCESS) {
          first_failure = RecentError();
          break;
        }
      }
    });
    while (!started.load()) std::this_thread::yield();
    for (int spin = 0; spin < round * 10; ++spin) std::this_thread::yield();
    const aclnnStatus destroyed = aclDestroyAclOpExecutor(executor);
    runner.join();
    EXPECT_EQ(destroyed, ACLNN_SUCCESS) << RecentError();
    ASSERT_FALSE(statuses.empty());
    EXPECT_EQ(statuses.front(), ACLNN_SUCCESS);
    // Every call before the destroy ran; every call after it was refused as not live.
    for (size_t i = 0; i + 1 < statuses.size(); ++i) EXPECT_EQ(statuses[i], ACLNN_SUCCESS) << i;
    if (statuses.back() != ACLNN_SUCCESS) {
      EXPECT_EQ(statuses.back(), ACLNN_ERR_PARAM_INVALID);
      EXPECT_NE(first_failure.find("is not live"), std::string::npos) << first_failure;
    }
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_TRUE(HoldsResult(out)) << "round " << round;
    // The handle stays refused after the destroy.
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID);
  }
}

TEST_F(ExecutorRaceTest, RebindingRacingPhase2) {
  DeviceTensor out_a({kElements}, ACL_FLOAT), out_b({kElements}, ACL_FLOAT);
  DeviceTensor self_copy({kElements}, ACL_FLOAT);
  self_copy.Fill(self_.Values());
  aclOpExecutor* executor = Build(out_a, true);
  std::atomic<bool> stop{false};
  std::atomic<int> rebind_failures{0};
  std::thread rebinder([&] {
    for (int i = 0; !stop.load(); ++i) {
      // The output between two buffers, the input between two copies of the same values.
      if (aclSetOutputTensorAddr(executor, 0, out_a.get(), (i % 2 ? out_b : out_a).data()) !=
          ACLNN_SUCCESS) {
        ++rebind_failures;
      }
      if (aclSetInputTensorAddr(executor, 0, self_.get(), (i % 3 ? self_copy : self_).data()) !=
          ACLNN_SUCCESS) {
        ++rebind_failures;
      }
    }
  });
  int failures = 0;
  for (int i = 0; i < 400; ++i) {
    if (aclnnAdd(nullptr, 0, executor, stream_) != ACLNN_SUCCESS) ++failures;
  }
  stop.store(true);
  rebinder.join();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(rebind_failures.load(), 0);
  // Each buffer was written whole by every run bound to it, or never: no torn binding.
  EXPECT_TRUE(HoldsResult(out_a) || out_a.Untouched());
  EXPECT_TRUE(HoldsResult(out_b) || out_b.Untouched());
  EXPECT_TRUE(HoldsResult(out_a) || HoldsResult(out_b));
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

TEST_F(ExecutorRaceTest, TwoPhase2CallsOnOneSingleUseExecutor) {
  for (int round = 0; round < 100; ++round) {
    DeviceTensor out({kElements}, ACL_FLOAT);
    aclOpExecutor* executor = Build(out, false);
    aclnnStatus statuses[2] = {0, 0};
    std::thread a([&] { statuses[0] = aclnnAdd(nullptr, 0, executor, stream_); });
    std::thread b([&] { statuses[1] = aclnnAdd(nullptr, 0, executor, stream_); });
    a.join();
    b.join();
    // Exactly one ran; the other found the executor released by it.
    EXPECT_EQ((statuses[0] == ACLNN_SUCCESS) + (statuses[1] == ACLNN_SUCCESS), 1) << round;
    EXPECT_TRUE(statuses[0] == ACLNN_ERR_PARAM_INVALID || statuses[1] == ACLNN_ERR_PARAM_INVALID);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_TRUE(HoldsResult(out));
  }
}

TEST_F(ExecutorRaceTest, TwoDestroysReleaseOnce) {
  for (int round = 0; round < 100; ++round) {
    DeviceTensor out({kElements}, ACL_FLOAT);
    aclOpExecutor* executor = Build(out, true);
    aclnnStatus statuses[3] = {0, 0, 0};
    std::thread a([&] { statuses[0] = aclDestroyAclOpExecutor(executor); });
    std::thread b([&] { statuses[1] = aclDestroyAclOpExecutor(executor); });
    std::thread c(
        [&] { statuses[2] = aclSetOutputTensorAddr(executor, 0, out.get(), out.data()); });
    a.join();
    b.join();
    c.join();
    EXPECT_EQ((statuses[0] == ACLNN_SUCCESS) + (statuses[1] == ACLNN_SUCCESS), 1) << round;
    EXPECT_TRUE(statuses[2] == ACLNN_SUCCESS || statuses[2] == ACLNN_ERR_PARAM_INVALID);
  }
}

}  // namespace
}  // namespace openaclnn::test
