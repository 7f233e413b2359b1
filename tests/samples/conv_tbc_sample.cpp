// CANN-style sample: aclnnConvTbc with CANN's sample shapes (self {2, 2, 3}, weight {3, 3, 4},
// bias {4}, out {2, 2, 4}, pad 1) and exactly representable values. Prints the result and checks
// it against hard-coded values (from torch.conv_tbc); returns non-zero on any mismatch.
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t shapeSize = 1;
  for (auto i : shape) {
    shapeSize *= i;
  }
  return shapeSize;
}

int Init(int32_t deviceId, aclrtStream* stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);
  return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape,
                    void** deviceAddr, aclDataType dataType, aclTensor** tensor) {
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0,
                            aclFormat::ACL_FORMAT_NCL, shape.data(), shape.size(), *deviceAddr);
  return 0;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> selfShape = {2, 2, 3};
  std::vector<int64_t> weightShape = {3, 3, 4};
  std::vector<int64_t> biasShape = {4};
  std::vector<int64_t> outShape = {2, 2, 4};
  std::vector<float> selfHost(12);
  for (int i = 0; i < 12; ++i) selfHost[i] = 0.5f * static_cast<float>(i) - 1.0f;
  std::vector<float> weightHost(36);
  for (int i = 0; i < 36; ++i) weightHost[i] = 0.25f * static_cast<float>(i % 7 - 3);
  std::vector<float> biasHost = {0.5f, -0.5f, 1.0f, 0.0f};
  std::vector<float> outHost(16, 0.0f);
  const int64_t pad = 1;
  const int8_t cubeMathType = 1;
  void *selfAddr = nullptr, *weightAddr = nullptr, *biasAddr = nullptr, *outAddr = nullptr;
  aclTensor *self = nullptr, *weight = nullptr, *bias = nullptr, *out = nullptr;
  ret = CreateAclTensor(selfHost, selfShape, &selfAddr, aclDataType::ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(weightHost, weightShape, &weightAddr, aclDataType::ACL_FLOAT, &weight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(biasHost, biasShape, &biasAddr, aclDataType::ACL_FLOAT, &bias);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outHost, outShape, &outAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor;
  ret = aclnnConvTbcGetWorkspaceSize(self, weight, bias, pad, out, cubeMathType, &workspaceSize,
                                     &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnConvTbcGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnConvTbc(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnConvTbc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  auto size = GetShapeSize(outShape);
  ret = aclrtMemcpy(outHost.data(), size * sizeof(float), outAddr, size * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  // The values are exact in HF32 (cubeMathType 1), so the result is exact.
  const float expected[16] = {-1.0f, -0.5f, 4.25f, -0.5f,   -0.25f, -0.125f, 4.25f,  -0.875f,
                              3.75f, -1.0f, -1.5f, -0.125f, 3.75f,  -1.375f, -2.25f, -1.25f};
  int mismatches = 0;
  for (int64_t i = 0; i < size; i++) {
    const bool ok = std::fabs(outHost[i] - expected[i]) <= 1e-6f;
    LOG_PRINT("result[%lld] is: %f (expected %f)%s\n", static_cast<long long>(i), outHost[i],
              expected[i], ok ? "" : "  MISMATCH");
    if (!ok) ++mismatches;
  }

  aclDestroyTensor(self);
  aclDestroyTensor(weight);
  aclDestroyTensor(bias);
  aclDestroyTensor(out);
  aclrtFree(selfAddr);
  aclrtFree(weightAddr);
  aclrtFree(biasAddr);
  aclrtFree(outAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT("conv_tbc_sample: %s\n", mismatches == 0 ? "PASS" : "FAIL");
  return mismatches == 0 ? 0 : 1;
}
