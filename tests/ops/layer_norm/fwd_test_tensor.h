#pragma once
// Test helpers shared by the forward-operator suites (layer_norm, conv_tbc, gradient_check):
// device tensors with any layout and guard bytes around the view, header-only so each suite's
// executable compiles its own copy.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "api/dtype.h"

namespace openaclnn::fwd_test {

constexpr uint8_t kGuardByte = 0xA5;

// How a tensor's view is laid out in its storage: `order` lists the view dims from the outermost
// to the innermost stored one (empty: row-major); the innermost dim has element step `step`;
// each innermost line is followed by `pad` unused elements; the view starts at `offset`.
struct Layout {
  std::vector<int> order;
  int64_t step = 1;
  int64_t pad = 0;
  int64_t offset = 0;
  std::string name = "contiguous";
};

inline Layout Contiguous() { return Layout{}; }
inline Layout Padded() { return Layout{{}, 1, 3, 0, "padded"}; }
inline Layout Offset() { return Layout{{}, 1, 0, 7, "offset"}; }
inline Layout Strided() { return Layout{{}, 2, 0, 1, "strided"}; }
inline Layout Permuted(std::vector<int> order, std::string name) {
  return Layout{std::move(order), 1, 0, 0, std::move(name)};
}

inline float RoundTo(aclDataType dtype, float v) {
  switch (dtype) {
    case ACL_FLOAT16:
      return RoundThroughHalf(v);
    case ACL_BF16:
      return RoundThroughBFloat16(v);
    default:
      return v;
  }
}

// A tensor in device memory (aclrtMalloc) with its own storage, filled with guard bytes.
class DeviceTensor {
 public:
  DeviceTensor(std::vector<int64_t> shape, aclDataType dtype, const Layout& layout = Layout{},
               aclFormat format = ACL_FORMAT_ND)
      : shape_(std::move(shape)), dtype_(dtype) {
    const int rank = static_cast<int>(shape_.size());
    std::vector<int> order = layout.order;
    if (order.empty()) {
      for (int i = 0; i < rank; ++i) order.push_back(i);
    }
    strides_.assign(rank, 0);
    int64_t running = layout.step;
    numel_ = 1;
    for (int64_t d : shape_) numel_ *= d;
    for (int i = rank - 1; i >= 0; --i) {
      strides_[order[i]] = running;
      running *= std::max<int64_t>(shape_[order[i]], 1);
      if (i == rank - 1) running += layout.pad * layout.step;
    }
    offset_ = layout.offset;
    storage_elems_ = offset_ + running + 1;
    const size_t bytes = static_cast<size_t>(storage_elems_) * DTypeSize(dtype_);
    EXPECT_EQ(aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::memset(data_, kGuardByte, bytes);
    const std::vector<int64_t> storage = {storage_elems_};
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides_.data(), offset_,
                              format, storage.data(), 1, data_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }

  aclTensor* get() const { return tensor_; }
  int64_t numel() const { return numel_; }
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }

  // Element offset of row-major view index i.
  int64_t ElementOffset(int64_t i) const {
    int64_t off = offset_;
    for (int d = static_cast<int>(shape_.size()) - 1; d >= 0; --d) {
      off += (i % shape_[d]) * strides_[d];
      i /= shape_[d];
    }
    return off;
  }
  // Writes view element i rounded to the dtype; returns the stored value.
  double Set(int64_t i, float v) {
    StoreFromFloat(data_, dtype_, ElementOffset(i), v);
    return Get(i);
  }
  float Get(int64_t i) const { return LoadAsFloat(data_, dtype_, ElementOffset(i)); }
  std::vector<double> FillUniform(std::mt19937* rng, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<double> values(numel_);
    for (int64_t i = 0; i < numel_; ++i) values[i] = Set(i, dist(*rng));
    return values;
  }
  std::vector<double> FillValues(const std::vector<double>& v) {
    std::vector<double> stored(numel_);
    for (int64_t i = 0; i < numel_; ++i) stored[i] = Set(i, static_cast<float>(v[i]));
    return stored;
  }
  std::vector<float> ReadAll() const {
    std::vector<float> out(numel_);
    for (int64_t i = 0; i < numel_; ++i) out[i] = Get(i);
    return out;
  }
  std::vector<double> ReadAllDouble() const {
    std::vector<double> out(numel_);
    for (int64_t i = 0; i < numel_; ++i) out[i] = Get(i);
    return out;
  }
  // True when every storage byte outside the view still holds the guard byte.
  bool GapsUntouched() const {
    const size_t esize = DTypeSize(dtype_);
    std::vector<bool> in_view(static_cast<size_t>(storage_elems_), false);
    for (int64_t i = 0; i < numel_; ++i) in_view[ElementOffset(i)] = true;
    const uint8_t* bytes = static_cast<const uint8_t*>(data_);
    for (int64_t e = 0; e < storage_elems_; ++e) {
      if (in_view[e]) continue;
      for (size_t b = 0; b < esize; ++b) {
        if (bytes[e * esize + b] != kGuardByte) return false;
      }
    }
    return true;
  }
  bool AllUntouched() const {
    const uint8_t* bytes = static_cast<const uint8_t*>(data_);
    const size_t total = static_cast<size_t>(storage_elems_) * DTypeSize(dtype_);
    for (size_t b = 0; b < total; ++b) {
      if (bytes[b] != kGuardByte) return false;
    }
    return true;
  }

 private:
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  int64_t storage_elems_ = 0;
  int64_t numel_ = 0;
  aclDataType dtype_ = ACL_FLOAT;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// Runs phase 2 with a workspace from aclrtMalloc (when needed) and synchronises the stream.
template <class Phase2>
aclnnStatus RunPhase2AndSync(Phase2 phase2, uint64_t workspace_size, aclOpExecutor* executor,
                             aclrtStream stream) {
  void* workspace = nullptr;
  if (workspace_size > 0 &&
      aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ACLNN_ERR_INNER;
  }
  aclnnStatus st = phase2(workspace, workspace_size, executor, stream);
  if (st == ACLNN_SUCCESS && aclrtSynchronizeStream(stream) != ACL_SUCCESS) st = ACLNN_ERR_INNER;
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

// A stream for one test, destroyed with it.
class ScopedStream {
 public:
  ScopedStream() { EXPECT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;
  ~ScopedStream() { aclrtDestroyStream(stream_); }
  aclrtStream get() const { return stream_; }

 private:
  aclrtStream stream_ = nullptr;
};

}  // namespace openaclnn::fwd_test
