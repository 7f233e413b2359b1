#pragma once
// The cubeMathType emulation (spec decision D7) and the row conversions between tensors' storage
// dtypes and the fp32 panels the GEMM-based CPU plans feed to kernels/cpu/gemm.h (ConvTbcBackward,
// the matmul family). Each conversion runs the vector kernel compiled for `target` (the plan's,
// resolved in phase 1) and reproduces api/dtype.h's scalar conversions bit for bit.

#include <cstdint>

#include "acl/acl_base.h"
#include "backend/cpu/isa.h"

namespace openaclnn::cpu {

// How a GEMM operand is rounded before the products (decision D7).
enum class InputRounding {
  kNone,  // cubeMathType 0 (and 4), or 1/3 with a 16-bit compute type
  kHf32,  // cubeMathType 1 or 3 with FLOAT: 11 mantissa bits (RoundToHf32)
  kHalf,  // cubeMathType 2: every operand rounded to FLOAT16
};

// Decision D7's rounding for `cube_math_type` and the promoted compute dtype.
InputRounding RoundingFor(int8_t cube_math_type, aclDataType promoted);

// Scalar element transform for InputRounding.
float ApplyRounding(InputRounding rounding, float value);

// dst[i] = value of element i of a FLOAT/FLOAT16/BF16 row with `stride` elements between values.
void LoadRow(const KernelTarget& target, const void* src, aclDataType dtype, int64_t stride,
             int64_t n, float* dst);
// row[i] = ApplyRounding(rounding, row[i]).
void RoundRow(const KernelTarget& target, InputRounding rounding, float* row, int64_t n);
// sum[i] += row[i].
void AccumulateRow(const KernelTarget& target, const float* row, int64_t n, float* sum);
// Element i of the destination row = src[i] (rounded through FLOAT16 first when `via_half`),
// rounded once to `dtype`.
void StoreRow(const KernelTarget& target, const float* src, int64_t n, bool via_half, void* dst,
              aclDataType dtype, int64_t stride);

}  // namespace openaclnn::cpu
