// The start-up and first operator of a CANN backend (as llama.cpp's does it): device queries,
// the compile options an adapter sets before its first operator, then aclnnRmsNorm and aclnnMul on
// device memory, checked against values computed here in double. Returns non-zero on a mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_rms_norm.h"

#define CHECK_ACL(expr)                                                                    \
  do {                                                                                     \
    auto check_status_ = (expr);                                                           \
    if (check_status_ != 0) {                                                              \
      std::fprintf(stderr, "%s failed: %d (%s)\n", #expr, static_cast<int>(check_status_), \
                   aclGetRecentErrMsg());                                                  \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

namespace {

struct Buffer {
  void* data = nullptr;
  aclTensor* tensor = nullptr;
  size_t count = 0;
  ~Buffer() {
    if (tensor != nullptr) aclDestroyTensor(tensor);
    if (data != nullptr) aclrtFree(data);
  }
};

int Upload(const std::vector<float>& host, const std::vector<int64_t>& shape, Buffer* buffer) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  buffer->count = host.size();
  const size_t bytes = host.size() * sizeof(float);
  CHECK_ACL(aclrtMalloc(&buffer->data, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(buffer->data, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  buffer->tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0,
                                   ACL_FORMAT_ND, shape.data(), shape.size(), buffer->data);
  return buffer->tensor == nullptr ? 1 : 0;
}

std::vector<float> Download(const Buffer& buffer) {
  std::vector<float> host(buffer.count);
  aclrtMemcpy(host.data(), host.size() * sizeof(float), buffer.data, host.size() * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  return host;
}

int Run(uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream,
        aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  void* workspace = nullptr;
  if (workspace_size > 0)
    CHECK_ACL(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(phase2(workspace, workspace_size, executor, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));
  if (workspace != nullptr) aclrtFree(workspace);
  return 0;
}

}  // namespace

int main() {
  CHECK_ACL(aclInit(nullptr));
  uint32_t devices = 0;
  CHECK_ACL(aclrtGetDeviceCount(&devices));
  CHECK_ACL(aclrtSetDevice(0));
  const char* soc = aclrtGetSocName();
  if (soc == nullptr || std::strncmp(soc, "Ascend", 6) != 0) {
    std::fprintf(stderr, "aclrtGetSocName: expected an Ascend SoC name, got %s\n",
                 soc == nullptr ? "nullptr" : soc);
    return 1;
  }
  size_t free_bytes = 0, total_bytes = 0;
  CHECK_ACL(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
  // What a backend sets before its first operator; openaclnn records it and reads it back.
  CHECK_ACL(aclSetCompileopt(ACL_OP_JIT_COMPILE, "disable"));
  CHECK_ACL(aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype"));
  char mode[64] = {0};
  CHECK_ACL(aclGetCompileopt(ACL_PRECISION_MODE, mode, sizeof(mode)));
  if (std::strcmp(mode, "must_keep_origin_dtype") != 0) {
    std::fprintf(stderr, "aclGetCompileopt: got '%s'\n", mode);
    return 1;
  }
  std::printf("toolkit sample: %u device(s), SoC %s, %zu MiB total\n", devices, soc,
              total_bytes >> 20);
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  int bad = 0;
  {
    // y = x * rstd * gamma over rows of 8, then out = y * y.
    const int rows = 3, cols = 8;
    std::vector<float> x(rows * cols), gamma(cols);
    for (int i = 0; i < rows * cols; ++i) x[i] = 0.25f * static_cast<float>((i * 7) % 11) - 1.0f;
    for (int c = 0; c < cols; ++c) gamma[c] = 0.5f + 0.125f * static_cast<float>(c);
    Buffer xb, gb, yb, rb, ob;
    if (Upload(x, {rows, cols}, &xb) || Upload(gamma, {cols}, &gb) ||
        Upload(std::vector<float>(rows * cols), {rows, cols}, &yb) ||
        Upload(std::vector<float>(rows), {rows, 1}, &rb) ||
        Upload(std::vector<float>(rows * cols), {rows, cols}, &ob)) {
      return 1;
    }
    const double eps = 1e-6;
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    CHECK_ACL(aclnnRmsNormGetWorkspaceSize(xb.tensor, gb.tensor, eps, yb.tensor, rb.tensor, &ws,
                                           &executor));
    if (Run(ws, executor, stream, aclnnRmsNorm) != 0) return 1;
    CHECK_ACL(aclnnMulGetWorkspaceSize(yb.tensor, yb.tensor, ob.tensor, &ws, &executor));
    if (Run(ws, executor, stream, aclnnMul) != 0) return 1;
    const std::vector<float> y = Download(yb), out = Download(ob);
    for (int r = 0; r < rows; ++r) {
      double squares = 0;
      for (int c = 0; c < cols; ++c)
        squares += static_cast<double>(x[r * cols + c]) * x[r * cols + c];
      const double rstd = 1.0 / std::sqrt(squares / cols + eps);
      for (int c = 0; c < cols; ++c) {
        const double want = x[r * cols + c] * rstd * gamma[c];
        const float got = y[r * cols + c];
        if (std::fabs(got - want) > 1e-5 * (1 + std::fabs(want)) ||
            out[r * cols + c] != got * got) {
          std::fprintf(stderr, "row %d col %d: y %g (want %g), y*y %g\n", r, c, got, want,
                       out[r * cols + c]);
          ++bad;
        }
      }
    }
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  if (bad != 0) return 1;
  std::printf("toolkit sample: RmsNorm and Mul match\n");
  return 0;
}
