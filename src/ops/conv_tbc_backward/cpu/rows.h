#pragma once
// Row conversions between the tensors' storage dtypes and the fp32 panels of the fast path. Each
// runs the vector kernel compiled for `target` (the plan's, resolved in phase 1).

#include <cstdint>

#include "acl/acl_base.h"
#include "backend/cpu/isa.h"
#include "ops/conv_tbc_backward/problem.h"

namespace openaclnn::conv_tbc {

// dst[i] = value of element i of a FLOAT/FLOAT16/BF16 row with `stride` elements between values.
void LoadRow(const cpu::KernelTarget& target, const void* src, aclDataType dtype, int64_t stride,
             int64_t n, float* dst);
// row[i] = ApplyRounding(rounding, row[i]).
void RoundRow(const cpu::KernelTarget& target, InputRounding rounding, float* row, int64_t n);
// sum[i] += row[i].
void AccumulateRow(const cpu::KernelTarget& target, const float* row, int64_t n, float* sum);
// Element i of the destination row = src[i] (rounded through FLOAT16 first when `via_half`),
// rounded once to `dtype`.
void StoreRow(const cpu::KernelTarget& target, const float* src, int64_t n, bool via_half,
              void* dst, aclDataType dtype, int64_t stride);

}  // namespace openaclnn::conv_tbc
