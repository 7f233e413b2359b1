#pragma once
// Small bfloat16 matrix products on the AMX tile unit, computed straight from their operands:
// attention's per-head products (64 x 64 x 64 per head) and the like, where oneDNN's per-call
// set-up, packing and dense-operand copies cost more than the multiplications. A and B are read
// where they lie (head views included); only the few kilobytes of one product are laid out in the
// tile unit's forms, in this thread's buffers.

#include <cstdint>

#include "kernels/cpu/gemm.h"

namespace openaclnn::cpu {

// A bfloat16 matrix read in place: element (i, j) at data[i * row_step + j * col_step].
struct StridedBf16 {
  const uint16_t* data = nullptr;
  int64_t row_step = 0;
  int64_t col_step = 1;
};

// Largest products TileGemmBf16 takes (its buffers are sized for them).
constexpr int64_t kTileGemmMaxRows = 64;
constexpr int64_t kTileGemmMaxCols = 64;
constexpr int64_t kTileGemmMaxDepth = 256;

// Whether this process may run TileGemmBf16: oneDNN reports AMX-BF16 as usable (so the
// ONEDNN_MAX_CPU_ISA cap applies here too) and Linux granted the process the tile state.
bool TileGemmRuns();

// Whether an m x n x k product with these operand layouts is one TileGemmBf16 takes and runs
// faster than oneDNN: m, n and k within the limits above, m >= 2, and A's and B's rows or
// columns contiguous.
bool TileGemmPays(int64_t m, int64_t n, int64_t k, const StridedBf16& a, const StridedBf16& b);

// Row-major c (m x n fp32, row stride ldc) = a @ b, plus c's own values when `accumulate`; a is
// m x k and b is k x n, bfloat16 bit patterns. Requires TileGemmRuns() and TileGemmPays().
//
// Numerics: the tile unit's dot products (TDPBF16PS): products of bfloat16 pairs summed into fp32
// accumulators over k in steps of 32, round to nearest even, bfloat16 subnormal inputs and fp32
// subnormal results as zero. The order depends on the shape alone: the same bits for any thread
// count. With `accumulate`, c's value is added once at the end.
void TileGemmBf16(int64_t m, int64_t n, int64_t k, const StridedBf16& a, const StridedBf16& b,
                  bool accumulate, float* c, int64_t ldc);

// The same product written to a bfloat16 c (row stride ldc), each output rounded once to nearest
// even from its fp32 sum.
void TileGemmBf16To(int64_t m, int64_t n, int64_t k, const StridedBf16& a, const StridedBf16& b,
                    uint16_t* c, int64_t ldc);

// B (k x n bfloat16, rows ldb apart, unit column stride) in pairs of rows, `cols` columns (a
// multiple of 32) a pair row: packed[q * 2 * cols + 2 * j + e] = B(2q + e, j) for q < depth / 2
// and j < cols, zero outside B: the tile unit's pair form, which is also oneDNN's blocked B
// (PackBlockedB) within one 64-column block. With AVX-512 permutes; returns false where this
// build or CPU has no AVX-512, and the caller then moves the elements itself.
bool PackRowPairs(const uint16_t* b, int64_t ldb, int64_t k, int64_t n, int64_t depth, int64_t cols,
                  uint16_t* packed);

// out = A @ B (+ out.bias row; c += that where out.accumulate) on the tile unit, for products of
// any size: A m x k bfloat16 bit patterns, row-major with row stride lda (or, with trans_a,
// column-major: A(i, p) at a[i + p * lda], a weight gradient's x^T); B in the blocked form
// of PackBlockedB (bfloat16), `blocked_b` at the product's first column block. Requires
// TileGemmRuns(), m, n, k >= 1. The reduction runs in chunks of kBlockedGemmDepth: for each
// chunk, 32 rows of A at a time are copied into this thread's buffer as whole tile registers (in
// place, a row stride of a power of two would put A's rows in a few cache sets) and multiplied,
// from L1, against every column of the chunk's rows of B (from L2). The fp32 sums of a group of
// rows (up to kBlockedGemmSums) wait in this thread's buffer between chunks; the last chunk adds
// the bias and writes out (BFLOAT16 rounded to nearest even once).
//
// Numerics: the tile unit's dot products in fp32 (as TileGemmBf16), summed over k in steps of
// 32 in k order; the split depends on the shape alone, so the bits do not depend on the thread
// count.
constexpr int64_t kBlockedGemmDepth = 256;
void BlockedGemmBf16(int64_t m, int64_t n, int64_t k, const uint16_t* a, int64_t lda, bool trans_a,
                     const uint16_t* blocked_b, const GemmOutput& out);

}  // namespace openaclnn::cpu
