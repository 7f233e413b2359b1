// The runtime on a CUDA device: device selection, cudaMalloc-backed memory, copies in every
// direction, CUDA streams, and the residence checks. Skips where no GPU is visible.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "backend/cuda/runtime.h"
#include "runtime/device.h"
#include "util/cuda_fixture.h"

namespace openaclnn::test {
namespace {

using CudaRuntimeTest = CudaTest;

TEST_F(CudaRuntimeTest, DevicesAreTheGpus) {
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(static_cast<int>(count), cuda::DeviceCount());
  EXPECT_EQ(aclrtSetDevice(static_cast<int32_t>(count)), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(RecentError().find("GPUs"), std::string::npos) << RecentError();
  int32_t device = -1;
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
}

TEST_F(CudaRuntimeTest, MallocGivesMemoryOfTheCurrentGpu) {
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(cuda::DeviceOfPointer(p), 0);
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 4096), ACL_SUCCESS);
  EXPECT_EQ(cuda::DeviceOfPointer(host), -1);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_ERROR_INVALID_PARAM);  // the table forgot it
}

TEST_F(CudaRuntimeTest, CopiesAndSetsRoundTrip) {
  constexpr size_t kBytes = 1 << 16;
  std::vector<uint8_t> src(kBytes), back(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(a, kBytes, src.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(b, kBytes, a, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(back.data(), kBytes, b, kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(src.data(), back.data(), kBytes), 0);

  // Asynchronous set and copy on a stream, ordered, visible after synchronisation.
  aclrtStream stream = this->stream();
  ASSERT_EQ(aclrtMemsetAsync(a, kBytes, 0x5A, kBytes / 2, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(back.data(), kBytes, a, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  for (size_t i = 0; i < kBytes; ++i) {
    ASSERT_EQ(back[i], i < kBytes / 2 ? 0x5A : src[i]) << "byte " << i;
  }
  ASSERT_EQ(aclrtMemset(b, kBytes, 0, kBytes), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(back.data(), kBytes, b, kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, std::vector<uint8_t>(kBytes, 0));
  // Ranges past the end of a block are refused before CUDA sees them.
  EXPECT_EQ(aclrtMemcpy(a, kBytes + 1, src.data(), kBytes + 1, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
}

// A tensor in host memory on a GPU device is the caller's mistake: 161002 naming it.
TEST_F(CudaRuntimeTest, HostTensorsAreRefusedOnTheGpu) {
  std::vector<float> host(64, 1.0f);
  void* dev = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const int64_t shape[2] = {4, 16}, stats[2] = {4, 1}, n = 16;
  auto make = [](const int64_t* dims, void* data) {
    return aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, data);
  };
  aclTensor* dy = make(shape, host.data());  // the mistake
  aclTensor* x = make(shape, dev);
  aclTensor* mean = make(stats, dev);
  aclTensor* rstd = make(stats, dev);
  aclTensor* dx = make(shape, dev);
  aclIntArray* norm = aclCreateIntArray(&n, 1);
  const bool mask[3] = {true, false, false};
  aclBoolArray* m = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(dy, x, norm, mean, rstd, nullptr, nullptr, m, dx,
                                                   nullptr, nullptr, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("host memory"), std::string::npos) << RecentError();

  // A workspace in host memory: refused by phase 2, naming the workspace.
  aclTensor* dy_dev = make(shape, dev);
  const int64_t n_dims[1] = {16};
  aclTensor* gw_n =
      aclCreateTensor(n_dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, n_dims, 1, dev);
  const bool mask_w[3] = {true, true, false};
  aclBoolArray* mw = aclCreateBoolArray(mask_w, 3);
  ASSERT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(dy_dev, x, norm, mean, rstd, nullptr, nullptr,
                                                   mw, dx, gw_n, nullptr, &ws, &ex),
            ACLNN_SUCCESS)
      << RecentError();
  ASSERT_GT(ws, 0u);
  std::vector<unsigned char> host_workspace(ws);
  EXPECT_EQ(aclnnLayerNormBackward(host_workspace.data(), ws, ex, stream()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("workspace"), std::string::npos) << RecentError();
  for (aclTensor* t : {dy_dev, gw_n}) aclDestroyTensor(t);
  aclDestroyBoolArray(mw);
  for (aclTensor* t : {dy, x, mean, rstd, dx}) aclDestroyTensor(t);
  aclDestroyIntArray(norm);
  aclDestroyBoolArray(m);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::test
