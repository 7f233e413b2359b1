#pragma once
// When a (T, B, C) or (K, Cin, Cout) tensor view can be handed to a row-major GEMM as it is,
// without packing: both ConvTbc operators ask this of their inputs and outputs.

#include <algorithm>
#include <cstdint>

#include "api/tensor_desc.h"

namespace openaclnn::cpu {

// A (T, B, C) view whose row r = t * B + b starts at first + r * ld, with unit column stride.
inline bool RowMatrixLd(const TensorDesc& d, int64_t* ld) {
  const int64_t T = d.dims[0], B = d.dims[1], C = d.dims[2];
  if (C > 1 && d.strides[2] != 1) return false;
  int64_t l = std::max<int64_t>(C, 1);
  if (B > 1) {
    l = d.strides[1];
    int64_t time_stride = 0;
    if (T > 1 && (__builtin_mul_overflow(B, l, &time_stride) || time_stride != d.strides[0])) {
      return false;
    }
  } else if (T > 1) {
    l = d.strides[0];
  }
  if (T * B > 1 && l < std::max<int64_t>(C, 1)) return false;
  *ld = std::max(l, std::max<int64_t>(C, 1));
  return true;
}

// A (K, Cin, Cout) view whose tap k is a row-major matrix at first + k * tap_stride with row
// stride ld; taps laid out backwards are packed instead.
inline bool TapMatrixLd(const TensorDesc& d, int64_t* ld, int64_t* tap_stride) {
  const int64_t K = d.dims[0], R = d.dims[1], C = d.dims[2];
  if (C > 1 && d.strides[2] != 1) return false;
  const int64_t l = R > 1 ? d.strides[1] : std::max<int64_t>(C, 1);
  if (R > 1 && l < std::max<int64_t>(C, 1)) return false;
  if (K > 1 && d.strides[0] < 0) return false;
  *ld = std::max(l, std::max<int64_t>(C, 1));
  *tap_stride = K > 1 ? d.strides[0] : 0;
  return true;
}

}  // namespace openaclnn::cpu
