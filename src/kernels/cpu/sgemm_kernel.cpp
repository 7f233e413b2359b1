#include "kernels/cpu/sgemm_kernel.h"

#include <algorithm>
#include <cstring>

#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/sgemm_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// The layout of one call (the loops of BLIS and of Goto's GEMM): C is cut into column blocks of
// kColumnBlock; for each, the reduction runs in depth blocks of kSgemmDepthBlock; each depth block
// of op(B) is packed once into column panels of two vectors' width (every row of a panel
// contiguous, zero-padded to the full width), and op(A) is packed per row block of about
// kRowBlock rows into row panels of kRows rows (every column of a panel contiguous). The
// micro-kernel keeps a kRows x 2-vector block of C in registers through a whole depth block,
// reading one broadcast of A and two vectors of B per step. The B panel it works on (256 x 32
// floats on AVX-512) stays in the L1 cache while the A panels of the row block stream past it
// from L2.

#ifndef OPENACLNN_SGEMM_KERNEL_SHARED
#define OPENACLNN_SGEMM_KERNEL_SHARED
namespace openaclnn::cpu {
namespace {

constexpr int64_t kColumnBlock = 1024;
constexpr int64_t kRowBlock = 160;

// A growing, 64-byte aligned buffer of floats, one per thread and use.
class PanelBuffer {
 public:
  float* Get(size_t count) {
    if (count > size_) {
      data_ = hwy::AllocateAligned<float>(count);
      size_ = count;
    }
    return data_.get();
  }

 private:
  hwy::AlignedFreeUniquePtr<float[]> data_;
  size_t size_ = 0;
};

}  // namespace
}  // namespace openaclnn::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows of the register block: 8 x 2 accumulators with 32 vector registers (AVX-512, NEON on
// aarch64, SVE), 4 x 2 with 16 (AVX2 and older x86 targets). 14 x 2 ran no faster on AVX-512
// (185-190 GFLOP/s from L1 on one core either way), and a power of two lets the matmul plans'
// tiles (multiples of 16 rows) start on panel edges without uneven tiles.
#if HWY_ARCH_X86 && (HWY_TARGET & (HWY_AVX2 | HWY_SSE4 | HWY_SSSE3))
constexpr int kRows = 4;
#else
constexpr int kRows = 8;
#endif

bool HasFma() {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128 || \
    (HWY_ARCH_X86 && (HWY_TARGET & (HWY_SSE4 | HWY_SSSE3)))
  return false;
#else
  return true;
#endif
}

// How a depth block's sums reach C.
struct StoreMode {
  bool first;  // first depth block: C = alpha * s (+ beta * C); later blocks: C = C + alpha * s
  float alpha;
  float beta;
};

template <class D, class V>
HWY_INLINE void StoreBlockRow(D d, V s, float* c, const StoreMode& mode) {
  if (mode.first) {
    V v = mode.alpha == 1.0f ? s : hn::Mul(hn::Set(d, mode.alpha), s);
    if (mode.beta != 0.0f) v = hn::MulAdd(hn::Set(d, mode.beta), hn::LoadU(d, c), v);
    hn::StoreU(v, d, c);
  } else if (mode.alpha == 1.0f) {
    hn::StoreU(hn::Add(hn::LoadU(d, c), s), d, c);
  } else {
    hn::StoreU(hn::MulAdd(hn::Set(d, mode.alpha), s, hn::LoadU(d, c)), d, c);
  }
}

#define OPENACLNN_SGEMM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

// C[kRows x 2 vectors] from a packed A panel (depth x kRows) and a packed B panel (depth x 2
// vectors). The accumulators are named variables, not an array: SVE's vectors have no size.
HWY_NOINLINE void MicroKernel(int64_t depth, const float* HWY_RESTRICT ap,
                              const float* HWY_RESTRICT bp, float* c, int64_t ldc,
                              const StoreMode mode) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
#define OPENACLNN_SGEMM_DECLARE(i) auto c##i##0 = hn::Zero(d), c##i##1 = hn::Zero(d);
  OPENACLNN_SGEMM_ROWS(OPENACLNN_SGEMM_DECLARE)
#undef OPENACLNN_SGEMM_DECLARE
  // C's rows are stored (and maybe read) after the loop: fetch them meanwhile.
  for (int i = 0; i < kRows; ++i) {
    hwy::Prefetch(c + i * ldc);
    hwy::Prefetch(c + i * ldc + 2 * lanes - 1);
  }
#pragma GCC unroll 4
  for (int64_t p = 0; p < depth; ++p) {
    const auto b0 = hn::LoadU(d, bp);
    const auto b1 = hn::LoadU(d, bp + lanes);
#define OPENACLNN_SGEMM_STEP(i)           \
  if ((i) < kRows) {                      \
    const auto a = hn::Set(d, ap[(i)]);   \
    c##i##0 = hn::MulAdd(a, b0, c##i##0); \
    c##i##1 = hn::MulAdd(a, b1, c##i##1); \
  }
    OPENACLNN_SGEMM_ROWS(OPENACLNN_SGEMM_STEP)
#undef OPENACLNN_SGEMM_STEP
    ap += kRows;
    bp += 2 * lanes;
  }
#define OPENACLNN_SGEMM_STORE(i)                          \
  if ((i) < kRows) {                                      \
    StoreBlockRow(d, c##i##0, c + (i)*ldc, mode);         \
    StoreBlockRow(d, c##i##1, c + (i)*ldc + lanes, mode); \
  }
  OPENACLNN_SGEMM_ROWS(OPENACLNN_SGEMM_STORE)
#undef OPENACLNN_SGEMM_STORE
}

#undef OPENACLNN_SGEMM_ROWS

// out[p * ld_out + i] = src[i * ld_src + p] for i < rows, p < cols: 4 x 4 blocks through
// 128-bit vectors where the target has them, element by element at the edges.
void TransposeInto(const float* src, int64_t ld_src, int64_t rows, int64_t cols, float* out,
                   int64_t ld_out) {
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::FixedTag<float, 4> d4;
  const int64_t cols4 = cols / 4 * 4;
  for (; i + 4 <= rows; i += 4) {
    const float* r = src + i * ld_src;
    for (int64_t p = 0; p < cols4; p += 4) {
      const auto r0 = hn::LoadU(d4, r + p), r1 = hn::LoadU(d4, r + ld_src + p);
      const auto r2 = hn::LoadU(d4, r + 2 * ld_src + p), r3 = hn::LoadU(d4, r + 3 * ld_src + p);
      const auto t0 = hn::InterleaveLower(d4, r0, r1), t1 = hn::InterleaveLower(d4, r2, r3);
      const auto t2 = hn::InterleaveUpper(d4, r0, r1), t3 = hn::InterleaveUpper(d4, r2, r3);
      float* o = out + p * ld_out + i;
      hn::StoreU(hn::ConcatLowerLower(d4, t1, t0), d4, o);
      hn::StoreU(hn::ConcatUpperUpper(d4, t1, t0), d4, o + ld_out);
      hn::StoreU(hn::ConcatLowerLower(d4, t3, t2), d4, o + 2 * ld_out);
      hn::StoreU(hn::ConcatUpperUpper(d4, t3, t2), d4, o + 3 * ld_out);
    }
    for (int64_t p = cols4; p < cols; ++p) {
      for (int64_t ii = i; ii < i + 4; ++ii) out[p * ld_out + ii] = src[ii * ld_src + p];
    }
  }
#endif
  for (; i < rows; ++i) {
    const float* r = src + i * ld_src;
    for (int64_t p = 0; p < cols; ++p) out[p * ld_out + i] = r[p];
  }
}

// Packs op(B) rows [p0, p0 + depth) x columns [j0, j0 + cols) into panels of `width` columns:
// panel q holds columns j0 + q * width ..., row p of it at out + q * width * depth + p * width.
void PackB(bool trans_b, const float* b, int64_t ldb, int64_t p0, int64_t depth, int64_t j0,
           int64_t cols, int64_t width, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t q0 = 0; q0 < cols; q0 += width) {
    const int64_t w = std::min(width, cols - q0);
    float* panel = out + (q0 / width) * width * depth;
    if (!trans_b) {
      // Row p of op(B) is contiguous: copy it.
      for (int64_t p = 0; p < depth; ++p) {
        const float* src = b + (p0 + p) * ldb + j0 + q0;
        float* dst = panel + p * width;
        if (w == width) {
          for (int64_t j = 0; j < width; j += lanes) hn::StoreU(hn::LoadU(d, src + j), d, dst + j);
        } else {
          std::memcpy(dst, src, sizeof(float) * static_cast<size_t>(w));
          std::fill(dst + w, dst + width, 0.0f);
        }
      }
    } else {
      // Column j of op(B) is row j of the stored matrix: transposed in 4 x 4 blocks.
      TransposeInto(b + (j0 + q0) * ldb + p0, ldb, w, depth, panel, width);
      for (int64_t p = 0; w < width && p < depth; ++p) {
        std::fill(panel + p * width + w, panel + (p + 1) * width, 0.0f);
      }
    }
  }
}

// Packs op(A) rows [i0, i0 + rows) x columns [p0, p0 + depth) into panels of kRows rows: panel q
// holds rows i0 + q * kRows ..., column p of it at out + q * kRows * depth + p * kRows.
void PackA(bool trans_a, const float* a, int64_t lda, int64_t i0, int64_t rows, int64_t p0,
           int64_t depth, float* out) {
  for (int64_t q0 = 0; q0 < rows; q0 += kRows) {
    const int64_t h = std::min<int64_t>(kRows, rows - q0);
    float* panel = out + (q0 / kRows) * kRows * depth;
    if (trans_a) {
      // Column p of op(A) is row p of the stored matrix: copy it.
      for (int64_t p = 0; p < depth; ++p) {
        const float* src = a + (p0 + p) * lda + i0 + q0;
        float* dst = panel + p * kRows;
        std::memcpy(dst, src, sizeof(float) * static_cast<size_t>(h));
        std::fill(dst + h, dst + kRows, 0.0f);
      }
    } else {
      TransposeInto(a + (i0 + q0) * lda + p0, lda, h, depth, panel, kRows);
      for (int64_t p = 0; h < kRows && p < depth; ++p) {
        std::fill(panel + p * kRows + h, panel + (p + 1) * kRows, 0.0f);
      }
    }
  }
}

// One depth block: C[rows x cols] (+)= A panels x B panels, the B panel outer so that it stays
// in the L1 cache while the A panels stream past it. Partial register blocks run on a copy in
// `edge` (kRows x width).
void ComputeBlock(int64_t depth, const float* a_panels, int64_t rows, const float* b_panels,
                  int64_t cols, float* c, int64_t ldc, const StoreMode& mode, float* edge) {
  const hn::ScalableTag<float> d;
  const int64_t width = 2 * static_cast<int64_t>(hn::Lanes(d));
  for (int64_t jp = 0; jp < cols; jp += width) {
    const int64_t w = std::min(width, cols - jp);
    const float* b_panel = b_panels + (jp / width) * width * depth;
    for (int64_t ip = 0; ip < rows; ip += kRows) {
      const int64_t h = std::min<int64_t>(kRows, rows - ip);
      const float* a_panel = a_panels + (ip / kRows) * kRows * depth;
      float* c_block = c + ip * ldc + jp;
      if (h == kRows && w == width) {
        MicroKernel(depth, a_panel, b_panel, c_block, ldc, mode);
        continue;
      }
      const bool reads_c = !mode.first || mode.beta != 0.0f;
      for (int64_t i = 0; i < h && reads_c; ++i) {
        std::memcpy(edge + i * width, c_block + i * ldc, sizeof(float) * static_cast<size_t>(w));
      }
      MicroKernel(depth, a_panel, b_panel, edge, width, mode);
      for (int64_t i = 0; i < h; ++i) {
        std::memcpy(c_block + i * ldc, edge + i * width, sizeof(float) * static_cast<size_t>(w));
      }
    }
  }
}

float* EdgeBuffer() {
  const hn::ScalableTag<float> d;
  thread_local PanelBuffer edge;
  return edge.Get(static_cast<size_t>(kRows * 2 * hn::Lanes(d)));
}

void PackedSgemmImpl(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                     int64_t ldc) {
  const hn::ScalableTag<float> d;
  const int64_t width = 2 * static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t row_block = (kRowBlock + kRows - 1) / kRows * kRows;
  thread_local PanelBuffer a_buffer, b_buffer;
  const int64_t column_block = std::min<int64_t>(kColumnBlock, (n + width - 1) / width * width);
  float* packed_b = b_buffer.Get(static_cast<size_t>(column_block * kSgemmDepthBlock));
  float* packed_a = a_buffer.Get(static_cast<size_t>(row_block * kSgemmDepthBlock));
  float* edge = EdgeBuffer();
  for (int64_t jc = 0; jc < n; jc += kColumnBlock) {
    const int64_t nc = std::min(kColumnBlock, n - jc);
    for (int64_t p0 = 0; p0 < k; p0 += kSgemmDepthBlock) {
      const int64_t depth = std::min(kSgemmDepthBlock, k - p0);
      const StoreMode mode{p0 == 0, alpha, beta};
      PackB(trans_b, b, ldb, p0, depth, jc, nc, width, packed_b);
      for (int64_t ic = 0; ic < m; ic += row_block) {
        const int64_t mc = std::min(row_block, m - ic);
        PackA(trans_a, a, lda, ic, mc, p0, depth, packed_a);
        ComputeBlock(depth, packed_a, mc, packed_b, nc, c + ic * ldc + jc, ldc, mode, edge);
      }
    }
  }
}

SgemmPanelShape PanelShape() {
  const hn::ScalableTag<float> d;
  return {kRows, 2 * static_cast<int64_t>(hn::Lanes(d))};
}

void PackPanelsOfA(bool trans_a, const float* a, int64_t lda, int64_t m, int64_t k,
                   int64_t panel_begin, int64_t panel_end, float* out) {
  const int64_t m_pad = (m + kRows - 1) / kRows * kRows;
  const int64_t i0 = panel_begin * kRows;
  const int64_t rows = std::min(m, panel_end * kRows) - i0;
  if (rows <= 0) return;
  for (int64_t p0 = 0; p0 < k; p0 += kSgemmDepthBlock) {
    const int64_t depth = std::min(kSgemmDepthBlock, k - p0);
    PackA(trans_a, a, lda, i0, rows, p0, depth, out + p0 * m_pad + i0 * depth);
  }
}

void PackPanelsOfB(bool trans_b, const float* b, int64_t ldb, int64_t k, int64_t n,
                   int64_t panel_begin, int64_t panel_end, float* out) {
  const SgemmPanelShape shape = PanelShape();
  const int64_t n_pad = (n + shape.width - 1) / shape.width * shape.width;
  const int64_t j0 = panel_begin * shape.width;
  const int64_t cols = std::min(n, panel_end * shape.width) - j0;
  if (cols <= 0) return;
  for (int64_t p0 = 0; p0 < k; p0 += kSgemmDepthBlock) {
    const int64_t depth = std::min(kSgemmDepthBlock, k - p0);
    PackB(trans_b, b, ldb, p0, depth, j0, cols, shape.width, out + p0 * n_pad + j0 * depth);
  }
}

void SgemmOnPanelsImpl(int64_t m, int64_t n, int64_t k, const float* packed_a, int64_t a_rows,
                       int64_t i0, const float* packed_b, int64_t b_cols, int64_t j0, float alpha,
                       float beta, float* c, int64_t ldc) {
  const SgemmPanelShape shape = PanelShape();
  const int64_t m_pad = (a_rows + kRows - 1) / kRows * kRows;
  const int64_t n_pad = (b_cols + shape.width - 1) / shape.width * shape.width;
  float* edge = EdgeBuffer();
  for (int64_t p0 = 0; p0 < k; p0 += kSgemmDepthBlock) {
    const int64_t depth = std::min(kSgemmDepthBlock, k - p0);
    const StoreMode mode{p0 == 0, alpha, beta};
    ComputeBlock(depth, packed_a + p0 * m_pad + i0 * depth, m, packed_b + p0 * n_pad + j0 * depth,
                 n, c, ldc, mode, edge);
  }
}

}  // namespace openaclnn::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(HasFma);
HWY_EXPORT(PackedSgemmImpl);
HWY_EXPORT(PanelShape);
HWY_EXPORT(PackPanelsOfA);
HWY_EXPORT(PackPanelsOfB);
HWY_EXPORT(SgemmOnPanelsImpl);

bool HasPackedSgemm(const KernelTarget& target) { return OPENACLNN_DISPATCH(HasFma, target)(); }

KernelTarget PackedSgemmTarget(const KernelTarget& planning) {
  if (HasPackedSgemm(planning)) return planning;
  static const KernelTarget best = BestTarget();
  return HasPackedSgemm(best) ? best : planning;
}

void PackedSgemm(const KernelTarget& target, bool trans_a, bool trans_b, int64_t m, int64_t n,
                 int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                 float beta, float* c, int64_t ldc) {
  OPENACLNN_DISPATCH(PackedSgemmImpl, target)
  (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

SgemmPanelShape PackedSgemmPanelShape(const KernelTarget& target) {
  return OPENACLNN_DISPATCH(PanelShape, target)();
}

int64_t PackedSgemmASize(const KernelTarget& target, int64_t m, int64_t k) {
  const int64_t rows = PackedSgemmPanelShape(target).rows;
  return (m + rows - 1) / rows * rows * k;
}

int64_t PackedSgemmBSize(const KernelTarget& target, int64_t k, int64_t n) {
  const int64_t width = PackedSgemmPanelShape(target).width;
  return (n + width - 1) / width * width * k;
}

void PackSgemmA(const KernelTarget& target, bool trans_a, const float* a, int64_t lda, int64_t m,
                int64_t k, int64_t panel_begin, int64_t panel_end, float* packed) {
  OPENACLNN_DISPATCH(PackPanelsOfA, target)(trans_a, a, lda, m, k, panel_begin, panel_end, packed);
}

void PackSgemmB(const KernelTarget& target, bool trans_b, const float* b, int64_t ldb, int64_t k,
                int64_t n, int64_t panel_begin, int64_t panel_end, float* packed) {
  OPENACLNN_DISPATCH(PackPanelsOfB, target)(trans_b, b, ldb, k, n, panel_begin, panel_end, packed);
}

void SgemmOnPanels(const KernelTarget& target, int64_t m, int64_t n, int64_t k,
                   const float* packed_a, int64_t a_rows, int64_t i0, const float* packed_b,
                   int64_t b_cols, int64_t j0, float alpha, float beta, float* c, int64_t ldc) {
  OPENACLNN_DISPATCH(SgemmOnPanelsImpl, target)
  (m, n, k, packed_a, a_rows, i0, packed_b, b_cols, j0, alpha, beta, c, ldc);
}

}  // namespace openaclnn::cpu
#endif
