// CANN-style sample: aclnnGeluV2 (erf form) and aclnnGelu (CANN's tanh form) on four FLOAT
// values, then aclnnGeluBackwardV2 ("tanh") with a gradOutput of ones. Prints the results and
// checks them against hard-coded values; returns non-zero on any mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_gelu_v2.h"

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
                            aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), *deviceAddr);
  return 0;
}

// Workspace, phase 2, synchronisation after a successful phase 1.
int RunPhase2(uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream,
              aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream),
              const char* name) {
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  auto ret = phase2(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d\n", name, ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  return 0;
}

int ReadBack(void* deviceAddr, std::vector<float>* host) {
  return aclrtMemcpy(host->data(), host->size() * sizeof(float), deviceAddr,
                     host->size() * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
}

int Expect(const char* what, const std::vector<float>& got, const std::vector<double>& want) {
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    LOG_PRINT("%s[%zu] = %.7f (expected %.7f)\n", what, i, got[i], want[i]);
    if (std::fabs(got[i] - want[i]) > 1e-6 + 1e-5 * std::fabs(want[i])) ++bad;
  }
  return bad;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> shape = {2, 2};
  std::vector<float> xHost = {-1.0f, 0.0f, 1.0f, 2.0f};
  std::vector<float> onesHost(4, 1.0f), yHost(4, 0.0f);
  void *xAddr = nullptr, *onesAddr = nullptr, *yAddr = nullptr;
  aclTensor *x = nullptr, *ones = nullptr, *y = nullptr;
  ret = CreateAclTensor(xHost, shape, &xAddr, aclDataType::ACL_FLOAT, &x);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(onesHost, shape, &onesAddr, aclDataType::ACL_FLOAT, &ones);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(yHost, shape, &yAddr, aclDataType::ACL_FLOAT, &y);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  int bad = 0;
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnGeluV2GetWorkspaceSize(x, 0, y, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGeluV2GetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnGeluV2, "aclnnGeluV2");
  CHECK_RET(ret == 0, return ret);
  CHECK_RET(ReadBack(yAddr, &yHost) == ACL_SUCCESS, return 1);
  bad += Expect("geluV2_erf", yHost,
                {-0.15865525393145707, 0.0, 0.8413447460685429, 1.9544997361036416});

  ret = aclnnGeluGetWorkspaceSize(x, y, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGeluGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                                          aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnGelu, "aclnnGelu");
  CHECK_RET(ret == 0, return ret);
  CHECK_RET(ReadBack(yAddr, &yHost) == ACL_SUCCESS, return 1);
  bad += Expect("gelu_tanh", yHost,
                {-0.15880800939172324, 0.0, 0.8411919906082768, 1.954597694087775});

  char approximate[] = "tanh";
  ret = aclnnGeluBackwardV2GetWorkspaceSize(ones, x, approximate, y, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnGeluBackwardV2GetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnGeluBackwardV2, "aclnnGeluBackwardV2");
  CHECK_RET(ret == 0, return ret);
  CHECK_RET(ReadBack(yAddr, &yHost) == ACL_SUCCESS, return 1);
  bad += Expect("gelu_backward_tanh", yHost,
                {-0.08296408384578266, 0.5, 1.0829640838457826, 1.0860992566236183});

  aclDestroyTensor(x);
  aclDestroyTensor(ones);
  aclDestroyTensor(y);
  aclrtFree(xAddr);
  aclrtFree(onesAddr);
  aclrtFree(yAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  if (bad != 0) {
    LOG_PRINT("%d values differ from the expected ones\n", bad);
    return 1;
  }
  return 0;
}
