// A CANN-style sample for aclnnLayerNormBackward: aclInit, a device and a stream, device memory,
// the two-phase call, synchronisation, then the results printed and checked against values
// computed by hand (float64). Uses only the public headers, as CANN's own samples do.
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

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
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  return size;
}

int CreateAclTensor(const std::vector<float>& host, const std::vector<int64_t>& shape,
                    void** device_addr, aclTensor** tensor) {
  const size_t bytes = static_cast<size_t>(GetShapeSize(shape)) * sizeof(float);
  auto ret = aclrtMalloc(device_addr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*device_addr, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  *tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                            shape.data(), shape.size(), *device_addr);
  return 0;
}

int main() {
  int32_t device_id = 0;
  aclrtStream stream;
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(device_id);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret);
            return ret);

  // input [2, 4] normalised over its last dim; mean and rstd as a forward pass saved them.
  const std::vector<int64_t> x_shape = {2, 4};
  const std::vector<int64_t> stat_shape = {2, 1};
  const std::vector<int64_t> w_shape = {4};
  const std::vector<float> dy_host = {1, 2, 3, 4, -1, 0, 2, 1};
  const std::vector<float> x_host = {1, 2, 3, 6, 0, 4, 4, 8};
  const std::vector<float> mean_host = {3, 4};
  const std::vector<float> rstd_host = {0.5f, 0.25f};  // as if 1/std were exactly these
  const std::vector<float> w_host = {1, 0.5f, 2, -1};
  const std::vector<float> b_host = {0, 0, 0, 0};
  std::vector<float> dx_host(8, 0), dw_host(4, 0), db_host(4, 0);

  void *dy_dev, *x_dev, *mean_dev, *rstd_dev, *w_dev, *b_dev, *dx_dev, *dw_dev, *db_dev;
  aclTensor *dy, *x, *mean, *rstd, *w, *b, *dx, *dw, *db;
  CHECK_RET(CreateAclTensor(dy_host, x_shape, &dy_dev, &dy) == 0, return 1);
  CHECK_RET(CreateAclTensor(x_host, x_shape, &x_dev, &x) == 0, return 1);
  CHECK_RET(CreateAclTensor(mean_host, stat_shape, &mean_dev, &mean) == 0, return 1);
  CHECK_RET(CreateAclTensor(rstd_host, stat_shape, &rstd_dev, &rstd) == 0, return 1);
  CHECK_RET(CreateAclTensor(w_host, w_shape, &w_dev, &w) == 0, return 1);
  CHECK_RET(CreateAclTensor(b_host, w_shape, &b_dev, &b) == 0, return 1);
  CHECK_RET(CreateAclTensor(dx_host, x_shape, &dx_dev, &dx) == 0, return 1);
  CHECK_RET(CreateAclTensor(dw_host, w_shape, &dw_dev, &dw) == 0, return 1);
  CHECK_RET(CreateAclTensor(db_host, w_shape, &db_dev, &db) == 0, return 1);
  const int64_t norm_values[1] = {4};
  aclIntArray* normalized_shape = aclCreateIntArray(norm_values, 1);
  const bool mask_values[3] = {true, true, true};
  aclBoolArray* output_mask = aclCreateBoolArray(mask_values, 3);

  // Phase 1: checks and workspace size. Phase 2: launch on the stream.
  uint64_t workspace_size = 0;
  aclOpExecutor* executor;
  ret = aclnnLayerNormBackwardGetWorkspaceSize(dy, x, normalized_shape, mean, rstd, w, b,
                                               output_mask, dx, dw, db, &workspace_size, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnLayerNormBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  void* workspace_addr = nullptr;
  if (workspace_size > 0) {
    ret = aclrtMalloc(&workspace_addr, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnLayerNormBackward(workspace_addr, workspace_size, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLayerNormBackward failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  aclrtMemcpy(dx_host.data(), 8 * sizeof(float), dx_dev, 8 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  aclrtMemcpy(dw_host.data(), 4 * sizeof(float), dw_dev, 4 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  aclrtMemcpy(db_host.data(), 4 * sizeof(float), db_dev, 4 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);

  // Expected values, by hand in float64 from the formulas of the operator's documentation.
  const double dx_expected[8] = {-0.9375, -0.46875, 2.5, -1.09375, -0.375, -0.125, 0.875, -0.375};
  const double dw_expected[4] = {0, -1, 0, 7};
  const double db_expected[4] = {0, 2, 5, 5};
  int failures = 0;
  auto check = [&](const char* name, const std::vector<float>& got, const double* expected) {
    for (size_t i = 0; i < got.size(); i++) {
      const bool ok = std::fabs(got[i] - expected[i]) <= 1e-6 + 1e-6 * std::fabs(expected[i]);
      LOG_PRINT("%s[%zu] = %g (expected %g)%s\n", name, i, got[i], expected[i],
                ok ? "" : "  MISMATCH");
      failures += ok ? 0 : 1;
    }
  };
  check("gradInput", dx_host, dx_expected);
  check("gradWeight", dw_host, dw_expected);
  check("gradBias", db_host, db_expected);

  aclDestroyTensor(dy);
  aclDestroyTensor(x);
  aclDestroyTensor(mean);
  aclDestroyTensor(rstd);
  aclDestroyTensor(w);
  aclDestroyTensor(b);
  aclDestroyTensor(dx);
  aclDestroyTensor(dw);
  aclDestroyTensor(db);
  aclDestroyIntArray(normalized_shape);
  aclDestroyBoolArray(output_mask);
  for (void* p : {dy_dev, x_dev, mean_dev, rstd_dev, w_dev, b_dev, dx_dev, dw_dev, db_dev}) {
    aclrtFree(p);
  }
  if (workspace_size > 0) aclrtFree(workspace_addr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(device_id);
  aclFinalize();
  LOG_PRINT("layer_norm_backward sample: %s\n", failures == 0 ? "all values match" : "FAILED");
  return failures == 0 ? 0 : 1;
}
