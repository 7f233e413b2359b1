#pragma once
// Small fp32 matrix products computed straight from their operands: attention's per-head products
// (64 x 64 x 64 per batch) and the like, where a BLAS call's per-call packing and set-up cost
// about as much as the arithmetic. The operands are read where they are (any row and column
// steps); only a B whose rows are not contiguous is first copied into a row-major scratch.

#include <cstdint>

#include "backend/cpu/isa.h"

namespace openaclnn::cpu {

// A matrix read in place: element (i, j) at data[i * row_step + j * col_step].
struct StridedFloats {
  const float* data = nullptr;
  int64_t row_step = 0;
  int64_t col_step = 1;
};

// Whether SmallGemm runs on `target`: the targets with fused multiply-add (on the others the
// products would round differently, so callers keep their BLAS there).
bool SmallGemmRuns(const KernelTarget& target);

// Whether an m x n x k product is one that SmallGemm does faster than the BLAS call (measured
// with bench_gemm_providers' small tiles).
bool SmallGemmPays(int64_t m, int64_t n, int64_t k);

// Row-major c (m x n, row stride ldc) = alpha * a @ b, plus c's own values when `accumulate`;
// a is m x k and b is k x n. Requires SmallGemmRuns(target).
//
// Numerics: every output is one chain of fused multiply-adds over p = 0, 1, ..., k - 1 starting
// from 0, then multiplied by alpha (and added to c): the same bits on every target, vector width
// and thread count.
void SmallGemm(const KernelTarget& target, int64_t m, int64_t n, int64_t k, float alpha,
               StridedFloats a, StridedFloats b, bool accumulate, float* c, int64_t ldc);

}  // namespace openaclnn::cpu
