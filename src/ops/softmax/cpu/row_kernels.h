#pragma once
// The Highway kernel of one contiguous fp32 row (a gathered row buffer, or the tensors' own rows
// when they are contiguous FLOAT), exported per target and called through OPENACLNN_DISPATCH
// with the plan's target.

#include <cstdint>

#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "ops/softmax/problem.h"

namespace openaclnn::softmax::cpu {

// The summation orders, shared by the row kernels, the engine's scalar sums and the panel kernels
// (column_kernels.h) so that a row gets the same bits on every path. The exponentials: within
// blocks of kExpSumBlock elements, element i goes to partial sum i mod kExpSumPartials; the
// partials are added pairwise (8 into 0..7, then 4, 2, 1) and the block sums in double. The
// engine's scalar sums (the backward rows): within blocks of kScalarSumBlock, kScalarSumLanes
// interleaved partial sums over the whole groups, the rest of the block into the first; the
// partials added in order, the block sums in double.
constexpr int64_t kExpSumBlock = 256;
constexpr int64_t kExpSumPartials = 16;
constexpr int64_t kScalarSumBlock = 128;
constexpr int kScalarSumLanes = 8;

// One fp32 row of `kind`: out from x (self, or gradOutput for the backward) and y (the forward's
// output, backward only). out may be x or y (the same elements), not a shifted view of them.
// Forward: the row max (NaN for a row holding a NaN), e^(x - max) exactly 0 below -87, summed in
// the exponentials' order above, then out = e * (1 / sum) (softmax) or (x - max) - log(sum)
// (log-softmax). Backward: the sum (g * y or g) in the scalar order above, then y * (g - sum) or
// g - e^y * sum, each product and difference rounded separately.
void RunRow(const openaclnn::cpu::KernelTarget& target, Kind kind, int64_t n, const float* x,
            const float* y, float* out);

// A contiguous row of FLOAT, FLOAT16 or BFLOAT16 elements in each tensor (y null for the forward).
struct ConvertedRow {
  const void* x;
  ElemType x_type;
  const void* y;
  ElemType y_type;
  void* out;
  ElemType out_type;
};

// RunRow on a row widened exactly into a (and y into b), n floats each, computed in a and rounded
// once into out: the same bits as gathering, RunRow and scattering, in one call.
void RunRowConverted(const openaclnn::cpu::KernelTarget& target, Kind kind, int64_t n,
                     const ConvertedRow& row, float* a, float* b);

}  // namespace openaclnn::softmax::cpu
