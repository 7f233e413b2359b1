#pragma once
// The one test-tensor helper of every suite, CPU and CUDA: a tensor in aclrtMalloc memory (host
// memory on the CPU device, GPU memory on a CUDA device), placed inside a larger canary-filled
// buffer, in any of the layouts operators must accept (contiguous, padded, permuted, broadcast,
// offset, and their combinations), so tests can check results and that nothing outside the view
// was written. Element access goes through aclrtMemcpy, so the same test runs on either device.

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace openaclnn::test {

// How a view lies in its buffer. The fields combine: a permuted, padded view at an offset.
struct TensorLayout {
  int64_t gap = 0;     // each dim's stride is padded by `gap` elements
  int64_t offset = 0;  // the view starts `offset` elements into the buffer
  int64_t tail = 0;    // spare elements after the last one
  // Storage order of the dims, outermost first (a permutation of 0..rank-1); empty: row-major.
  // {1, 0} on a 2-D view is a transposed (column-major) view.
  std::vector<int> order;
  // Dims whose stride is 0 (every index reads one element: an expanded, broadcast view).
  std::vector<int> broadcast;

  static TensorLayout Contiguous() { return {}; }
  static TensorLayout Padded(int64_t gap) { return {gap, 0, 0, {}, {}}; }
  static TensorLayout Offset(int64_t offset) { return {0, offset, 0, {}, {}}; }
  static TensorLayout Permuted(std::vector<int> order) { return {0, 0, 0, std::move(order), {}}; }
  static TensorLayout Broadcast(std::vector<int> dims) { return {0, 0, 0, {}, std::move(dims)}; }
  // Reversed storage order (a transpose for 2-D), padded and offset: every oddity at once.
  static TensorLayout Scrambled(int rank);
};

class DeviceTensor {
 public:
  static constexpr uint8_t kCanary = 0x5A;
  // `dims` row-major; each dim's stride is padded by `gap` elements and the view starts `offset`
  // elements into the buffer, with `tail` spare elements after the last one.
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, int64_t gap = 0, int64_t offset = 0,
               int64_t tail = 0);
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, const TensorLayout& layout);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t numel() const;
  // Row-major logical element i, as float / from float (with the dtype's rounding).
  float Get(int64_t i) const;
  void Set(int64_t i, float value);
  void Fill(const std::vector<float>& values);
  std::vector<float> Values() const;
  // The same for every dtype the library addresses (integers, BOOL, DOUBLE), exactly.
  double GetDouble(int64_t i) const;
  void FillDouble(const std::vector<double>& values);
  std::vector<double> ValuesDouble() const;
  // Bytes outside the view that no longer hold the canary.
  int64_t DamagedCanaries() const;
  // True when no byte of the buffer changed since construction (inside or outside the view).
  bool Untouched() const;

 private:
  int64_t Index(int64_t i) const;
  std::vector<uint8_t> Download() const;
  void Upload(const std::vector<uint8_t>& bytes);
  std::vector<int64_t> dims_, strides_;
  int64_t offset_;
  aclDataType dtype_;
  size_t esize_;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

}  // namespace openaclnn::test
