// aclnnConvTbcBackward the way a CANN sample calls it: init, device, stream, device memory,
// tensors, the two-phase call, synchronisation, results copied back and printed.
// T_in=4, B=2, Cin=3, Cout=2, K=3, pad=1 (so T_out=4). Expected values come from PyTorch's
// aten::conv_tbc_backward in float64; every product and sum is exact in float32.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"

#define CHECK_RET(cond, ...)    \
  do {                          \
    if (!(cond)) {              \
      std::printf(__VA_ARGS__); \
      return 1;                 \
    }                           \
  } while (0)

static int64_t ShapeSize(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Copies `host` into new device memory and describes it as a contiguous FLOAT tensor.
static int CreateAclTensor(const std::vector<float>& host, const std::vector<int64_t>& shape,
                           void** device, aclFormat format, aclTensor** tensor) {
  const size_t bytes = ShapeSize(shape) * sizeof(float);
  int ret = aclrtMalloc(device, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed: %d\n", ret);
  ret = aclrtMemcpy(*device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed: %d\n", ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  *tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, format,
                            shape.data(), shape.size(), *device);
  return 0;
}

static int PrintAndCompare(const char* name, void* device, const std::vector<float>& expected) {
  std::vector<float> result(expected.size());
  const size_t bytes = result.size() * sizeof(float);
  int ret = aclrtMemcpy(result.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "copy of %s failed: %d\n", name, ret);
  int mismatches = 0;
  for (size_t i = 0; i < result.size(); ++i) {
    std::printf("%s[%zu] = %g\n", name, i, result[i]);
    if (result[i] != expected[i]) {
      std::printf("  MISMATCH: expected %g\n", expected[i]);
      ++mismatches;
    }
  }
  return mismatches;
}

int main() {
  const int64_t t_in = 4, batch = 2, c_in = 3, c_out = 2, taps = 3, pad = 1;
  const int64_t t_out = t_in + 2 * pad + 1 - taps;
  std::vector<float> x(t_in * batch * c_in), w(taps * c_in * c_out), dy(t_out * batch * c_out);
  for (size_t i = 0; i < x.size(); ++i) x[i] = ((i * 7) % 11 - 5.0f) * 0.5f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = ((i * 5) % 7 - 3.0f) * 0.25f;
  for (size_t i = 0; i < dy.size(); ++i) dy[i] = (i * 3) % 5 - 2.0f;
  const std::vector<float> expected_gx = {-1.25, 0.0,  1.25,  -2.5, 0.0,  2.5,  -0.75, 2.0,
                                          -0.5,  1.75, 1.75,  -3.5, 1.75, -1.0, -0.25, -0.75,
                                          -1.25, 1.75, -0.75, -2.0, 2.0,  0.75, 2.0,   -2.0};
  const std::vector<float> expected_gw = {2.5, 5.0, 2.5, -2.0, -3.0, 2.0, 5.0, -1.5, 0.0,
                                          2.0, 0.5, 5.5, -4.0, 2.0,  0.0, 0.0, 9.5,  -13.0};
  const std::vector<float> expected_gb = {-3.0, 1.0};

  int ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, "aclInit failed: %d\n", ret);
  ret = aclrtSetDevice(0);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSetDevice failed: %d\n", ret);
  aclrtStream stream = nullptr;
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtCreateStream failed: %d\n", ret);

  void *dy_d = nullptr, *x_d = nullptr, *w_d = nullptr, *b_d = nullptr;
  void *gx_d = nullptr, *gw_d = nullptr, *gb_d = nullptr;
  aclTensor *dy_t = nullptr, *x_t = nullptr, *w_t = nullptr, *b_t = nullptr;
  aclTensor *gx_t = nullptr, *gw_t = nullptr, *gb_t = nullptr;
  int failed = 0;
  failed |= CreateAclTensor(dy, {t_out, batch, c_out}, &dy_d, ACL_FORMAT_NCL, &dy_t);
  failed |= CreateAclTensor(x, {t_in, batch, c_in}, &x_d, ACL_FORMAT_NCL, &x_t);
  failed |= CreateAclTensor(w, {taps, c_in, c_out}, &w_d, ACL_FORMAT_NCL, &w_t);
  failed |= CreateAclTensor(std::vector<float>(c_out, 0.0f), {c_out}, &b_d, ACL_FORMAT_ND, &b_t);
  failed |= CreateAclTensor(std::vector<float>(x.size()), {t_in, batch, c_in}, &gx_d,
                            ACL_FORMAT_NCL, &gx_t);
  failed |= CreateAclTensor(std::vector<float>(w.size()), {taps, c_in, c_out}, &gw_d,
                            ACL_FORMAT_NCL, &gw_t);
  failed |= CreateAclTensor(std::vector<float>(c_out), {c_out}, &gb_d, ACL_FORMAT_ND, &gb_t);
  CHECK_RET(failed == 0, "tensor creation failed\n");

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const int8_t cube_math_type = 0;  // KEEP_DTYPE: full FLOAT
  ret = aclnnConvTbcBackwardGetWorkspaceSize(dy_t, x_t, w_t, b_t, pad, cube_math_type, gx_t, gw_t,
                                             gb_t, &workspace_size, &executor);
  CHECK_RET(ret == ACL_SUCCESS, "aclnnConvTbcBackwardGetWorkspaceSize failed: %d (%s)\n", ret,
            aclGetRecentErrMsg());
  void* workspace = nullptr;
  if (workspace_size > 0) {
    ret = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, "workspace allocation failed: %d\n", ret);
  }
  ret = aclnnConvTbcBackward(workspace, workspace_size, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclnnConvTbcBackward failed: %d (%s)\n", ret,
            aclGetRecentErrMsg());
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d\n", ret);

  int mismatches = PrintAndCompare("gradInput", gx_d, expected_gx);
  mismatches += PrintAndCompare("gradWeight", gw_d, expected_gw);
  mismatches += PrintAndCompare("gradBias", gb_d, expected_gb);

  // An invalid call: cubeMathType 4 (USE_FP32_ADD) is not accepted by this operator.
  ret = aclnnConvTbcBackwardGetWorkspaceSize(dy_t, x_t, w_t, b_t, pad, 4, gx_t, gw_t, gb_t,
                                             &workspace_size, &executor);
  const char* message = aclGetRecentErrMsg();
  std::printf("cubeMathType 4: status %d, message \"%s\"\n", ret, message ? message : "");
  if (ret != 161002 || message == nullptr || message[0] == '\0') ++mismatches;

  for (aclTensor* t : {dy_t, x_t, w_t, b_t, gx_t, gw_t, gb_t}) aclDestroyTensor(t);
  for (void* p : {dy_d, x_d, w_d, b_d, gx_d, gw_d, gb_d, workspace}) {
    if (p != nullptr) aclrtFree(p);
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("conv_tbc_backward sample: %s (%d mismatches)\n", mismatches == 0 ? "PASS" : "FAIL",
              mismatches);
  return mismatches == 0 ? 0 : 1;
}
