#pragma once
// Turns fuzzer bytes into aclnn arguments: mostly coherent problems with one field disturbed, and
// sometimes outright hostile tensors (any dtype, rank 0 to 9, negative or huge dims, wild strides
// and offsets, null pointers). Only public headers: this is what a user's code can pass.

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace openaclnn::fuzz {

// Aborts the fuzzer with a message: libFuzzer records the input as a crash.
#define FUZZ_CHECK(cond, ...)                                 \
  do {                                                        \
    if (!(cond)) {                                            \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s: ", #cond); \
      std::fprintf(stderr, __VA_ARGS__);                      \
      std::fprintf(stderr, "\n");                             \
      std::abort();                                           \
    }                                                         \
  } while (0)

// The runtime state every fuzz input shares: device 0, one stream, one small device block that
// tensors may point into (phase 1 reads no data, but checks extents against the block).
struct FuzzRuntime {
  aclrtStream stream = nullptr;
  void* block = nullptr;
  static constexpr size_t kBlockBytes = 4096;
  static FuzzRuntime& Get() {
    static FuzzRuntime* runtime = [] {
      auto* r = new FuzzRuntime;
      aclInit(nullptr);
      aclrtSetDevice(0);
      aclrtCreateStream(&r->stream);
      aclrtMalloc(&r->block, kBlockBytes, ACL_MEM_MALLOC_HUGE_FIRST);
      return r;
    }();
    return *runtime;
  }
};

// Owns what one fuzz input creates.
class Arena {
 public:
  ~Arena() {
    for (aclTensor* t : tensors_) aclDestroyTensor(t);
    for (aclIntArray* a : int_arrays_) aclDestroyIntArray(a);
    for (aclBoolArray* a : bool_arrays_) aclDestroyBoolArray(a);
  }
  aclTensor* Keep(aclTensor* t) {
    if (t != nullptr) tensors_.push_back(t);
    return t;
  }
  aclIntArray* Keep(aclIntArray* a) {
    if (a != nullptr) int_arrays_.push_back(a);
    return a;
  }
  aclBoolArray* Keep(aclBoolArray* a) {
    if (a != nullptr) bool_arrays_.push_back(a);
    return a;
  }

 private:
  std::vector<aclTensor*> tensors_;
  std::vector<aclIntArray*> int_arrays_;
  std::vector<aclBoolArray*> bool_arrays_;
};

inline aclDataType ConsumeDtype(FuzzedDataProvider& fdp) {
  static const aclDataType kGood[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  static const int kOther[] = {ACL_DOUBLE,
                               ACL_INT32,
                               ACL_INT64,
                               ACL_BOOL,
                               ACL_DT_UNDEFINED,
                               ACL_COMPLEX64,
                               ACL_STRING,
                               ACL_INT8,
                               ACL_UINT1,
                               5,
                               99,
                               -7};
  if (fdp.ConsumeIntegralInRange(0, 9) < 8) return kGood[fdp.ConsumeIntegralInRange(0, 2)];
  return static_cast<aclDataType>(kOther[fdp.ConsumeIntegralInRange(0, 11)]);
}

inline int64_t ConsumeHostileInt(FuzzedDataProvider& fdp) {
  static const int64_t kValues[] = {-1,
                                    -7,
                                    0,
                                    1,
                                    1LL << 20,
                                    1LL << 31,
                                    (1LL << 31) - 1,
                                    1LL << 40,
                                    1LL << 62,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::max() / 3};
  return kValues[fdp.ConsumeIntegralInRange(0, 11)];
}

inline int64_t ConsumeDim(FuzzedDataProvider& fdp) {
  return fdp.ConsumeIntegralInRange(0, 15) == 0 ? ConsumeHostileInt(fdp)
                                                : fdp.ConsumeIntegralInRange(0, 5);
}

inline aclFormat ConsumeFormat(FuzzedDataProvider& fdp) {
  static const int kFormats[] = {
      ACL_FORMAT_ND,         ACL_FORMAT_NCL,       ACL_FORMAT_NCHW, ACL_FORMAT_NC,
      ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_UNDEFINED, ACL_FORMAT_NHWC, 1234};
  return fdp.ConsumeIntegralInRange(0, 3) != 0
             ? ACL_FORMAT_ND
             : static_cast<aclFormat>(kFormats[fdp.ConsumeIntegralInRange(0, 7)]);
}

// Where a tensor's storage starts: the shared device block (possibly too small), a spot inside
// it, or nowhere.
inline void* ConsumeAddress(FuzzedDataProvider& fdp) {
  FuzzRuntime& rt = FuzzRuntime::Get();
  switch (fdp.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return nullptr;
    case 1:
      return static_cast<char*>(rt.block) +
             fdp.ConsumeIntegralInRange<size_t>(0, rt.kBlockBytes - 1);
    default:
      return rt.block;
  }
}

// A tensor with the given view dims (or fuzzed ones) and fuzzed everything else.
inline aclTensor* MakeTensor(FuzzedDataProvider& fdp, Arena& arena, std::vector<int64_t> dims,
                             aclDataType dtype) {
  std::vector<int64_t> strides;
  const int64_t* stride_ptr = nullptr;
  int64_t offset = 0;
  if (fdp.ConsumeIntegralInRange(0, 3) == 0) {
    strides.resize(dims.size());
    for (auto& s : strides) {
      s = fdp.ConsumeIntegralInRange(0, 15) == 0 ? ConsumeHostileInt(fdp)
                                                 : fdp.ConsumeIntegralInRange(-3, 9);
    }
    stride_ptr = strides.data();
  }
  if (fdp.ConsumeIntegralInRange(0, 5) == 0) {
    offset = fdp.ConsumeBool() ? ConsumeHostileInt(fdp) : fdp.ConsumeIntegralInRange(0, 64);
  }
  std::vector<int64_t> storage = dims;
  if (fdp.ConsumeBool()) storage = {static_cast<int64_t>(FuzzRuntime::kBlockBytes / 2)};
  return arena.Keep(aclCreateTensor(dims.data(), dims.size(), dtype, stride_ptr, offset,
                                    ConsumeFormat(fdp), storage.data(), storage.size(),
                                    ConsumeAddress(fdp)));
}

// A fully fuzzed tensor: rank 0 to 9.
inline aclTensor* ConsumeHostileTensor(FuzzedDataProvider& fdp, Arena& arena) {
  if (fdp.ConsumeIntegralInRange(0, 7) == 0) return nullptr;
  const int rank = fdp.ConsumeIntegralInRange(0, 15) == 0 ? fdp.ConsumeIntegralInRange(5, 9)
                                                          : fdp.ConsumeIntegralInRange(0, 4);
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (auto& d : dims) d = ConsumeDim(fdp);
  return MakeTensor(fdp, arena, dims, ConsumeDtype(fdp));
}

// Disturbs one entry of a coherent shape now and then.
inline std::vector<int64_t> MaybeDisturb(FuzzedDataProvider& fdp, std::vector<int64_t> dims) {
  if (fdp.ConsumeIntegralInRange(0, 7) != 0) return dims;
  switch (fdp.ConsumeIntegralInRange(0, 3)) {
    case 0:
      if (!dims.empty())
        dims[fdp.ConsumeIntegralInRange<size_t>(0, dims.size() - 1)] = ConsumeDim(fdp);
      break;
    case 1:
      dims.push_back(ConsumeDim(fdp));
      break;
    case 2:
      if (!dims.empty()) dims.pop_back();
      break;
    default:
      dims.insert(dims.begin(), 1);
      break;
  }
  return dims;
}

// Checks the phase-1 contract: an allowed status, a message on failure, an executor on success
// (released again here).
inline void CheckPhase1(aclnnStatus status, aclOpExecutor* executor, const char* op) {
  FUZZ_CHECK(status == 0 || status == 161001 || status == 161002, "%s phase 1 returned %d", op,
             status);
  if (status != 0) {
    const char* message = aclGetRecentErrMsg();
    FUZZ_CHECK(message != nullptr && message[0] != '\0', "%s: status %d without a message", op,
               status);
    return;
  }
  FUZZ_CHECK(executor != nullptr, "%s: success without an executor", op);
  FUZZ_CHECK(aclDestroyAclOpExecutor(executor) == 0, "%s: executor could not be destroyed", op);
}

}  // namespace openaclnn::fuzz
