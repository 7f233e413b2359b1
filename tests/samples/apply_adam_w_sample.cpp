// CANN-style sample: one aclnnApplyAdamW (V1) step with amsgrad on a 2 x 2 FLOAT parameter, the
// hyperparameters in one-element tensors chosen so that every result is exact. Prints var, m, v
// and maxGradNorm (read only) and checks them against hard-coded values; returns non-zero on any
// mismatch.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_apply_adam_w.h"

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

// Phase 2, then the synchronisation; frees the workspace.
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

std::vector<float> ToHost(void* deviceAddr, size_t count) {
  std::vector<float> host(count);
  aclrtMemcpy(host.data(), count * sizeof(float), deviceAddr, count * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  return host;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // One AdamW step with beta1 = beta2 = 0 and eps = 0, so that every value is exact: m = g,
  // v = g^2, no bias correction (1 - beta1Power * beta1 = 1), var = var - lr * weightDecay * var -
  // lr * g / sqrt(max(maxGradNorm, v)).
  std::vector<int64_t> shape = {2, 2}, scalarShape = {1};
  std::vector<float> varHost = {4, -8, 1, 2}, mHost = {1, 1, 1, 1}, vHost = {1, 1, 1, 1};
  std::vector<float> maxHost = {0, 100, 0, 0}, gradHost = {2, -4, 0.5f, -1};
  // beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps.
  const std::vector<float> scalarHost = {0.9f, 0.999f, 0.5f, 0.5f, 0.0f, 0.0f, 0.0f};
  void *varAddr = nullptr, *mAddr = nullptr, *vAddr = nullptr, *maxAddr = nullptr,
       *gradAddr = nullptr;
  aclTensor *var = nullptr, *m = nullptr, *v = nullptr, *maxNorm = nullptr, *grad = nullptr;
  std::vector<void*> scalarAddr(7, nullptr);
  std::vector<aclTensor*> scalar(7, nullptr);
  CHECK_RET(CreateAclTensor(varHost, shape, &varAddr, ACL_FLOAT, &var) == 0, return 1);
  CHECK_RET(CreateAclTensor(mHost, shape, &mAddr, ACL_FLOAT, &m) == 0, return 1);
  CHECK_RET(CreateAclTensor(vHost, shape, &vAddr, ACL_FLOAT, &v) == 0, return 1);
  CHECK_RET(CreateAclTensor(maxHost, shape, &maxAddr, ACL_FLOAT, &maxNorm) == 0, return 1);
  CHECK_RET(CreateAclTensor(gradHost, shape, &gradAddr, ACL_FLOAT, &grad) == 0, return 1);
  for (int i = 0; i < 7; ++i) {
    CHECK_RET(CreateAclTensor(std::vector<float>{scalarHost[i]}, scalarShape, &scalarAddr[i],
                              ACL_FLOAT, &scalar[i]) == 0,
              return 1);
  }

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  // amsgrad on, maximize off.
  ret = aclnnApplyAdamWGetWorkspaceSize(var, m, v, scalar[0], scalar[1], scalar[2], scalar[3],
                                        scalar[4], scalar[5], scalar[6], grad, maxNorm, true, false,
                                        &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnApplyAdamWGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnApplyAdamW, "aclnnApplyAdamW");
  CHECK_RET(ret == 0, return ret);
  // amsgrad: the denominator is sqrt(max(maxGradNorm, v)); element 1 uses 100, so its step is
  // 0.5 * (-4) / sqrt(100) = -0.2 instead of -0.5. vRef keeps v; maxGradNorm is only read.
  int bad = Expect("var", ToHost(varAddr, 4), {2.5f, -5.8f, 0.25f, 2.0f});
  bad += Expect("m", ToHost(mAddr, 4), {2, -4, 0.5f, -1});
  bad += Expect("v", ToHost(vAddr, 4), {4, 16, 0.25f, 1});
  bad += Expect("maxGradNorm", ToHost(maxAddr, 4), {0, 100, 0, 0});

  for (aclTensor* t : {var, m, v, maxNorm, grad}) aclDestroyTensor(t);
  for (aclTensor* t : scalar) aclDestroyTensor(t);
  for (void* p : {varAddr, mAddr, vAddr, maxAddr, gradAddr}) aclrtFree(p);
  for (void* p : scalarAddr) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT(bad == 0 ? "apply_adam_w sample: all values as expected\n"
                     : "apply_adam_w sample: %d mismatches\n",
            bad);
  return bad == 0 ? 0 : 1;
}
