// CANN-style sample: aclnnSoftmax and aclnnLogSoftmax of a 2 x 4 FLOAT tensor over its last dim,
// then aclnnSoftmaxBackward and aclnnLogSoftmaxBackward of a gradient through them. Prints the
// results and checks them against values computed here in double; returns non-zero on a mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"

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

// Phase 1 status and executor in, then workspace, phase 2 and synchronisation.
template <typename Phase2>
int Finish(const char* name, aclnnStatus ret, uint64_t workspaceSize, aclOpExecutor* executor,
           Phase2 phase2, aclrtStream stream) {
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%sGetWorkspaceSize failed. ERROR: %d (%s)\n", name, ret,
                                          aclGetRecentErrMsg());
            return ret);
  void* workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = phase2(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d\n", name, ret); return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  return 0;
}

int ReadBack(void* deviceAddr, std::vector<float>* host) {
  const size_t bytes = host->size() * sizeof(float);
  return aclrtMemcpy(host->data(), bytes, deviceAddr, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
}

int Compare(const char* what, const std::vector<float>& got, const std::vector<double>& want) {
  int mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok = std::fabs(got[i] - want[i]) <= 1e-6 * (1.0 + std::fabs(want[i]));
    LOG_PRINT("%s: result[%zu] is: %f (expected %f)%s\n", what, i, got[i], want[i],
              ok ? "" : "  MISMATCH");
    if (!ok) ++mismatches;
  }
  return mismatches;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // x is 2 x 4; softmax and log-softmax over the last dim, then their gradients for a gradOutput
  // of g.
  const std::vector<int64_t> shape = {2, 4};
  const std::vector<float> xHost = {0, 1, 2, 3, -1, 0.5f, 0.5f, 4};
  const std::vector<float> gHost = {1, 0, 0, 0, 0.25f, -1, 2, 0.5f};
  std::vector<float> zero(8, 0.0f);
  void *xAddr = nullptr, *gAddr = nullptr, *yAddr = nullptr, *lyAddr = nullptr, *dxAddr = nullptr,
       *ldxAddr = nullptr;
  aclTensor *x = nullptr, *g = nullptr, *y = nullptr, *ly = nullptr, *dx = nullptr, *ldx = nullptr;
  CHECK_RET(CreateAclTensor(xHost, shape, &xAddr, ACL_FLOAT, &x) == 0, return 1);
  CHECK_RET(CreateAclTensor(gHost, shape, &gAddr, ACL_FLOAT, &g) == 0, return 1);
  CHECK_RET(CreateAclTensor(zero, shape, &yAddr, ACL_FLOAT, &y) == 0, return 1);
  CHECK_RET(CreateAclTensor(zero, shape, &lyAddr, ACL_FLOAT, &ly) == 0, return 1);
  CHECK_RET(CreateAclTensor(zero, shape, &dxAddr, ACL_FLOAT, &dx) == 0, return 1);
  CHECK_RET(CreateAclTensor(zero, shape, &ldxAddr, ACL_FLOAT, &ldx) == 0, return 1);

  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnSoftmaxGetWorkspaceSize(x, -1, y, &ws, &executor);
  CHECK_RET(Finish("aclnnSoftmax", ret, ws, executor, aclnnSoftmax, stream) == 0, return 1);
  ret = aclnnLogSoftmaxGetWorkspaceSize(x, 1, ly, &ws, &executor);
  CHECK_RET(Finish("aclnnLogSoftmax", ret, ws, executor, aclnnLogSoftmax, stream) == 0, return 1);
  ret = aclnnSoftmaxBackwardGetWorkspaceSize(g, y, -1, dx, &ws, &executor);
  CHECK_RET(Finish("aclnnSoftmaxBackward", ret, ws, executor, aclnnSoftmaxBackward, stream) == 0,
            return 1);
  ret = aclnnLogSoftmaxBackwardGetWorkspaceSize(g, ly, -1, ldx, &ws, &executor);
  CHECK_RET(
      Finish("aclnnLogSoftmaxBackward", ret, ws, executor, aclnnLogSoftmaxBackward, stream) == 0,
      return 1);

  std::vector<float> yHost(8), lyHost(8), dxHost(8), ldxHost(8);
  CHECK_RET(ReadBack(yAddr, &yHost) == ACL_SUCCESS, return 1);
  CHECK_RET(ReadBack(lyAddr, &lyHost) == ACL_SUCCESS, return 1);
  CHECK_RET(ReadBack(dxAddr, &dxHost) == ACL_SUCCESS, return 1);
  CHECK_RET(ReadBack(ldxAddr, &ldxHost) == ACL_SUCCESS, return 1);

  // The expected values, in double.
  std::vector<double> ys(8), lys(8), dxs(8), ldxs(8);
  for (int r = 0; r < 2; ++r) {
    double m = -INFINITY, s = 0, gy = 0, gs = 0;
    for (int i = 0; i < 4; ++i) m = std::fmax(m, xHost[r * 4 + i]);
    for (int i = 0; i < 4; ++i) s += std::exp(xHost[r * 4 + i] - m);
    for (int i = 0; i < 4; ++i) {
      ys[r * 4 + i] = std::exp(xHost[r * 4 + i] - m) / s;
      lys[r * 4 + i] = xHost[r * 4 + i] - m - std::log(s);
      gy += gHost[r * 4 + i] * ys[r * 4 + i];
      gs += gHost[r * 4 + i];
    }
    for (int i = 0; i < 4; ++i) {
      dxs[r * 4 + i] = ys[r * 4 + i] * (gHost[r * 4 + i] - gy);
      ldxs[r * 4 + i] = gHost[r * 4 + i] - std::exp(lys[r * 4 + i]) * gs;
    }
  }
  int mismatches = Compare("softmax", yHost, ys) + Compare("log_softmax", lyHost, lys) +
                   Compare("softmax_backward", dxHost, dxs) +
                   Compare("log_softmax_backward", ldxHost, ldxs);

  for (aclTensor* t : {x, g, y, ly, dx, ldx}) aclDestroyTensor(t);
  for (void* p : {xAddr, gAddr, yAddr, lyAddr, dxAddr, ldxAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT("softmax_sample: %s\n", mismatches == 0 ? "PASS" : "FAIL");
  return mismatches == 0 ? 0 : 1;
}
