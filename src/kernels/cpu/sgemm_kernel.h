#pragma once
// openaclnn's own single-precision matrix product: packed panels and a register-blocked Highway
// micro-kernel, on the SIMD target a plan holds. cpu::SgemmRowMajor runs it on the targets with
// fused multiply-add and falls back to oneDNN's dnnl_sgemm on the others.

#include <cstdint>

#include "backend/cpu/isa.h"

namespace openaclnn::cpu {

// The reduction is cut into blocks of this many products (the same on every target).
inline constexpr int64_t kSgemmDepthBlock = 256;

// True when `target` runs PackedSgemm's micro-kernel (a target with fused multiply-add: AVX2,
// AVX-512, NEON on aarch64, SVE). False for SSE4, SSSE3 and the scalar target.
bool HasPackedSgemm(const KernelTarget& target);

// The target to run the kernel on for a plan on `planning`: `planning` itself when it has fused
// multiply-add, else the best target of the CPU when that has (an OPENACLNN_CPU_ISA cap of sse4 or
// scalar: the kernel's bits are the same on every target with fused multiply-add, so the cap
// changes no GEMM result, as it changed none with oneDNN, which ignores it). On a CPU without
// fused multiply-add the answer fails HasPackedSgemm.
KernelTarget PackedSgemmTarget(const KernelTarget& planning);

// Row-major C = alpha * op(A) * op(B) + beta * C as cpu::SgemmRowMajor describes it (m, n, k >= 1;
// beta == 0 never reads C), on the calling thread. `target` must satisfy HasPackedSgemm.
//
// Numerics: each C element is a chain of fused multiply-adds over p in order, restarted every
// kSgemmDepthBlock products; the first block's sum s gives C = alpha * s (+ beta * C, fused), each
// later block's sum s gives C = C + alpha * s (fused; a plain add when alpha is 1). The order
// depends on k alone, so the bits are the same for any tiling of C, any thread count and every
// target with fused multiply-add, x86-64 or aarch64.
void PackedSgemm(const KernelTarget& target, bool trans_a, bool trans_b, int64_t m, int64_t n,
                 int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                 float beta, float* c, int64_t ldc);

// Whole operands packed once and shared by every tile of a product (the matmul plans): op(A)
// (m x k) as row panels of `rows` rows, op(B) (k x n) as column panels of `width` columns, each
// cut into the depth blocks above. PackedSgemm's order and bits again.
struct SgemmPanelShape {
  int64_t rows;   // rows of an A panel (the register block's rows)
  int64_t width;  // columns of a B panel (two vectors)
};
SgemmPanelShape PackedSgemmPanelShape(const KernelTarget& target);

// Floats of a packed op(A) (m x k) and a packed op(B) (k x n).
int64_t PackedSgemmASize(const KernelTarget& target, int64_t m, int64_t k);
int64_t PackedSgemmBSize(const KernelTarget& target, int64_t k, int64_t n);

// Packs panels [panel_begin, panel_end) of op(A) (rows panel_begin * rows ...) or of op(B)
// (columns panel_begin * width ...) into `packed`, the whole operand's buffer; tasks may pack
// disjoint panel ranges of one buffer concurrently.
void PackSgemmA(const KernelTarget& target, bool trans_a, const float* a, int64_t lda, int64_t m,
                int64_t k, int64_t panel_begin, int64_t panel_end, float* packed);
void PackSgemmB(const KernelTarget& target, bool trans_b, const float* b, int64_t ldb, int64_t k,
                int64_t n, int64_t panel_begin, int64_t panel_end, float* packed);

// C (m x n, row stride ldc) = alpha * op(A)[i0 .. i0 + m) x op(B)[:, j0 .. j0 + n) + beta * C from
// packed operands of a_rows rows and b_cols columns; i0 a multiple of the panel rows, j0 of the
// panel width, m, n, k >= 1.
void SgemmOnPanels(const KernelTarget& target, int64_t m, int64_t n, int64_t k,
                   const float* packed_a, int64_t a_rows, int64_t i0, const float* packed_b,
                   int64_t b_cols, int64_t j0, float alpha, float beta, float* c, int64_t ldc);

}  // namespace openaclnn::cpu
