// OPENACLNN_DEVICE=cuda (set by ctest for this suite): the devices are the GPUs, and where there is
// none every aclrtSetDevice is 107001 with a message that says why.

#include <gtest/gtest.h>

#include "acl/acl.h"
#include "backend/cuda/runtime.h"
#include "runtime/device.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

TEST(ForcedCudaDevice, GpusOrAClearRefusal) {
  ASSERT_EQ(ProcessDeviceKind(), DeviceKind::kCuda) << "run with OPENACLNN_DEVICE=cuda";
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(static_cast<int>(count), cuda::DeviceCount());
  if (count == 0) {
    EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_RT_INVALID_DEVICEID);
    const std::string message = RecentError();
    EXPECT_NE(message.find("there are none"), std::string::npos) << message;
    EXPECT_NE(message.find(cuda::UnavailableReason()), std::string::npos) << message;
  } else {
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << RecentError();
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  }
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::test
