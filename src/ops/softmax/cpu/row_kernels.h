#pragma once
// Highway kernels over one contiguous fp32 row buffer (the gathered row of the row engine),
// exported per target and called through OPENACLNN_DISPATCH with the plan's target.

#include <cstdint>

#include "backend/cpu/isa.h"

namespace openaclnn::softmax::cpu {

// The summation orders, shared by the row kernels, the engine's scalar sums and the panel kernels
// (column_kernels.h) so that a row gets the same bits on every path. RowExpSum: within blocks of
// kExpSumBlock elements, element i goes to partial sum i mod kExpSumPartials; the partials are
// added pairwise (8 into 0..7, then 4, 2, 1) and the block sums in double. The engine's scalar
// sums (the backward rows): within blocks of kScalarSumBlock, kScalarSumLanes interleaved partial
// sums over the whole groups, the rest of the block into the first; the partials added in order,
// the block sums in double.
constexpr int64_t kExpSumBlock = 256;
constexpr int64_t kExpSumPartials = 16;
constexpr int64_t kScalarSumBlock = 128;
constexpr int kScalarSumLanes = 8;

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

// Sum of a[i] * b[i] (a[i] when b is null) in the engine's scalar order (above), as float.
float RowScalarOrderSum(const openaclnn::cpu::KernelTarget& target, const float* a, const float* b,
                        int64_t n);
// a[i] = b[i] * (a[i] - s).
void RowScaledDiff(const openaclnn::cpu::KernelTarget& target, float* a, const float* b, int64_t n,
                   float s);

}  // namespace openaclnn::softmax::cpu
