// CANN-style sample: the pointwise operators on small tensors, two-phase on a stream.
//   out  = self + 2 * other         (aclnnAdd, other [3] broadcast over self [2, 3])
//   out  = out * 0.5                (aclnnInplaceMuls)
//   out  = out - 1 * self           (aclnnInplaceSub)
//   q    = self / other             (aclnnDiv, INT32 inputs: a FLOAT quotient)
//   half = Cast(out, FLOAT16)       (aclnnCast)
//   self = other                    (aclnnInplaceCopy, broadcast)
//   other = 0, then 7 (aclnnInplaceZero, aclnnInplaceFillScalar); ones = 1 (aclnnInplaceOne)
// Prints the results and checks them against hand-computed values; returns non-zero on any
// mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_sub.h"
#include "aclnnop/aclnn_zero.h"

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

template <typename T>
std::vector<T> Read(void* deviceAddr, int64_t count) {
  std::vector<T> host(count);
  aclrtMemcpy(host.data(), count * sizeof(T), deviceAddr, count * sizeof(T),
              ACL_MEMCPY_DEVICE_TO_HOST);
  return host;
}

// Phase 2 with a workspace of the size phase 1 reported, then waits for the stream.
int Launch(const char* name, aclnnStatus phase1, uint64_t workspaceSize, aclOpExecutor* executor,
           aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream),
           aclrtStream stream) {
  CHECK_RET(phase1 == ACL_SUCCESS, LOG_PRINT("%sGetWorkspaceSize failed. ERROR: %d (%s)\n", name,
                                             phase1, aclGetRecentErrMsg());
            return phase1);
  void* workspace = nullptr;
  if (workspaceSize > 0) {
    auto ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("workspace allocation failed. ERROR: %d\n", ret);
              return ret);
  }
  auto ret = phase2(workspace, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("%s failed. ERROR: %d (%s)\n", name, ret, aclGetRecentErrMsg());
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);
  if (workspace != nullptr) aclrtFree(workspace);
  return 0;
}

int failures = 0;

template <typename T>
void Expect(const char* what, const std::vector<T>& got, const std::vector<double>& want) {
  LOG_PRINT("%s:", what);
  for (size_t i = 0; i < got.size(); ++i) {
    LOG_PRINT(" %g", static_cast<double>(got[i]));
    if (std::fabs(static_cast<double>(got[i]) - want[i]) > 1e-6) {
      LOG_PRINT(" (expected %g)", want[i]);
      ++failures;
    }
  }
  LOG_PRINT("\n");
}

// binary16 -> double (normal numbers only, enough for this sample's values).
double HalfToDouble(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const double mantissa = 1.0 + (h & 0x3ff) / 1024.0;
  const double v = std::ldexp(mantissa, exponent - 15);
  return (h & 0x8000) ? -v : v;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  const std::vector<int64_t> shape = {2, 3}, row = {3};
  void *selfAddr = nullptr, *otherAddr = nullptr, *outAddr = nullptr, *aAddr = nullptr,
       *bAddr = nullptr, *qAddr = nullptr, *halfAddr = nullptr;
  aclTensor *self = nullptr, *other = nullptr, *out = nullptr, *a = nullptr, *b = nullptr,
            *q = nullptr, *half = nullptr;
  CreateAclTensor(std::vector<float>{1, 2, 3, 4, 5, 6}, shape, &selfAddr, ACL_FLOAT, &self);
  CreateAclTensor(std::vector<float>{10, 20, 30}, row, &otherAddr, ACL_FLOAT, &other);
  CreateAclTensor(std::vector<float>(6, 0), shape, &outAddr, ACL_FLOAT, &out);
  CreateAclTensor(std::vector<int32_t>{7, -9, 1}, row, &aAddr, ACL_INT32, &a);
  CreateAclTensor(std::vector<int32_t>{2, 4, 8}, row, &bAddr, ACL_INT32, &b);
  CreateAclTensor(std::vector<float>(3, 0), row, &qAddr, ACL_FLOAT, &q);
  CreateAclTensor(std::vector<uint16_t>(6, 0), shape, &halfAddr, ACL_FLOAT16, &half);
  float two = 2.0f, halfValue = 0.5f, one = 1.0f;
  int64_t seven = 7;
  aclScalar* alpha2 = aclCreateScalar(&two, ACL_FLOAT);
  aclScalar* alpha1 = aclCreateScalar(&one, ACL_FLOAT);
  aclScalar* scale = aclCreateScalar(&halfValue, ACL_FLOAT);
  aclScalar* fill = aclCreateScalar(&seven, ACL_INT64);

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  // Phase 1 runs in its own statement: it sets workspaceSize and executor, which Launch reads.
  aclnnStatus status = ACL_SUCCESS;
  status = aclnnAddGetWorkspaceSize(self, other, alpha2, out, &workspaceSize, &executor);
  ret = Launch("aclnnAdd", status, workspaceSize, executor, aclnnAdd, stream);
  CHECK_RET(ret == 0, return ret);
  Expect("add   ", Read<float>(outAddr, 6), {21, 42, 63, 24, 45, 66});

  status = aclnnInplaceMulsGetWorkspaceSize(out, scale, &workspaceSize, &executor);
  ret = Launch("aclnnInplaceMuls", status, workspaceSize, executor, aclnnInplaceMuls, stream);
  CHECK_RET(ret == 0, return ret);
  Expect("muls  ", Read<float>(outAddr, 6), {10.5, 21, 31.5, 12, 22.5, 33});

  status = aclnnInplaceSubGetWorkspaceSize(out, self, alpha1, &workspaceSize, &executor);
  ret = Launch("aclnnInplaceSub", status, workspaceSize, executor, aclnnInplaceSub, stream);
  CHECK_RET(ret == 0, return ret);
  Expect("sub   ", Read<float>(outAddr, 6), {9.5, 19, 28.5, 8, 17.5, 27});

  status = aclnnDivGetWorkspaceSize(a, b, q, &workspaceSize, &executor);
  ret = Launch("aclnnDiv", status, workspaceSize, executor, aclnnDiv, stream);
  CHECK_RET(ret == 0, return ret);
  Expect("div   ", Read<float>(qAddr, 3), {3.5, -2.25, 0.125});

  status = aclnnCastGetWorkspaceSize(out, ACL_FLOAT16, half, &workspaceSize, &executor);
  ret = Launch("aclnnCast", status, workspaceSize, executor, aclnnCast, stream);
  CHECK_RET(ret == 0, return ret);
  std::vector<double> halves;
  for (uint16_t h : Read<uint16_t>(halfAddr, 6)) halves.push_back(HalfToDouble(h));
  Expect("cast  ", halves, {9.5, 19, 28.5, 8, 17.5, 27});

  status = aclnnInplaceCopyGetWorkspaceSize(self, other, &workspaceSize, &executor);
  ret = Launch("aclnnInplaceCopy", status, workspaceSize, executor, aclnnInplaceCopy, stream);
  CHECK_RET(ret == 0, return ret);
  Expect("copy  ", Read<float>(selfAddr, 6), {10, 20, 30, 10, 20, 30});

  status = aclnnInplaceZeroGetWorkspaceSize(other, &workspaceSize, &executor);
  ret = Launch("aclnnInplaceZero", status, workspaceSize, executor, aclnnInplaceZero, stream);
  CHECK_RET(ret == 0, return ret);
  Expect("zero  ", Read<float>(otherAddr, 3), {0, 0, 0});
  status = aclnnInplaceFillScalarGetWorkspaceSize(other, fill, &workspaceSize, &executor);
  ret = Launch("aclnnInplaceFillScalar", status, workspaceSize, executor, aclnnInplaceFillScalar,
               stream);
  CHECK_RET(ret == 0, return ret);
  Expect("fill  ", Read<float>(otherAddr, 3), {7, 7, 7});
  status = aclnnInplaceOneGetWorkspaceSize(a, &workspaceSize, &executor);
  ret = Launch("aclnnInplaceOne", status, workspaceSize, executor, aclnnInplaceOne, stream);
  CHECK_RET(ret == 0, return ret);
  Expect("one   ", Read<int32_t>(aAddr, 3), {1, 1, 1});

  aclDestroyScalar(alpha2);
  aclDestroyScalar(alpha1);
  aclDestroyScalar(scale);
  aclDestroyScalar(fill);
  aclTensor* tensors[] = {self, other, out, a, b, q, half};
  for (aclTensor* t : tensors) aclDestroyTensor(t);
  void* addrs[] = {selfAddr, otherAddr, outAddr, aAddr, bAddr, qAddr, halfAddr};
  for (void* p : addrs) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT(failures == 0 ? "pointwise sample passed\n" : "pointwise sample FAILED\n");
  return failures == 0 ? 0 : 1;
}
