#pragma once
// The views the aclnnConvTbcBackward suites (CPU and CUDA) lay their tensors out in, as
// test::TensorLayouts with explicit strides, and the test::DeviceTensor built in one. Every
// buffer holds the NaN canary outside the view, so reads outside the view poison results and
// writes outside it are detected, and 16 spare elements after the view. Header-only: tests/cuda
// includes it too.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/device_tensor.h"

namespace openaclnn::test {

enum class Layout {
  kContiguous,      // row-major strides
  kPermuted,        // dim 0 innermost, then dim 2, then dim 1 (rank 3; others contiguous)
  kPadded,          // unit inner stride, padded rows and time steps (rank 3)
  kOffset,          // contiguous strides after an element offset
  kStridedOutputs,  // inputs contiguous; outputs with every stride > extent (gaps everywhere)
  kReversedTime,    // negative stride on dim 0 (time, tap or channel), offset to its last entry
};

inline const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kContiguous:
      return "contiguous";
    case Layout::kPermuted:
      return "permuted";
    case Layout::kPadded:
      return "padded";
    case Layout::kOffset:
      return "offset";
    case Layout::kStridedOutputs:
      return "strided-outputs";
    case Layout::kReversedTime:
      return "reversed-time";
  }
  return "?";
}

// `layout` for a tensor of `shape`; `is_output` selects the strided variant of kStridedOutputs.
inline TensorLayout ConvTbcLayout(Layout layout, const std::vector<int64_t>& shape,
                                  bool is_output) {
  const int rank = static_cast<int>(shape.size());
  auto dim = [&](int i) { return std::max<int64_t>(shape[i], 1); };
  std::vector<int64_t> strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) strides[i] = strides[i + 1] * dim(i + 1);
  int64_t offset = 0;
  if (layout == Layout::kPermuted && rank == 3) {
    strides = {1, dim(0) * dim(2), dim(0)};
  } else if (layout == Layout::kPadded && rank == 3) {
    strides[1] = shape[2] + 3;
    strides[0] = shape[1] * strides[1] + 5;
  } else if (layout == Layout::kOffset) {
    offset = 7;
  } else if (layout == Layout::kStridedOutputs && is_output) {
    if (rank == 3) {
      strides = {shape[1] * (2 * shape[2] + 1) + 2, 2 * shape[2] + 1, 2};
      offset = 3;
    } else {
      strides[0] = 3;
      offset = 2;
    }
  } else if (layout == Layout::kReversedTime) {
    strides[0] = -strides[0];
    offset = (dim(0) - 1) * -strides[0];
  }
  return TensorLayout::Explicit(std::move(strides), offset)
      .WithTail(16)
      .WithNanCanary()
      .Named(LayoutName(layout));
}

// A tensor of `shape` in `layout` (the views may be returned by value: C++17 elides the copy).
inline DeviceTensor ConvTbcTensor(std::vector<int64_t> shape, aclDataType dtype, Layout layout,
                                  bool is_output, aclFormat format = ACL_FORMAT_ND) {
  const TensorLayout view = ConvTbcLayout(layout, shape, is_output).WithFormat(format);
  return DeviceTensor(std::move(shape), dtype, view);
}

}  // namespace openaclnn::test
