// CANN-style sample: aclnnLayerNorm on a 2 x 4 input normalised over its last dimension, with a
// weight, a bias, and the mean and rstd outputs. Prints the results and checks them against
// hard-coded values (from torch.native_layer_norm); returns non-zero on any mismatch.
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"

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

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> inputShape = {2, 4};
  std::vector<int64_t> paramShape = {4};
  std::vector<int64_t> statShape = {2, 1};
  std::vector<int64_t> normData = {4};
  std::vector<float> inputHost = {1, 2, 3, 4, -1, 0, 1, 5};
  std::vector<float> weightHost = {0.5f, 1.0f, 1.5f, 2.0f};
  std::vector<float> biasHost = {0.0f, 0.5f, 0.0f, -0.5f};
  std::vector<float> outHost(8, 0.0f);
  std::vector<float> meanHost(2, 0.0f);
  std::vector<float> rstdHost(2, 0.0f);
  void *inputAddr = nullptr, *weightAddr = nullptr, *biasAddr = nullptr;
  void *outAddr = nullptr, *meanAddr = nullptr, *rstdAddr = nullptr;
  aclTensor *input = nullptr, *weight = nullptr, *bias = nullptr;
  aclTensor *out = nullptr, *mean = nullptr, *rstd = nullptr;
  ret = CreateAclTensor(inputHost, inputShape, &inputAddr, aclDataType::ACL_FLOAT, &input);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(weightHost, paramShape, &weightAddr, aclDataType::ACL_FLOAT, &weight);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(biasHost, paramShape, &biasAddr, aclDataType::ACL_FLOAT, &bias);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outHost, inputShape, &outAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(meanHost, statShape, &meanAddr, aclDataType::ACL_FLOAT, &mean);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(rstdHost, statShape, &rstdAddr, aclDataType::ACL_FLOAT, &rstd);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  aclIntArray* normalizedShape = aclCreateIntArray(normData.data(), normData.size());
  double eps = 1e-5;

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor;
  ret = aclnnLayerNormGetWorkspaceSize(input, normalizedShape, weight, bias, eps, out, mean, rstd,
                                       &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLayerNormGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnLayerNorm(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLayerNorm failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  ret = aclrtMemcpy(outHost.data(), outHost.size() * sizeof(float), outAddr,
                    outHost.size() * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(meanHost.data(), 2 * sizeof(float), meanAddr, 2 * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(rstdHost.data(), 2 * sizeof(float), rstdAddr, 2 * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  const float expectedOut[8] = {-0.67081773f, 0.05278817f,  0.67081773f,  2.18327093f,
                                -0.49393871f, -0.04882079f, -0.16464624f, 2.79292488f};
  const float expectedMean[2] = {2.5f, 1.25f};
  const float expectedRstd[2] = {0.89442366f, 0.43905663f};
  int mismatches = 0;
  auto check = [&](const char* name, int64_t i, float got, float want) {
    const bool ok = std::fabs(got - want) <= 1e-5f + 1e-4f * std::fabs(want);
    LOG_PRINT("%s[%lld] is: %f (expected %f)%s\n", name, static_cast<long long>(i), got, want,
              ok ? "" : "  MISMATCH");
    if (!ok) ++mismatches;
  };
  for (int64_t i = 0; i < 8; ++i) check("out", i, outHost[i], expectedOut[i]);
  for (int64_t i = 0; i < 2; ++i) check("mean", i, meanHost[i], expectedMean[i]);
  for (int64_t i = 0; i < 2; ++i) check("rstd", i, rstdHost[i], expectedRstd[i]);

  aclDestroyTensor(input);
  aclDestroyTensor(weight);
  aclDestroyTensor(bias);
  aclDestroyTensor(out);
  aclDestroyTensor(mean);
  aclDestroyTensor(rstd);
  aclDestroyIntArray(normalizedShape);
  aclrtFree(inputAddr);
  aclrtFree(weightAddr);
  aclrtFree(biasAddr);
  aclrtFree(outAddr);
  aclrtFree(meanAddr);
  aclrtFree(rstdAddr);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT("layer_norm_sample: %s\n", mismatches == 0 ? "PASS" : "FAIL");
  return mismatches == 0 ? 0 : 1;
}
