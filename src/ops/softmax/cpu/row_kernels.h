#pragma once
// Highway kernels over one contiguous fp32 row buffer (the gathered row of the row engine),
// exported per target and called through OPENACLNN_DISPATCH with the plan's target.

#include <cstdint>

#include "backend/cpu/isa.h"

namespace openaclnn::softmax::cpu {

// Largest element of a[0..n) (NaN if any is NaN).
float RowMax(const openaclnn::cpu::KernelTarget& target, const float* a, int64_t n);
// Sum of exp(a[i] - m); when `store`, a[i] becomes exp(a[i] - m). Within blocks of 256, 16
// partial sums in a fixed order (the same bits on every SIMD target); block sums in double.
double RowExpSum(const openaclnn::cpu::KernelTarget& target, float* a, int64_t n, float m,
                 bool store);
// a[i] = a[i] * scale + shift.
void RowAffine(const openaclnn::cpu::KernelTarget& target, float* a, int64_t n, float scale,
               float shift);
// a[i] = a[i] - exp(b[i]) * s (product and difference rounded separately).
void RowSubExpScaled(const openaclnn::cpu::KernelTarget& target, float* a, const float* b,
                     int64_t n, float s);

}  // namespace openaclnn::softmax::cpu
