#pragma once
// The one test-tensor helper of every suite, CPU and CUDA: a tensor in aclrtMalloc memory (host
// memory on the CPU device, GPU memory on a CUDA device), placed inside a larger canary-filled
// buffer, in any of the layouts operators must accept (contiguous, padded, padded rows, permuted,
// broadcast, element-strided, offset, explicit strides of any sign, and their combinations), so
// tests can check results and that nothing outside the view was written. Element access goes
// through aclrtMemcpy, so the same test runs on either device.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace openaclnn::test {

// The byte a buffer is filled with before the test writes the view.
constexpr uint8_t kCanaryByte = 0x5A;
// 0xFF bytes are a NaN as FLOAT, FLOAT16, BFLOAT16 and DOUBLE: a kernel that reads outside its
// view (or an output element it never wrote) poisons the result instead of reading plain numbers.
constexpr uint8_t kNanCanaryByte = 0xFF;

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
  // The innermost stored dim's stride; every other stride is scaled by it too (elements `step`
  // apart, so no two view elements are adjacent when step > 1).
  int64_t step = 1;
  // Padded rows: the innermost `row_dims` stored dims form a row, and each row is followed by
  // `row_gap` unused elements (the rows stay contiguous, but not adjacent).
  int row_dims = 0;
  int64_t row_gap = 0;
  // Explicit element strides, one per dim, of any sign (0 aliases elements); when given, order,
  // broadcast, gap, step and the row gap are not used. With negative strides `offset` must reach
  // the view's lowest element.
  std::vector<int64_t> strides;
  aclFormat format = ACL_FORMAT_ND;  // the format the aclTensor reports
  uint8_t canary = kCanaryByte;      // what every buffer byte holds before the test writes
  std::string name = "contiguous";   // for failure messages

  static TensorLayout Contiguous() { return {}; }
  static TensorLayout Padded(int64_t gap);
  static TensorLayout Offset(int64_t offset);
  static TensorLayout Permuted(std::vector<int> order);
  static TensorLayout Broadcast(std::vector<int> dims);
  // Every element `step` apart, starting `offset` elements in.
  static TensorLayout Strided(int64_t step, int64_t offset = 0);
  // The innermost `row_dims` dims contiguous, each such row followed by `row_gap` elements.
  static TensorLayout PaddedRows(int row_dims, int64_t row_gap);
  static TensorLayout Explicit(std::vector<int64_t> strides, int64_t offset = 0);
  // Reversed storage order (a transpose for 2-D), padded and offset: every oddity at once.
  static TensorLayout Scrambled(int rank);

  // Copies with one field changed, to combine with the factories above.
  TensorLayout WithOffset(int64_t elements) const;
  TensorLayout WithTail(int64_t elements) const;
  TensorLayout WithFormat(aclFormat value) const;
  TensorLayout WithNanCanary() const;
  TensorLayout Named(std::string label) const;
};

class DeviceTensor {
 public:
  static constexpr uint8_t kCanary = kCanaryByte;
  // `dims` row-major; each dim's stride is padded by `gap` elements and the view starts `offset`
  // elements into the buffer, with `tail` spare elements after the last one.
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, int64_t gap = 0, int64_t offset = 0,
               int64_t tail = 0);
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, const TensorLayout& layout);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  // The start of the buffer (aclrtMalloc memory), e.g. to rebind an executor's tensor to it.
  void* data() const { return data_; }
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int64_t numel() const;
  // Row-major logical element i, as float / from float (with the dtype's rounding). Set returns
  // the value stored, as read back.
  float Get(int64_t i) const;
  double Set(int64_t i, float value);
  void Fill(const std::vector<float>& values);
  std::vector<float> Values() const;
  // Draws one U(lo, hi) float per element from `rng`, in row-major order, stores them and returns
  // the values stored (rounded to the dtype).
  std::vector<double> FillUniform(std::mt19937* rng, float lo, float hi);
  // The same for every dtype the library addresses (integers, BOOL, DOUBLE), exactly.
  double GetDouble(int64_t i) const;
  void FillDouble(const std::vector<double>& values);
  std::vector<double> ValuesDouble() const;
  // Every byte of the buffer (view, gaps and canaries), for bitwise comparisons.
  std::vector<uint8_t> Bytes() const;
  // Refills the whole buffer with the canary (an output between two runs).
  void Reset();
  // Bytes outside the view that no longer hold the canary.
  int64_t DamagedCanaries() const;
  // True when no byte of the buffer changed since construction or Reset (inside or outside the
  // view).
  bool Untouched() const;

 private:
  int64_t Index(int64_t i) const;
  void Upload(const std::vector<uint8_t>& bytes);
  std::vector<int64_t> dims_, strides_;
  int64_t offset_;
  aclDataType dtype_;
  size_t esize_;
  uint8_t canary_;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

}  // namespace openaclnn::test
