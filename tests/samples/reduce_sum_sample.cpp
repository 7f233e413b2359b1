// CANN-style sample: aclnnReduceSum on a 4 x 2 FLOAT input, summed over dim 0 (column sums) and,
// into BFLOAT16 with keepDims, over dim -1 (row sums). Prints the results and checks them against
// hard-coded values; returns non-zero on any mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_reduce_sum.h"

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

// One reduction: phase 1, workspace, phase 2, synchronisation.
int RunReduceSum(aclTensor* self, const std::vector<int64_t>& dimsData, bool keepDims,
                 aclDataType dtype, aclTensor* out, aclrtStream stream) {
  aclIntArray* dims = aclCreateIntArray(dimsData.data(), dimsData.size());
  CHECK_RET(dims != nullptr, return -1);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor;
  auto ret =
      aclnnReduceSumGetWorkspaceSize(self, dims, keepDims, dtype, out, &workspaceSize, &executor);
  aclDestroyIntArray(dims);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnReduceSumGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnReduceSum(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnReduceSum failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);
  if (workspaceSize > 0) {
    aclrtFree(workspaceAddr);
  }
  return 0;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> selfShape = {4, 2};
  std::vector<int64_t> colShape = {2};
  std::vector<int64_t> rowShape = {4, 1};
  std::vector<float> selfHost = {0, 1, 2, 3, 4, 5, 6, 7.5f};
  std::vector<float> colHost(2, 0.0f);
  std::vector<uint16_t> rowHost(4, 0);
  void *selfAddr = nullptr, *colAddr = nullptr, *rowAddr = nullptr;
  aclTensor *self = nullptr, *col = nullptr, *row = nullptr;
  ret = CreateAclTensor(selfHost, selfShape, &selfAddr, aclDataType::ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(colHost, colShape, &colAddr, aclDataType::ACL_FLOAT, &col);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(rowHost, rowShape, &rowAddr, aclDataType::ACL_BF16, &row);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  ret = RunReduceSum(self, {0}, false, aclDataType::ACL_FLOAT, col, stream);
  CHECK_RET(ret == 0, return ret);
  ret = RunReduceSum(self, {-1}, true, aclDataType::ACL_BF16, row, stream);
  CHECK_RET(ret == 0, return ret);

  ret = aclrtMemcpy(colHost.data(), colHost.size() * sizeof(float), colAddr,
                    colHost.size() * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(rowHost.data(), rowHost.size() * sizeof(uint16_t), rowAddr,
                    rowHost.size() * sizeof(uint16_t), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  const float expectedCol[2] = {12.0f, 16.5f};
  const float expectedRow[4] = {1.0f, 5.0f, 9.0f, 13.5f};
  int mismatches = 0;
  for (int64_t i = 0; i < 2; ++i) {
    const bool ok = colHost[i] == expectedCol[i];
    LOG_PRINT("sum over dim 0: result[%lld] is: %f (expected %f)%s\n", static_cast<long long>(i),
              colHost[i], expectedCol[i], ok ? "" : "  MISMATCH");
    if (!ok) ++mismatches;
  }
  for (int64_t i = 0; i < 4; ++i) {
    // bfloat16 is the upper half of a float.
    const uint32_t bits = static_cast<uint32_t>(rowHost[i]) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    const bool ok = value == expectedRow[i];
    LOG_PRINT("sum over dim -1 (BF16, keepDims): result[%lld] is: %f (expected %f)%s\n",
              static_cast<long long>(i), value, expectedRow[i], ok ? "" : "  MISMATCH");
    if (!ok) ++mismatches;
  }

  aclDestroyTensor(self);
  aclDestroyTensor(col);
  aclDestroyTensor(row);
  aclrtFree(selfAddr);
  aclrtFree(colAddr);
  aclrtFree(rowAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT("reduce_sum_sample: %s\n", mismatches == 0 ? "PASS" : "FAIL");
  return mismatches == 0 ? 0 : 1;
}
