// CANN-style sample: aclnnRmsNorm on a 2 x 4 FLOAT input with a FLOAT gamma, then
// aclnnRmsNormGrad with the forward's rstd. Prints y, rstd, dx and dgamma and checks them against
// hard-coded exact values; returns non-zero on any mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

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

// Phase 2 of either operator, then the synchronisation; frees the workspace.
template <typename Phase2>
int RunPhase2(uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream, Phase2 phase2,
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
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  return 0;
}

template <typename T>
std::vector<T> ToHost(void* deviceAddr, size_t count) {
  std::vector<T> host(count);
  aclrtMemcpy(host.data(), count * sizeof(T), deviceAddr, count * sizeof(T),
              ACL_MEMCPY_DEVICE_TO_HOST);
  return host;
}

int Expect(const char* name, const std::vector<float>& got, const std::vector<float>& want) {
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    LOG_PRINT("%s[%zu] = %g\n", name, i, got[i]);
    if (got[i] != want[i]) {
      LOG_PRINT("  mismatch: expected %g\n", want[i]);
      ++bad;
    }
  }
  return bad;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // Forward: two rows of 4 (mean squares 4 and 1, so rstd 0.5 and 1 with epsilon 0).
  std::vector<int64_t> xShape = {2, 4}, gammaShape = {4}, rstdShape = {2, 1};
  std::vector<float> xHost = {2, 2, 2, 2, 1, -1, 1, -1};
  std::vector<float> gammaHost = {1, 2, 4, 0.5f};
  std::vector<float> zeros8(8, 0.0f), zeros4(4, 0.0f), zeros2(2, 0.0f);
  void *xAddr = nullptr, *gammaAddr = nullptr, *yAddr = nullptr, *rstdAddr = nullptr;
  aclTensor *x = nullptr, *gamma = nullptr, *y = nullptr, *rstd = nullptr;
  CHECK_RET(CreateAclTensor(xHost, xShape, &xAddr, ACL_FLOAT, &x) == 0, return 1);
  CHECK_RET(CreateAclTensor(gammaHost, gammaShape, &gammaAddr, ACL_FLOAT, &gamma) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros8, xShape, &yAddr, ACL_FLOAT, &y) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros2, rstdShape, &rstdAddr, ACL_FLOAT, &rstd) == 0, return 1);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnRmsNormGetWorkspaceSize(x, gamma, 0.0, y, rstd, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRmsNormGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnRmsNorm, "aclnnRmsNorm");
  CHECK_RET(ret == 0, return ret);
  int bad = Expect("y", ToHost<float>(yAddr, 8), {1, 2, 4, 0.5f, 1, -2, 4, -0.5f});
  bad += Expect("rstd", ToHost<float>(rstdAddr, 2), {0.5f, 1.0f});

  // Backward with the forward's rstd: dy = e0 in row 0, zeros in row 1.
  std::vector<float> dyHost = {1, 0, 0, 0, 0, 0, 0, 0};
  void *dyAddr = nullptr, *dxAddr = nullptr, *dgammaAddr = nullptr;
  aclTensor *dy = nullptr, *dx = nullptr, *dgamma = nullptr;
  CHECK_RET(CreateAclTensor(dyHost, xShape, &dyAddr, ACL_FLOAT, &dy) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros8, xShape, &dxAddr, ACL_FLOAT, &dx) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros4, gammaShape, &dgammaAddr, ACL_FLOAT, &dgamma) == 0, return 1);
  ret = aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dx, dgamma, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnRmsNormGradGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnRmsNormGrad, "aclnnRmsNormGrad");
  CHECK_RET(ret == 0, return ret);
  // Row 0: mean(dy * gamma * x) = 0.5, dx = 0.5 * (dy * gamma - x * 0.25 * 0.5).
  bad += Expect("dx", ToHost<float>(dxAddr, 8), {0.375f, -0.125f, -0.125f, -0.125f, 0, 0, 0, 0});
  bad += Expect("dgamma", ToHost<float>(dgammaAddr, 4), {1, 0, 0, 0});

  for (aclTensor* t : {x, gamma, y, rstd, dy, dx, dgamma}) aclDestroyTensor(t);
  for (void* p : {xAddr, gammaAddr, yAddr, rstdAddr, dyAddr, dxAddr, dgammaAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT(
      bad == 0 ? "rms_norm sample: all values as expected\n" : "rms_norm sample: %d mismatches\n",
      bad);
  return bad == 0 ? 0 : 1;
}
