// CANN-style sample: aclnnEmbedding gathers rows of a 5 x 3 FLOAT table by INT64 indices, then
// aclnnEmbeddingDenseBackward sums a gradient back into a 5 x 3 table (with paddingIdx and with
// scaleGradByFreq). Prints the results and checks them against hard-coded exact values; returns
// non-zero on any mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"

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

  // Forward: out[i, :] = weight[indices[i], :].
  std::vector<int64_t> weightShape = {5, 3}, indicesShape = {2, 2}, outShape = {2, 2, 3};
  std::vector<float> weightHost = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42};
  std::vector<int64_t> indicesHost = {4, 1, 1, 0};
  std::vector<float> zeros12(12, 0.0f), zeros15(15, 0.0f);
  void *weightAddr = nullptr, *indicesAddr = nullptr, *outAddr = nullptr;
  aclTensor *weight = nullptr, *indices = nullptr, *out = nullptr;
  CHECK_RET(CreateAclTensor(weightHost, weightShape, &weightAddr, ACL_FLOAT, &weight) == 0,
            return 1);
  CHECK_RET(CreateAclTensor(indicesHost, indicesShape, &indicesAddr, ACL_INT64, &indices) == 0,
            return 1);
  CHECK_RET(CreateAclTensor(zeros12, outShape, &outAddr, ACL_FLOAT, &out) == 0, return 1);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnEmbeddingGetWorkspaceSize(weight, indices, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnEmbeddingGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnEmbedding, "aclnnEmbedding");
  CHECK_RET(ret == 0, return ret);
  int bad =
      Expect("out", ToHost<float>(outAddr, 12), {40, 41, 42, 10, 11, 12, 10, 11, 12, 0, 1, 2});

  // Backward: the gradient of that gather; index 1 appears twice, so its row sums two grad rows.
  std::vector<float> gradHost = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  void *gradAddr = nullptr, *gradWeightAddr = nullptr;
  aclTensor *grad = nullptr, *gradWeight = nullptr;
  CHECK_RET(CreateAclTensor(gradHost, outShape, &gradAddr, ACL_FLOAT, &grad) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros15, weightShape, &gradWeightAddr, ACL_FLOAT, &gradWeight) == 0,
            return 1);
  const uint64_t noPadding = static_cast<uint64_t>(-1);
  ret = aclnnEmbeddingDenseBackwardGetWorkspaceSize(grad, indices, 5, noPadding, false, gradWeight,
                                                    &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnEmbeddingDenseBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnEmbeddingDenseBackward,
                  "aclnnEmbeddingDenseBackward");
  CHECK_RET(ret == 0, return ret);
  bad += Expect("gradWeight", ToHost<float>(gradWeightAddr, 15),
                {10, 11, 12, 11, 13, 15, 0, 0, 0, 0, 0, 0, 1, 2, 3});

  // paddingIdx 1 leaves row 1 zero; scaleGradByFreq divides row 1's sum by its count (2).
  ret = aclnnEmbeddingDenseBackwardGetWorkspaceSize(grad, indices, 5, 1, false, gradWeight,
                                                    &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("paddingIdx call failed. ERROR: %d\n", ret); return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnEmbeddingDenseBackward,
                  "aclnnEmbeddingDenseBackward");
  CHECK_RET(ret == 0, return ret);
  bad += Expect("gradWeight (paddingIdx 1)", ToHost<float>(gradWeightAddr, 15),
                {10, 11, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3});
  ret = aclnnEmbeddingDenseBackwardGetWorkspaceSize(grad, indices, 5, noPadding, true, gradWeight,
                                                    &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("scaleGradByFreq call failed. ERROR: %d\n", ret);
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnEmbeddingDenseBackward,
                  "aclnnEmbeddingDenseBackward");
  CHECK_RET(ret == 0, return ret);
  bad += Expect("gradWeight (scaleGradByFreq)", ToHost<float>(gradWeightAddr, 15),
                {10, 11, 12, 5.5f, 6.5f, 7.5f, 0, 0, 0, 0, 0, 0, 1, 2, 3});

  for (aclTensor* t : {weight, indices, out, grad, gradWeight}) aclDestroyTensor(t);
  for (void* p : {weightAddr, indicesAddr, outAddr, gradAddr, gradWeightAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT(
      bad == 0 ? "embedding sample: all values as expected\n" : "embedding sample: %d mismatches\n",
      bad);
  return bad == 0 ? 0 : 1;
}
