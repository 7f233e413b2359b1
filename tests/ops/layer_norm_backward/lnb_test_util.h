#pragma once
// Helpers for the LayerNorm backward tests: device tensors with any layout, inputs rounded to
// their dtype, the two-phase call, and the float64 golden on dense arrays.

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

namespace openaclnn::lnb_test {

// How a tensor is laid out in its storage.
enum class Layout {
  kContiguous,
  kTransposedLead,  // leading dims stored in reverse order, the row block contiguous
  kPaddedRows,      // rows contiguous, row pitch N + 3
  kOffset,          // contiguous at element offset 7
  kStrided,         // every element 2 apart, offset 1: rows are not contiguous
};
constexpr Layout kAllLayouts[] = {Layout::kContiguous, Layout::kTransposedLead, Layout::kPaddedRows,
                                  Layout::kOffset, Layout::kStrided};
const char* LayoutName(Layout layout);

constexpr uint8_t kGuardByte = 0xA5;

// A tensor in device memory (aclrtMalloc) with its own storage, filled with guard bytes.
class DeviceTensor {
 public:
  DeviceTensor() = default;
  DeviceTensor(std::vector<int64_t> shape, aclDataType dtype, int begin, Layout layout);
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  ~DeviceTensor();

  aclTensor* get() const { return tensor_; }
  int64_t numel() const { return numel_; }
  aclDataType dtype() const { return dtype_; }
  // Writes view element i (row-major) from a float, rounded to the dtype; returns the stored
  // value as double.
  double Set(int64_t i, float v);
  // Reads view element i as float.
  float Get(int64_t i) const;
  // Fills the view with U(lo, hi), returning the stored (rounded) values.
  std::vector<double> FillUniform(std::mt19937* rng, float lo, float hi);
  std::vector<float> ReadAll() const;
  // True when every storage byte outside the view still holds the guard byte.
  bool GapsUntouched() const;
  // True when every storage byte holds the guard byte (an output that must not be written).
  bool AllUntouched() const;

 private:
  int64_t ElementOffset(int64_t i) const;

  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  int64_t storage_elems_ = 0;
  int64_t numel_ = 0;
  aclDataType dtype_ = ACL_FLOAT;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// The two phases, a workspace from aclrtMalloc and a stream synchronisation.
aclnnStatus RunLayerNormBackward(const aclTensor* dy, const aclTensor* x,
                                 const std::vector<int64_t>& norm, const aclTensor* mean,
                                 const aclTensor* rstd, const aclTensor* w, const aclTensor* b,
                                 const bool mask[3], aclTensor* dx, aclTensor* gw, aclTensor* gb,
                                 uint64_t* workspace_size = nullptr);

// Dense float64 golden.
void GoldenLayerNormBackward(int64_t m, int64_t n, const bool mask[3],
                             const std::vector<double>& dy, const std::vector<double>& x,
                             const std::vector<double>& mean, const std::vector<double>& rstd,
                             const std::vector<double>* w, std::vector<double>* dx,
                             std::vector<double>* gw, std::vector<double>* gb);

// Creates a stream once for the process and returns it.
aclrtStream TestStream();

}  // namespace openaclnn::lnb_test
