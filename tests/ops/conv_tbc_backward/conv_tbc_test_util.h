#pragma once
// Helpers of the aclnnConvTbcBackward tests: device tensors with layouts and guard bytes, the
// two-phase call, and the float64 golden model fed the same emulation-rounded inputs.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "api/dtype.h"
#include "ops/conv_tbc_backward/reference.h"

namespace openaclnn::test {

enum class Layout {
  kContiguous,      // row-major strides
  kPermuted,        // a permutation of a contiguous buffer (no dim has unit stride but one)
  kPadded,          // unit inner stride, padded rows and time steps
  kOffset,          // contiguous strides after an element offset
  kStridedOutputs,  // inputs contiguous; outputs with every stride > extent (gaps everywhere)
  kReversedTime,    // negative stride on dim 0 (time, tap or channel), offset to its last entry
};
const char* LayoutName(Layout layout);

// A tensor in aclrtMalloc memory. Every storage element outside the view holds a guard pattern
// (a NaN for 32-bit types) before the call, so reads outside the view poison results and writes
// outside it are detected.
class DeviceTensor {
 public:
  DeviceTensor(std::vector<int64_t> shape, aclDataType dtype, Layout layout, bool is_output,
               aclFormat format = ACL_FORMAT_ND);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* tensor() const { return tensor_; }
  void* data() const { return device_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  aclDataType dtype() const { return dtype_; }
  int64_t numel() const { return numel_; }
  // Values in view (row-major) order; Fill rounds them to the dtype. Returns what was stored.
  std::vector<float> Fill(std::mt19937* rng, float lo = -1.f, float hi = 1.f);
  void FillValues(const std::vector<float>& values);
  std::vector<float> Read() const;         // view order, as float
  std::vector<uint8_t> ReadBytes() const;  // the whole storage
  // "" when every storage element outside the view still holds the guard pattern.
  std::string CheckGuards() const;

 private:
  int64_t StorageIndex(int64_t linear) const;
  std::vector<int64_t> shape_, strides_;
  int64_t offset_ = 0, storage_elems_ = 0, numel_ = 0;
  aclDataType dtype_;
  void* device_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

struct CallResult {
  aclnnStatus phase1 = 0;
  aclnnStatus phase2 = 0;
  aclError sync = 0;
  uint64_t workspace = 0;
  std::string message;
};

// Two-phase call on `stream` (allocating the workspace), then synchronisation.
CallResult CallConvTbcBackward(const aclTensor* self, const aclTensor* input,
                               const aclTensor* weight, const aclTensor* bias, int64_t pad,
                               int8_t cube_math_type, aclTensor* grad_input, aclTensor* grad_weight,
                               aclTensor* grad_bias, aclrtStream stream);

// Rounding the emulation applies to self, input and weight (decision D7), as the test sees it.
float EmulationRound(float value, int cube_math_type, aclDataType promoted);

}  // namespace openaclnn::test
