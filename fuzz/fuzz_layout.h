#pragma once
// Small tensors in device memory with fuzzed layouts (contiguous, permuted, padded, offset), their
// values, and canary checks of every byte outside an output view. Used by the phase-2 fuzzers.

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "api/dtype.h"
#include "fuzz_tensors.h"
#include "util/precision.h"

namespace openaclnn::fuzz {

constexpr uint8_t kCanary = 0xA5;

class StridedTensor {
 public:
  StridedTensor(FuzzedDataProvider& fdp, Arena& arena, std::vector<int64_t> dims, aclDataType dtype)
      : dims_(std::move(dims)), dtype_(dtype), esize_(DTypeSize(dtype)) {
    const size_t rank = dims_.size();
    std::vector<size_t> order(rank);  // memory order, outermost first
    std::iota(order.begin(), order.end(), 0);
    const int layout = fdp.ConsumeIntegralInRange(0, 3);
    if (layout == 1 && rank > 1) {  // a permutation of the dims
      for (size_t i = rank - 1; i > 0; --i) {
        std::swap(order[i], order[fdp.ConsumeIntegralInRange<size_t>(0, i)]);
      }
    }
    strides_.assign(rank, 1);
    int64_t step = 1;
    for (size_t k = rank; k-- > 0;) {
      const size_t d = order[k];
      const int64_t pad = layout == 2 ? fdp.ConsumeIntegralInRange(0, 2) : 0;  // padded rows
      strides_[d] = step;
      step *= std::max<int64_t>(dims_[d], 1) + pad;
    }
    offset_ = layout == 3 ? fdp.ConsumeIntegralInRange(1, 5) : 0;
    int64_t last = offset_;
    for (size_t d = 0; d < rank; ++d) last += (std::max<int64_t>(dims_[d], 1) - 1) * strides_[d];
    bytes_ = static_cast<size_t>(last + 1 + fdp.ConsumeIntegralInRange(0, 3)) * esize_;
    aclrtMalloc(&storage_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST);
    std::memset(storage_, kCanary, bytes_);
    tensor_ = arena.Keep(aclCreateTensor(dims_.data(), rank, dtype_, strides_.data(), offset_,
                                         ACL_FORMAT_ND, dims_.data(), rank, storage_));
  }
  ~StridedTensor() { aclrtFree(storage_); }
  StridedTensor(const StridedTensor&) = delete;
  StridedTensor& operator=(const StridedTensor&) = delete;

  aclTensor* tensor() const { return tensor_; }
  aclDataType dtype() const { return dtype_; }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
  }
  // Storage index of the element with row-major logical index `i`.
  int64_t Index(int64_t i) const {
    int64_t at = offset_;
    for (size_t d = dims_.size(); d-- > 0;) {
      at += (i % dims_[d]) * strides_[d];
      i /= dims_[d];
    }
    return at;
  }
  void Set(int64_t i, float v) { StoreFromFloat(storage_, dtype_, Index(i), v); }
  // The stored value (after rounding to the dtype) as double.
  double Get(int64_t i) const { return LoadAsFloat(storage_, dtype_, Index(i)); }

  // True when every byte outside the view still holds the canary.
  bool CanariesIntact() const {
    std::vector<bool> inside(bytes_, false);
    for (int64_t i = 0; i < numel(); ++i) {
      const size_t at = static_cast<size_t>(Index(i)) * esize_;
      for (size_t b = 0; b < esize_; ++b) inside[at + b] = true;
    }
    const auto* p = static_cast<const uint8_t*>(storage_);
    for (size_t b = 0; b < bytes_; ++b) {
      if (!inside[b] && p[b] != kCanary) return false;
    }
    return true;
  }
  // True when no byte changed at all (an output that must not be written).
  bool Untouched() const {
    const auto* p = static_cast<const uint8_t*>(storage_);
    return std::all_of(p, p + bytes_, [](uint8_t b) { return b == kCanary; });
  }

 private:
  std::vector<int64_t> dims_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  aclDataType dtype_;
  size_t esize_;
  size_t bytes_ = 0;
  void* storage_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// Checks an output view against its float64 golden (row-major, the mixed tolerance of the
// output's dtype on every element) and that no byte outside the view changed.
inline void CheckAgainstGolden(const StridedTensor& t, const std::vector<double>& golden,
                               const char* what) {
  std::vector<float> actual(golden.size());
  for (size_t i = 0; i < golden.size(); ++i) {
    actual[i] = static_cast<float>(t.Get(static_cast<int64_t>(i)));
  }
  const std::string problem = test::CheckMixedTolerance(t.dtype(), actual.data(), golden.data(),
                                                        static_cast<int64_t>(golden.size()), what);
  FUZZ_CHECK(problem.empty(), "%s", problem.c_str());
  FUZZ_CHECK(t.CanariesIntact(), "%s: a byte outside the output view changed", what);
}

inline aclDataType ConsumeFloatDtype(FuzzedDataProvider& fdp) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[fdp.ConsumeIntegralInRange(0, 2)];
}

// Runs phase 2 with a fresh workspace and synchronises; returns the first failure.
template <class Phase2>
aclnnStatus RunPhase2AndSync(Phase2 phase2, uint64_t workspace_size, aclOpExecutor* executor) {
  FuzzRuntime& rt = FuzzRuntime::Get();
  // The workspace starts at an offset from its block that the problem picks (0 to 63 bytes, the
  // same for the same input): phase 2 must run wherever a caller's workspace starts.
  const size_t offset = static_cast<size_t>(workspace_size / 64 % 64);
  void* block = nullptr;
  if (workspace_size > 0) {
    aclrtMalloc(&block, static_cast<size_t>(workspace_size) + offset, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  void* workspace = block == nullptr ? nullptr : static_cast<unsigned char*>(block) + offset;
  aclnnStatus status = phase2(workspace, workspace_size, executor, rt.stream);
  if (status == 0) status = aclrtSynchronizeStream(rt.stream);
  if (block != nullptr) aclrtFree(block);
  return status;
}

}  // namespace openaclnn::fuzz
