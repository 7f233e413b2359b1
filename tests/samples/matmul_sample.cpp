// CANN-style sample: aclnnMatmul on a 2 x 3 FLOAT matrix times a 3 x 2 one, then a linear layer
// through aclnnAddmm, out = bias + 2 * x @ weight^T, with weight^T passed as a transposed view of
// the row-major weight (strides {1, 3}, no copy). Prints both results and checks them against
// hard-coded exact values; returns non-zero on any mismatch.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_matmul.h"

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

  // 1. out = self @ mat2.
  std::vector<int64_t> selfShape = {2, 3}, mat2Shape = {3, 2}, outShape = {2, 2};
  std::vector<float> selfHost = {1, 2, 3, 4, 5, 6};
  std::vector<float> mat2Host = {1, 0, 0, 1, 1, 1};
  std::vector<float> zeros4(4, 0.0f);
  void *selfAddr = nullptr, *mat2Addr = nullptr, *outAddr = nullptr;
  aclTensor *self = nullptr, *mat2 = nullptr, *out = nullptr;
  CHECK_RET(CreateAclTensor(selfHost, selfShape, &selfAddr, ACL_FLOAT, &self) == 0, return 1);
  CHECK_RET(CreateAclTensor(mat2Host, mat2Shape, &mat2Addr, ACL_FLOAT, &mat2) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros4, outShape, &outAddr, ACL_FLOAT, &out) == 0, return 1);

  int8_t cubeMathType = 0;  // KEEP_DTYPE
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnMatmulGetWorkspaceSize(self, mat2, out, cubeMathType, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMatmulGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnMatmul, "aclnnMatmul");
  CHECK_RET(ret == 0, return ret);
  int bad = Expect("matmul", ToHost<float>(outAddr, 4), {4, 5, 10, 11});

  // 2. A linear layer: out = beta * bias + alpha * x @ weight^T with weight stored [2, 3].
  std::vector<float> weightHost = {1, 1, 1, 0, 1, -1};
  std::vector<float> biasHost = {10, 20};
  std::vector<int64_t> weightShape = {2, 3}, biasShape = {2};
  void *weightAddr = nullptr, *biasAddr = nullptr, *linearAddr = nullptr;
  aclTensor *weight = nullptr, *bias = nullptr, *linear = nullptr;
  CHECK_RET(CreateAclTensor(weightHost, weightShape, &weightAddr, ACL_FLOAT, &weight) == 0,
            return 1);
  CHECK_RET(CreateAclTensor(biasHost, biasShape, &biasAddr, ACL_FLOAT, &bias) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros4, outShape, &linearAddr, ACL_FLOAT, &linear) == 0, return 1);
  // weight.t(): a [3, 2] view of the same storage with strides {1, 3}.
  std::vector<int64_t> weightTShape = {3, 2}, weightTStrides = {1, 3};
  aclTensor* weightT =
      aclCreateTensor(weightTShape.data(), weightTShape.size(), ACL_FLOAT, weightTStrides.data(), 0,
                      aclFormat::ACL_FORMAT_ND, weightShape.data(), weightShape.size(), weightAddr);
  CHECK_RET(weightT != nullptr, LOG_PRINT("aclCreateTensor failed\n"); return 1);
  float betaValue = 1.0f, alphaValue = 2.0f;
  aclScalar* beta = aclCreateScalar(&betaValue, ACL_FLOAT);
  aclScalar* alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
  ret = aclnnAddmmGetWorkspaceSize(bias, self, weightT, beta, alpha, linear, cubeMathType,
                                   &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAddmmGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnAddmm, "aclnnAddmm");
  CHECK_RET(ret == 0, return ret);
  // x @ weight^T = [[6, -1], [15, -1]]; times 2, plus the bias row.
  bad += Expect("addmm", ToHost<float>(linearAddr, 4), {22, 18, 40, 18});

  aclDestroyScalar(beta);
  aclDestroyScalar(alpha);
  for (aclTensor* t : {self, mat2, out, weight, weightT, bias, linear}) aclDestroyTensor(t);
  for (void* p : {selfAddr, mat2Addr, outAddr, weightAddr, biasAddr, linearAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT(bad == 0 ? "matmul sample: all values as expected\n" : "matmul sample: %d mismatches\n",
            bad);
  return bad == 0 ? 0 : 1;
}
