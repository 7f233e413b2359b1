#pragma once
// A GoogleTest fixture for the GPU suites: skips cleanly where no CUDA device is visible,
// otherwise initialises the runtime, selects GPU 0 and creates a stream.

#include <gtest/gtest.h>

#include "acl/acl.h"
#include "backend/cuda/runtime.h"
#include "runtime/device.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ProcessDeviceKind() != DeviceKind::kCuda) {
      GTEST_SKIP() << "no CUDA device: " << cuda::UnavailableReason();
    }
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << RecentError();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS) << RecentError();
    initialised_ = true;
  }
  void TearDown() override {
    if (!initialised_) return;
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
  aclrtStream stream() const { return stream_; }

 private:
  aclrtStream stream_ = nullptr;
  bool initialised_ = false;
};

}  // namespace openaclnn::test
