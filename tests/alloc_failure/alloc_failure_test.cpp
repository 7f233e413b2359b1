// Allocation failures at the C boundary: this binary replaces the global operator new with one
// that can fail the calling thread's n-th allocation, then walks n over every allocation an
// entry point makes. Each call must answer success or its documented status with a message,
// never let std::bad_alloc escape (which would terminate the program), and leave the executor
// usable or released as documented.

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_softmax.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace {

// -1: disarmed. n >= 0: the calling thread's allocation after n more succeeds fails.
thread_local long allocations_before_failure = -1;
thread_local bool failure_injected = false;

void* Allocate(std::size_t size) {
  if (allocations_before_failure >= 0 && allocations_before_failure-- == 0) {
    failure_injected = true;
    throw std::bad_alloc();
  }
  void* block = std::malloc(size == 0 ? 1 : size);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

}  // namespace

void* operator new(std::size_t size) { return Allocate(size); }
void* operator new[](std::size_t size) { return Allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* block) noexcept { std::free(block); }
void operator delete[](void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
void operator delete[](void* block, std::size_t) noexcept { std::free(block); }

namespace openaclnn::test {
namespace {

// Arms the failure for the calling thread; Disarm() tells whether it was used.
void Arm(long n) {
  failure_injected = false;
  allocations_before_failure = n;
}
bool Disarm() {
  allocations_before_failure = -1;
  return failure_injected;
}

class AllocFailureTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    self_.Fill(std::vector<float>(64, 1.5f));
    other_.Fill(std::vector<float>(64, 0.25f));
    alpha_ = aclCreateScalar(&one_, ACL_FLOAT);
  }
  void TearDown() override {
    aclDestroyScalar(alpha_);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  aclOpExecutor* BuildAdd(bool repeatable) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnAddGetWorkspaceSize(self_.get(), other_.get(), alpha_, out_.get(), &workspace,
                                       &executor),
              ACLNN_SUCCESS);
    if (repeatable) {
      EXPECT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    }
    return executor;
  }
  bool OutIsSum() const { return out_.Values() == std::vector<float>(64, 1.75f); }

  float one_ = 1.0f;
  aclScalar* alpha_ = nullptr;
  aclrtStream stream_ = nullptr;
  DeviceTensor self_{{8, 8}, ACL_FLOAT};
  DeviceTensor other_{{8, 8}, ACL_FLOAT};
  DeviceTensor out_{{8, 8}, ACL_FLOAT};
};

// The statuses an entry point may answer when an allocation fails inside it.
void ExpectOutOfMemory(aclnnStatus status, long n, std::initializer_list<aclnnStatus> allowed) {
  bool ok = false;
  for (aclnnStatus code : allowed) ok = ok || status == code;
  EXPECT_TRUE(ok) << "allocation " << n << " failed: status " << status;
  const std::string message = RecentError();
  EXPECT_NE(message.find("out of host memory"), std::string::npos)
      << "allocation " << n << ": " << message;
}

// After a phase 2 that returned success while an allocation failed: on an idle stream the
// operator runs within the call, so the failure may have hit the run itself, which the stream
// reports at synchronisation as a failed task naming the operator.
void ExpectRunSucceededOrReportedOutOfMemory(aclError sync, long n) {
  if (sync == ACL_SUCCESS) return;
  EXPECT_EQ(sync, ACL_ERROR_RT_AICORE_EXCEPTION) << "allocation " << n;
  const std::string message = RecentError();
  EXPECT_NE(message.find("aclnnAdd failed on the stream: out of host memory"), std::string::npos)
      << "allocation " << n << ": " << message;
}

TEST_F(AllocFailureTest, Phase1) {
  long n = 0;
  for (; n < 10000; ++n) {
    uint64_t workspace = 0;
    aclOpExecutor* executor = nullptr;
    Arm(n);
    const aclnnStatus status =
        aclnnSoftmaxGetWorkspaceSize(self_.get(), 1, out_.get(), &workspace, &executor);
    if (!Disarm()) {
      ASSERT_EQ(status, ACLNN_SUCCESS) << RecentError();
      ASSERT_EQ(aclnnSoftmax(nullptr, 0, executor, stream_), ACLNN_SUCCESS);
      break;
    }
    ExpectOutOfMemory(status, n, {ACLNN_ERR_INNER_CREATE_EXECUTOR, ACLNN_ERR_INNER});
  }
  EXPECT_GT(n, 0) << "phase 1 allocates nothing: the test would not test anything";
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

TEST_F(AllocFailureTest, Phase2OfARepeatableExecutor) {
  aclOpExecutor* executor = BuildAdd(true);
  long n = 0;
  for (; n < 10000; ++n) {
    out_.Reset();
    Arm(n);
    const aclnnStatus status = aclnnAdd(nullptr, 0, executor, stream_);
    const bool failed = Disarm();
    const aclError sync = aclrtSynchronizeStream(stream_);
    if (!failed) {
      ASSERT_EQ(sync, ACL_SUCCESS) << RecentError();
      ASSERT_EQ(status, ACLNN_SUCCESS) << RecentError();
      EXPECT_TRUE(OutIsSum());
      break;
    }
    if (status == ACLNN_SUCCESS) {
      // The failure hit something phase 2 could spare, or the run itself.
      ExpectRunSucceededOrReportedOutOfMemory(sync, n);
      continue;
    }
    ASSERT_EQ(sync, ACL_SUCCESS) << RecentError();
    ExpectOutOfMemory(status, n, {ACLNN_ERR_INNER});
    EXPECT_TRUE(out_.Untouched()) << "a failed phase 2 ran anyway (allocation " << n << ")";
  }
  EXPECT_GT(n, 0);
  // Still live and usable after every failure.
  ASSERT_EQ(aclnnAdd(nullptr, 0, executor, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_TRUE(OutIsSum());
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
}

TEST_F(AllocFailureTest, Phase2OfASingleUseExecutorReleasesIt) {
  for (long n = 0; n < 10000; ++n) {
    aclOpExecutor* executor = BuildAdd(false);
    Arm(n);
    const aclnnStatus status = aclnnAdd(nullptr, 0, executor, stream_);
    const bool failed = Disarm();
    const aclError sync = aclrtSynchronizeStream(stream_);
    if (!failed) {
      ASSERT_EQ(sync, ACL_SUCCESS) << RecentError();
      ASSERT_EQ(status, ACLNN_SUCCESS);
      break;
    }
    if (status == ACLNN_SUCCESS) {
      ExpectRunSucceededOrReportedOutOfMemory(sync, n);
    } else {
      ASSERT_EQ(sync, ACL_SUCCESS) << RecentError();
      ExpectOutOfMemory(status, n, {ACLNN_ERR_INNER});
    }
    // Released either way: a second phase 2 is refused, and nothing leaks (ASan).
    EXPECT_EQ(aclnnAdd(nullptr, 0, executor, stream_), ACLNN_ERR_PARAM_INVALID);
  }
}

TEST_F(AllocFailureTest, RebindingAndItsErrors) {
  aclOpExecutor* executor = BuildAdd(true);
  for (long n = 0; n < 10000; ++n) {
    // An out-of-range index: the message is what allocates.
    Arm(n);
    const aclnnStatus status = aclSetInputTensorAddr(executor, 5, self_.get(), self_.data());
    const bool failed = Disarm();
    if (!failed) {
      EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
      EXPECT_NE(RecentError().find("index 5 is out of range"), std::string::npos);
      break;
    }
    EXPECT_TRUE(status == ACLNN_ERR_PARAM_INVALID || status == ACLNN_ERR_INNER) << status;
  }
  for (long n = 0; n < 10000; ++n) {
    Arm(n);
    const aclnnStatus status = aclSetOutputTensorAddr(executor, 0, out_.get(), out_.data());
    const bool failed = Disarm();
    if (!failed) {
      EXPECT_EQ(status, ACLNN_SUCCESS) << RecentError();
      break;
    }
    if (status != ACLNN_SUCCESS) ExpectOutOfMemory(status, n, {ACLNN_ERR_INNER});
  }
  ASSERT_EQ(aclnnAdd(nullptr, 0, executor, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_TRUE(OutIsSum());
  for (long n = 0; n < 10000; ++n) {
    Arm(n);
    const aclnnStatus status = aclDestroyAclOpExecutor(executor);
    const bool failed = Disarm();
    if (status == ACLNN_SUCCESS) break;
    ASSERT_TRUE(failed) << status;
    ExpectOutOfMemory(status, n, {ACLNN_ERR_INNER});
  }
}

// The creation functions answer nullptr when an allocation fails (CANN's contract), and work
// again once memory is back.
TEST_F(AllocFailureTest, CreationFunctions) {
  const int64_t dims[2] = {8, 8};
  const int64_t strides[2] = {8, 1};
  const int64_t values[3] = {1, 2, 3};
  for (long n = 0; n < 10000; ++n) {
    Arm(n);
    aclTensor* tensor =
        aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, self_.data());
    aclIntArray* array = aclCreateIntArray(values, 3);
    // A list owns its tensors (aclDestroyTensorList destroys them); when it cannot be created
    // they stay the caller's.
    const aclTensor* members[2] = {
        aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, self_.data()),
        aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, other_.data())};
    aclTensorList* list = aclCreateTensorList(members, 2);
    const bool failed = Disarm();
    if (tensor != nullptr) {
      EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
    }
    if (array != nullptr) {
      EXPECT_EQ(aclDestroyIntArray(array), ACLNN_SUCCESS);
    }
    if (list != nullptr) {
      EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
    } else {
      for (const aclTensor* member : members) EXPECT_EQ(aclDestroyTensor(member), ACLNN_SUCCESS);
    }
    if (!failed) {
      EXPECT_NE(tensor, nullptr);
      EXPECT_NE(array, nullptr);
      EXPECT_NE(list, nullptr);
      EXPECT_GT(n, 0);
      break;
    }
    EXPECT_TRUE(tensor == nullptr || array == nullptr || list == nullptr || members[0] == nullptr ||
                members[1] == nullptr)
        << n;
  }
}

}  // namespace
}  // namespace openaclnn::test
