// CANN-style sample: aclnnDropoutGenMaskV2 draws the mask of a 4 x 2 FLOAT tensor with drop
// probability 0.5 from (seed 1234, offset 0), then aclnnDropoutDoMask applies it. Prints the mask
// and the output and checks them against hard-coded values (the mask from an independent
// Philox4x32-10 implementation of the rule in docs/ops/dropout.md); returns non-zero on any
// mismatch.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"

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

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 8 elements: the mask holds align(8, 128) / 8 = 16 bytes.
  std::vector<int64_t> selfShape = {4, 2}, maskShape = {16};
  std::vector<float> selfHost = {1, 2, 3, 4, 5, 6, 7, 8}, zeros(8, 0.0f);
  std::vector<uint8_t> maskHost(16, 0);
  void *selfAddr = nullptr, *maskAddr = nullptr, *outAddr = nullptr;
  aclTensor *self = nullptr, *mask = nullptr, *out = nullptr;
  CHECK_RET(CreateAclTensor(selfHost, selfShape, &selfAddr, ACL_FLOAT, &self) == 0, return 1);
  CHECK_RET(CreateAclTensor(maskHost, maskShape, &maskAddr, ACL_UINT8, &mask) == 0, return 1);
  CHECK_RET(CreateAclTensor(zeros, selfShape, &outAddr, ACL_FLOAT, &out) == 0, return 1);
  aclIntArray* shape = aclCreateIntArray(selfShape.data(), selfShape.size());

  const double prob = 0.5;
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ret = aclnnDropoutGenMaskV2GetWorkspaceSize(shape, prob, 1234, 0, ACL_FLOAT, mask, &workspaceSize,
                                              &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnDropoutGenMaskV2GetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnDropoutGenMaskV2, "aclnnDropoutGenMaskV2");
  CHECK_RET(ret == 0, return ret);
  std::vector<uint8_t> maskGot(16);
  aclrtMemcpy(maskGot.data(), 16, maskAddr, 16, ACL_MEMCPY_DEVICE_TO_HOST);
  const uint8_t maskWant[16] = {165, 97,  37,  32,  58, 105, 145, 110,
                                87,  203, 128, 212, 88, 191, 252, 113};
  int bad = 0;
  for (int i = 0; i < 16; ++i) {
    LOG_PRINT("mask[%d] = %u\n", i, maskGot[i]);
    if (maskGot[i] != maskWant[i]) {
      LOG_PRINT("  mismatch: expected %u\n", maskWant[i]);
      ++bad;
    }
  }

  ret = aclnnDropoutDoMaskGetWorkspaceSize(self, mask, prob, out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnDropoutDoMaskGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  ret = RunPhase2(workspaceSize, executor, stream, aclnnDropoutDoMask, "aclnnDropoutDoMask");
  CHECK_RET(ret == 0, return ret);
  std::vector<float> outGot(8);
  aclrtMemcpy(outGot.data(), 8 * sizeof(float), outAddr, 8 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  // Mask byte 0 is 0b10100101: elements 0, 2, 5 and 7 kept and scaled by 1 / (1 - 0.5).
  const float outWant[8] = {2, 0, 6, 0, 0, 12, 0, 16};
  for (int i = 0; i < 8; ++i) {
    LOG_PRINT("out[%d] = %g\n", i, outGot[i]);
    if (outGot[i] != outWant[i]) {
      LOG_PRINT("  mismatch: expected %g\n", outWant[i]);
      ++bad;
    }
  }

  aclDestroyIntArray(shape);
  for (aclTensor* t : {self, mask, out}) aclDestroyTensor(t);
  for (void* p : {selfAddr, maskAddr, outAddr}) aclrtFree(p);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  LOG_PRINT(
      bad == 0 ? "dropout sample: all values as expected\n" : "dropout sample: %d mismatches\n",
      bad);
  return bad == 0 ? 0 : 1;
}
