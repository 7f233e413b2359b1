#pragma once
// The single-precision matrix product every CPU operator uses, behind one small interface so the
// provider can change without touching the operators.
//
// Provider: oneDNN's dnnl_sgemm, chosen by measurement (docs/ops/conv_tbc_backward.md): on the
// 2-core AVX-512 machines it reaches 88-96 % of the FMA peak with no environment variable, while
// Debian's OpenBLAS needs OPENBLAS_CORETYPE and BLIS runs AVX2 or generic kernels.

#include <cstdint>

#include "api/status.h"

namespace openaclnn::cpu {

// Row-major C = alpha * op(A) * op(B) + beta * C, with op(A) m x k and op(B) k x n; lda, ldb and
// ldc are row strides in elements. beta == 0 means C is write-only (never read, so it may hold
// NaN). m, n or k may be 0 (k == 0 leaves beta * C; beta == 0 then writes zeros).
//
// Numerics: runs on the calling thread only, whatever the process's OpenMP settings, so the
// result depends on the arguments alone, never on the thread count. Callers parallelise by
// splitting the output into fixed tiles and calling this once per tile from ParallelFor tasks.
Status SgemmRowMajor(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                     int64_t ldc);

// True when the CPU multiplies bfloat16 natively (oneDNN's effective ISA includes AVX512_BF16 or
// AMX), so Bf16GemmRowMajor runs at about twice the fp32 rate; false otherwise, and then callers
// should convert to fp32 and use SgemmRowMajor instead.
bool HasFastBf16Gemm();

// Row-major C (fp32) = op(A) * op(B) (+ C when `accumulate`), with A and B bfloat16 bit patterns;
// op(A) m x k and op(B) k x n, row strides in elements. Products are exact in fp32 and summed in
// fp32 (bfloat16 subnormal inputs count as zero, as the hardware dot product treats them).
// Single-threaded and deterministic like SgemmRowMajor; primitives are cached per shape.
Status Bf16GemmRowMajor(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                        const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                        bool accumulate, float* c, int64_t ldc);

// "oneDNN x.y.z sgemm" for logs and benchmarks.
const char* GemmProviderName();

}  // namespace openaclnn::cpu
