// CANN-style sample: aclnnGlu on a 2 x 4 FLOAT input split along dim -1 (a = the first two
// columns, b = the last two: out = a * sigmoid(b)), then aclnnGluBackward with a gradOut of ones.
// Prints the results and checks them against hard-coded values; returns non-zero on any mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"

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

  std::vector<int64_t> selfShape = {2, 4};
  std::vector<int64_t> halfShape = {2, 2};
  std::vector<float> selfHost = {1.0f, -2.0f, 0.0f, 1.0f, 3.0f, 0.5f, -1.0f, 2.0f};
  std::vector<float> outHost(4, 0.0f), onesHost(4, 1.0f), gradHost(8, 0.0f);
  void *selfAddr = nullptr, *outAddr = nullptr, *onesAddr = nullptr, *gradAddr = nullptr;
  aclTensor *self = nullptr, *out = nullptr, *ones = nullptr, *grad = nullptr;
  ret = CreateAclTensor(selfHost, selfShape, &selfAddr, aclDataType::ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outHost, halfShape, &outAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(onesHost, halfShape, &onesAddr, aclDataType::ACL_FLOAT, &ones);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradHost, selfShape, &gradAddr, aclDataType::ACL_FLOAT, &grad);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  int bad = 0;
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnGluGetWorkspaceSize(self, -1, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGluGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                                          aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnGlu, "aclnnGlu");
  CHECK_RET(ret == 0, return ret);
  CHECK_RET(ReadBack(outAddr, &outHost) == ACL_SUCCESS, return 1);
  bad +=
      Expect("glu", outHost, {0.5, -1.4621171572600098, 0.8068242641099853, 0.44039853898894116});

  ret = aclnnGluBackwardGetWorkspaceSize(ones, self, -1, grad, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnGluBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnGluBackward, "aclnnGluBackward");
  CHECK_RET(ret == 0, return ret);
  CHECK_RET(ReadBack(gradAddr, &gradHost) == ACL_SUCCESS, return 1);
  bad += Expect("glu_backward", gradHost,
                {0.5, 0.7310585786300049, 0.25, -0.3932238664829637, 0.2689414213699951,
                 0.8807970779778823, 0.5898357997244456, 0.05249679270175331});

  aclDestroyTensor(self);
  aclDestroyTensor(out);
  aclDestroyTensor(ones);
  aclDestroyTensor(grad);
  aclrtFree(selfAddr);
  aclrtFree(outAddr);
  aclrtFree(onesAddr);
  aclrtFree(gradAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  if (bad != 0) {
    LOG_PRINT("%d values differ from the expected ones\n", bad);
    return 1;
  }
  return 0;
}
