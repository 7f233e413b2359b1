#pragma once
// The SIMD kernels of the reduction engine's sums (fp32 accumulation of FLOAT, FLOAT16 and
// BFLOAT16 elements). Each follows the summation order of api/reduce.h exactly, lane for lane, so
// every Highway target (the scalar one included) gives the same bits.

#include <cstdint>

#include "api/elem_type.h"
#include "backend/cpu/isa.h"

namespace openaclnn::cpu {

// Run order: the lane sum of the n <= kRunChunk contiguous elements at `p` (kRunLanes lanes,
// element i into lane i % kRunLanes from +0, lanes folded by halving).
float SumRunChunk(const KernelTarget& target, const void* p, int64_t n, ElemType in_type);

// The same sum for `rows` runs of n <= kRunChunk elements, run r starting at element
// row_offsets[r] of `base`: sums[r].
void SumRunRows(const KernelTarget& target, const void* base, const int64_t* row_offsets,
                int64_t rows, int64_t n, ElemType in_type, float* sums);

// out[i] = sums[i] for i < count, contiguous, in out_type (FLOAT, FLOAT16 or BFLOAT16; one rounding
// to nearest even, the bits of api/dtype.h's conversions).
void StoreSums(const KernelTarget& target, const float* sums, int64_t count, void* out,
               ElemType out_type);

// Column order: acc[c] = x[r0][c] + x[r1][c] + ... one row after the other from +0, for c in
// [0, width), row k starting at element row_offsets[k] of `base` and its columns contiguous.
void SumColumnBlock(const KernelTarget& target, const void* base, const int64_t* row_offsets,
                    int64_t rows, int64_t width, ElemType in_type, float* acc);

// The same sums for consecutive blocks of equally spaced rows: `rows` rows, row k at element
// k * row_stride of `base`, cut into blocks of kColumnBlock (the last one possibly shorter); block
// b's sums go to acc[b * width + c]. Narrow tiles sum several blocks at once (same order per
// block).
void SumColumnBlocksStrided(const KernelTarget& target, const void* base, int64_t row_stride,
                            int64_t rows, int64_t width, ElemType in_type, float* acc);

}  // namespace openaclnn::cpu
