// CANN-style sample: aclnnNLLLoss on 3 rows of 4 FLOAT log-probabilities with class weights and
// reduction mean (one target ignored), then aclnnNLLLossBackward with the forward's totalWeight.
// Prints out, totalWeight and the gradient and checks them against hard-coded exact values;
// returns non-zero on any mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"

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

  // Forward: targets 3, 0 and 2 (ignored); losses -w[3] * -2 = 8 and -w[0] * -2 = 1; mean
  // (8 + 1) / (4 + 0.5).
  std::vector<int64_t> selfShape = {3, 4}, targetShape = {3}, weightShape = {4}, oneShape = {1};
  std::vector<float> selfHost = {-1, -3, -4, -2, -2, -0.5f, -3, -5, -2, -2, -2, -2};
  std::vector<int64_t> targetHost = {3, 0, 2};
  std::vector<float> weightHost = {0.5f, 1, 1, 4};
  const int64_t ignoreIndex = 2;
  std::vector<float> zeros1(1, 0.0f), zeros12(12, 0.0f);
  void *selfAddr = nullptr, *targetAddr = nullptr, *weightAddr = nullptr, *outAddr = nullptr,
       *totalAddr = nullptr;
  aclTensor *self = nullptr, *target = nullptr, *weight = nullptr, *out = nullptr,
            *totalWeight = nullptr;
  CHECK_RET(CreateAclTensor(selfHost, selfShape, &selfAddr, ACL_FLOAT, &self) == 0, return 1);
  CHECK_RET(CreateAclTensor(targetHost, targetShape, &targetAddr, ACL_INT64, &target) == 0,
            return 1);
  CHECK_RET(CreateAclTensor(weightHost, weightShape, &weightAddr, ACL_FLOAT, &weight) == 0,
            return 1);
  CHECK_RET(CreateAclTensor(zeros1, oneShape, &outAddr, ACL_FLOAT, &out) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros1, oneShape, &totalAddr, ACL_FLOAT, &totalWeight) == 0, return 1);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnNLLLossGetWorkspaceSize(self, target, weight, 1, ignoreIndex, out, totalWeight,
                                     &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnNLLLossGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnNLLLoss, "aclnnNLLLoss");
  CHECK_RET(ret == 0, return ret);
  int bad = Expect("out", ToHost<float>(outAddr, 1), {2.0f});
  bad += Expect("totalWeight", ToHost<float>(totalAddr, 1), {4.5f});

  // Backward of the mean: -w[t] * gradOutput / totalWeight at each kept row's target.
  std::vector<float> gradHost = {9};
  void *gradAddr = nullptr, *gradSelfAddr = nullptr;
  aclTensor *gradOutput = nullptr, *gradSelf = nullptr;
  CHECK_RET(CreateAclTensor(gradHost, oneShape, &gradAddr, ACL_FLOAT, &gradOutput) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros12, selfShape, &gradSelfAddr, ACL_FLOAT, &gradSelf) == 0,
            return 1);
  ret = aclnnNLLLossBackwardGetWorkspaceSize(gradOutput, self, target, weight, 1, ignoreIndex,
                                             totalWeight, gradSelf, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnNLLLossBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnNLLLossBackward, "aclnnNLLLossBackward");
  CHECK_RET(ret == 0, return ret);
  bad +=
      Expect("gradSelf", ToHost<float>(gradSelfAddr, 12), {0, 0, 0, -8, -1, 0, 0, 0, 0, 0, 0, 0});

  for (aclTensor* t : {self, target, weight, out, totalWeight, gradOutput, gradSelf}) {
    aclDestroyTensor(t);
  }
  for (void* p : {selfAddr, targetAddr, weightAddr, outAddr, totalAddr, gradAddr, gradSelfAddr}) {
    aclrtFree(p);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT(
      bad == 0 ? "nll_loss sample: all values as expected\n" : "nll_loss sample: %d mismatches\n",
      bad);
  return bad == 0 ? 0 : 1;
}
