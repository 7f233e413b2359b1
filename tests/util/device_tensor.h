#pragma once
// A tensor in aclrtMalloc memory, placed inside a larger canary-filled buffer with strided gaps,
// so tests can check that nothing outside the view was written.

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace openaclnn::test {

class DeviceTensor {
 public:
  static constexpr uint8_t kCanary = 0x5A;
  // `dims` row-major; each dim's stride is padded by `gap` elements and the view starts `offset`
  // elements into the buffer, with `tail` spare elements after the last one.
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, int64_t gap = 0, int64_t offset = 0,
               int64_t tail = 0);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  int64_t numel() const;
  // Row-major logical element i, as float / from float (with the dtype's rounding).
  float Get(int64_t i) const;
  void Set(int64_t i, float value);
  void Fill(const std::vector<float>& values);
  std::vector<float> Values() const;
  // Bytes outside the view that no longer hold the canary.
  int64_t DamagedCanaries() const;
  // True when no byte of the buffer changed since construction (inside or outside the view).
  bool Untouched() const;

 private:
  int64_t Index(int64_t i) const;
  std::vector<int64_t> dims_, strides_;
  int64_t offset_;
  aclDataType dtype_;
  size_t esize_;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

}  // namespace openaclnn::test
