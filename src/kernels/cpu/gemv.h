#pragma once
// The matrix-vector product of one-row matrix products (a decode step's x @ W): memory-bound, so
// it streams the matrix once, on the SIMD target a plan holds, with an accumulation order that is
// the same on every target (and so the same bits under every OPENACLNN_CPU_ISA cap; see the note
// on BFLOAT16 products below).

#include <cstdint>

#include "api/elem_type.h"
#include "backend/cpu/isa.h"

namespace openaclnn::cpu {

// y[j] = alpha * sum_p x[p] * B(p, j), plus y[j] when `accumulate`, for j < n and p < k. x is k
// contiguous elements; B(p, j) is b[p * ldb + j] (row-major k x n) or, with trans_b, b[j * ldb + p]
// (a weight.t() view of a row-major n x k matrix). x and B are FLOAT or BFLOAT16 (`type`, both the
// same); y is fp32.
//
// Numerics: products and sums in fp32 (products of BFLOAT16 values are exact). Row-major B: each
// y[j] sums its products in order of p. Transposed B: y[j] keeps P partial sums (16 for FLOAT, 32
// for BFLOAT16), partial i taking the products p = i, i + P, i + 2P, ... in order of p, then adds
// them pairwise (i + P/2 into i, then + P/4, ..., + 1). None of it depends on the vector width.
// The transposed form's main loop adds BFLOAT16 products (exact in fp32) by fused multiply-adds
// where the target has them: the same bits as a product and an add, except for products outside
// fp32's normal range on the targets without FMA (SSE4, scalar).
void GemvRowMajor(const KernelTarget& target, ElemType type, bool trans_b, int64_t n, int64_t k,
                  float alpha, const void* x, const void* b, int64_t ldb, bool accumulate,
                  float* y);

}  // namespace openaclnn::cpu
