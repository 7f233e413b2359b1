#pragma once
// The single-precision matrix product every CPU operator uses, behind one small interface so the
// provider can change without touching the operators.
//
// Provider: oneDNN's dnnl_sgemm, chosen by measurement (docs/ops/conv_tbc_backward.md): on the
// 2-core AVX-512 machines it reaches 88-96 % of the FMA peak with no environment variable, while
// Debian's OpenBLAS needs OPENBLAS_CORETYPE and BLIS runs AVX2 or generic kernels.

#include <algorithm>
#include <cstdint>

#include "api/status.h"
#include "backend/cpu/isa.h"

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

// True when oneDNN's effective ISA includes AVX-512, where its matmul primitive runs FLOAT
// products on brgemm kernels (MatmulRowMajorTo); elsewhere callers keep SgemmRowMajor.
bool HasBrgemmFloat();

// Row-major C (fp32) = op(A) * op(B) (+ C when `accumulate`), with A and B bfloat16 bit patterns;
// op(A) m x k and op(B) k x n, row strides in elements. Products are exact in fp32 and summed in
// fp32 (bfloat16 subnormal inputs count as zero, as the hardware dot product treats them).
// Single-threaded and deterministic like SgemmRowMajor; primitives are cached per shape.
Status Bf16GemmRowMajor(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                        const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                        bool accumulate, float* c, int64_t ldc);

// oneDNN 2.6's matmul primitive runs a product on its brgemm kernels only when A, B and C are
// dense: each row stride equal to the product's own width (a transposed A only when the product
// has all of A's rows). Any other call goes to its older gemm:jit kernels, which pack both
// operands per call: inside the training example's BF16 step they ran at 130-150 GFLOP/s a core
// against 160-170 for brgemm (DNNL_VERBOSE, Zen 4, 2026-12-06); a single-threaded 512 x 512 x 1024
// FLOAT tile ran at 101-103 GFLOP/s dense against 94-96 with C's rows 4096 apart.
// A tile narrower than its output reads B (unless transposed) and writes C with the output's row
// stride, so callers cut products of up to kFullWidthCols columns into full-width row tiles; wider
// products keep narrower tiles, as every full-width tile would pack all of B again, and write them
// through a dense scratch tile.
constexpr int64_t kFullWidthCols = 1024;
// The output forms of MatmulRowMajorTo: C's dtype, and an optional bias row added to every row
// of the product before C is written (so a BFLOAT16 C is rounded once, from the fp32 sum).
enum class GemmElement : uint8_t { kFloat, kBf16 };
struct GemmOutput {
  void* c = nullptr;  // m x n, row stride ldc, FLOAT or BFLOAT16 as c_type
  int64_t ldc = 0;
  GemmElement c_type = GemmElement::kFloat;
  const void* bias = nullptr;  // n contiguous elements of bias_type, or null
  GemmElement bias_type = GemmElement::kFloat;
  // c (FLOAT, no bias) += the product, rather than c = the product: a long reduction cut into
  // dense chunks (ColumnPanels) sums them into one C, in chunk order.
  bool accumulate = false;
};

// A row-major rows x cols matrix stored as column panels: panel j holds columns [j * width,
// j * width + Width(j)) as a dense rows x Width(j) matrix, the panels one after another. Any run
// of rows of one panel is then a dense operand (row stride equal to its width), which oneDNN's
// brgemm kernels take (see kFullWidthCols): a product over a panel's columns, or a reduction over
// its rows cut into chunks, reads it in place whatever the first row.
struct ColumnPanels {
  int64_t rows = 0, cols = 0, width = 1;
  int64_t Count() const { return cols > 0 ? (cols + width - 1) / width : 0; }
  int64_t Width(int64_t j) const { return std::min(width, cols - j * width); }
  int64_t Elements() const { return rows * cols; }
  // Element offset of row r of panel j.
  int64_t At(int64_t r, int64_t j) const { return rows * j * width + r * Width(j); }
};
// Writes a source row of `panels.cols` elements of `type` (bfloat16 bit patterns or FLOAT),
// `stride` elements apart, as row r of every panel of the matrix at `base`.
void ScatterRowToPanels(const ColumnPanels& panels, GemmElement type, const void* src,
                        int64_t stride, int64_t r, void* base);

// Row-major out.c = op(A) * op(B) (+ bias row) through oneDNN's matmul primitive, k >= 1, with A
// and B both FLOAT or both bfloat16 bit patterns (ab_type; bfloat16 as for Bf16GemmRowMajor); C
// is written directly in its dtype (BFLOAT16 rounded to nearest even once). Single-threaded and
// deterministic like SgemmRowMajor; primitives are cached per shape. Dense calls (see
// kFullWidthCols) run on oneDNN's brgemm kernels, which for FLOAT also beat dnnl_sgemm where
// sgemm's call is not dense or adds a bias through beta (HasBrgemmFloat).
Status MatmulRowMajorTo(GemmElement ab_type, bool trans_a, bool trans_b, int64_t m, int64_t n,
                        int64_t k, const void* a, int64_t lda, const void* b, int64_t ldb,
                        const GemmOutput& out);

// True when oneDNN's effective ISA includes AMX with bfloat16 (its brgemm kernels then multiply on
// the tile unit).
bool HasAmxBf16();

// op(B) of a product laid out once in the blocked form oneDNN's brgemm kernels read: blocks of 64
// columns one after another, each block the block's k rows padded to a multiple of the depth step
// (bfloat16: 32, as BA16a64b2a, each row pair interleaved, (B(2q, j), B(2q + 1, j)); FLOAT: 16, as
// BA16a64b, plain rows of 64), n padded to a multiple of 64, padding zero. Given B in this form,
// the kernels skip the copy into it that they make of a plain or transposed B in every call, so a
// B that several row tiles share is laid out once per call instead of once per tile. Measured
// with a standalone oneDNN timing program (not under bench/), one thread of an AMX Xeon: BFLOAT16
// 512 x 512 x 1024 0.54-0.57 against 0.62-0.68 ms, 128 x 512 x 1024 0.125 against 0.163 ms
// (2026-12-06); FLOAT with B read transposed, 128 x 256 x 256 0.079-0.080 against 0.088 ms,
// 128 x 256 x 1024 0.320-0.330 against 0.370-0.373, 64 x 256 x 1024 0.163-0.170 against
// 0.198-0.203 (2026-12-07).
// A column block starts every 64 columns: a tile whose columns start at a multiple of 64 reads
// its part of the blocked B from that block on.
constexpr int64_t kBlockedBCols = 64;
constexpr int64_t kBlockedBDepth = 32;       // BFLOAT16
constexpr int64_t kBlockedBDepthFloat = 16;  // FLOAT
// k rounded up to the depth step of `type`: a column block holds BlockedBDepth(type, k) *
// kBlockedBCols elements.
int64_t BlockedBDepth(GemmElement type, int64_t k);
int64_t BlockedBElements(GemmElement type, int64_t k, int64_t n);
// A blocked BFLOAT16 B of at most this many bytes is laid out by every thread that runs tiles of
// the product, into its own buffer, rather than once by all threads into the workspace (which
// then books none for it). Every thread reads all of B, and half of a shared copy was written by
// the other core just before: the tiles of bench_matmul's BF16 block products ran 15-20 % slower
// on two threads than on one (summed per tile, Intel Xeon with AMX, 2026-12-07), and each thread
// laying B out again costs less than that (see gemm_plan.cpp's BlockB).
constexpr int64_t kMaxPerThreadBlockedBBytes = int64_t{1} << 20;
// Writes the column blocks [block0, block1) of op(B) (k x n; transposed when trans_b, row stride
// ldb) into `blocked`, the base of the whole blocked matrix: bfloat16 bit patterns, or FLOAT.
void PackBlockedB(const KernelTarget& target, bool trans_b, int64_t k, int64_t n, const uint16_t* b,
                  int64_t ldb, int64_t block0, int64_t block1, uint16_t* blocked);
void PackBlockedB(const KernelTarget& target, bool trans_b, int64_t k, int64_t n, const float* b,
                  int64_t ldb, int64_t block0, int64_t block1, float* blocked);
// Whether oneDNN runs a product of this tile shape on its brgemm kernels with B blocked as above
// (BFLOAT16: on AMX; FLOAT: on AVX-512), writing C as `out` describes (its c and bias pointers are
// not used). Creates and caches the primitive that MatmulBlockedBTo then runs.
bool BlockedBRuns(GemmElement ab_type, bool trans_a, int64_t m, int64_t n, int64_t k, int64_t lda,
                  const GemmOutput& out);
// out.c = op(A) * B (+ bias row) as MatmulRowMajorTo, with A of ab_type and B in the blocked
// form, `blocked_b` pointing at the tile's first column block.
Status MatmulBlockedBTo(GemmElement ab_type, bool trans_a, int64_t m, int64_t n, int64_t k,
                        const void* a, int64_t lda, const void* blocked_b, const GemmOutput& out);

// "oneDNN x.y.z sgemm" for logs and benchmarks.
const char* GemmProviderName();

}  // namespace openaclnn::cpu
