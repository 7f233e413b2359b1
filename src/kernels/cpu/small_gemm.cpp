#include "kernels/cpu/small_gemm.h"

#include <cmath>
#include <cstddef>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/small_gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/aligned_vector.h"
#include "kernels/cpu/pointwise_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Register-blocked only where vectors have a fixed size and multiply-add is fused; elsewhere every
// output is computed on its own with std::fma, which gives the same bits (slower: plans do not
// choose SmallGemm on those targets).
#undef OPENACLNN_SMALL_GEMM_BLOCKED
#if HWY_NATIVE_FMA && !HWY_HAVE_SCALABLE
#define OPENACLNN_SMALL_GEMM_BLOCKED 1
#else
#define OPENACLNN_SMALL_GEMM_BLOCKED 0
#endif

bool BlockedHere() { return OPENACLNN_SMALL_GEMM_BLOCKED != 0; }

// One output: the chain of fused multiply-adds every path computes.
float Chain(int64_t k, const float* a, int64_t a_step, const float* b, int64_t b_step) {
  float sum = 0.0f;
  for (int64_t p = 0; p < k; ++p) sum = std::fma(a[p * a_step], b[p * b_step], sum);
  return sum;
}

void PutOne(float sum, float alpha, bool accumulate, float* c) {
  const float scaled = alpha * sum;
  *c = accumulate ? *c + scaled : scaled;
}

// Outputs of columns [j0, n) in every row, one at a time.
void ScalarColumns(int64_t m, int64_t j0, int64_t n, int64_t k, float alpha, const StridedFloats& a,
                   const float* b, int64_t ldb, bool accumulate, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = j0; j < n; ++j) {
      PutOne(Chain(k, a.data + i * a.row_step, a.col_step, b + j, ldb), alpha, accumulate,
             c + i * ldc + j);
    }
  }
}

#if OPENACLNN_SMALL_GEMM_BLOCKED
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Accumulators per block: kRows rows x kVecs vectors, with the kVecs vectors of a row of B and one
// broadcast element of A, within the register file (32 vector registers on AVX-512 and Arm, 16 on
// AVX2 and SSE).
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
constexpr int kVecs = 2;
#else
constexpr int kVecs = 4;
#endif
constexpr int kRows = 6;

// c rows [0, R) x vectors [0, W) of the block at (a, b, c): R x W chains over p.
template <int R, int W>
HWY_INLINE void Block(int64_t k, const float* a, int64_t ars, int64_t acs, const float* b,
                      int64_t ldb, float alpha, bool accumulate, float* c, int64_t ldc) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  V acc[R][W];
  for (int r = 0; r < R; ++r) {
    for (int w = 0; w < W; ++w) acc[r][w] = hn::Zero(d);
  }
  for (int64_t p = 0; p < k; ++p) {
    const float* row = b + p * ldb;
    V bv[W];
    for (int w = 0; w < W; ++w) bv[w] = hn::LoadU(d, row + w * lanes);
    const float* col = a + p * acs;
    for (int r = 0; r < R; ++r) {
      const V av = hn::Set(d, col[r * ars]);
      for (int w = 0; w < W; ++w) acc[r][w] = hn::MulAdd(av, bv[w], acc[r][w]);
    }
  }
  const V va = hn::Set(d, alpha);
  for (int r = 0; r < R; ++r) {
    for (int w = 0; w < W; ++w) {
      float* dst = c + r * ldc + w * lanes;
      V out = hn::Mul(acc[r][w], va);
      if (accumulate) out = hn::Add(hn::LoadU(d, dst), out);
      hn::StoreU(out, d, dst);
    }
  }
}

// Rows [0, m) of a column strip W vectors wide, kRows rows at a time.
template <int W>
void Strip(int64_t m, int64_t k, const float* a, int64_t ars, int64_t acs, const float* b,
           int64_t ldb, float alpha, bool accumulate, float* c, int64_t ldc) {
  int64_t i = 0;
  for (; i + kRows <= m; i += kRows) {
    Block<kRows, W>(k, a + i * ars, ars, acs, b, ldb, alpha, accumulate, c + i * ldc, ldc);
  }
  const float* ai = a + i * ars;
  float* ci = c + i * ldc;
  switch (m - i) {
    case 5:
      return Block<5, W>(k, ai, ars, acs, b, ldb, alpha, accumulate, ci, ldc);
    case 4:
      return Block<4, W>(k, ai, ars, acs, b, ldb, alpha, accumulate, ci, ldc);
    case 3:
      return Block<3, W>(k, ai, ars, acs, b, ldb, alpha, accumulate, ci, ldc);
    case 2:
      return Block<2, W>(k, ai, ars, acs, b, ldb, alpha, accumulate, ci, ldc);
    case 1:
      return Block<1, W>(k, ai, ars, acs, b, ldb, alpha, accumulate, ci, ldc);
    default:
      return;
  }
}
#endif  // OPENACLNN_SMALL_GEMM_BLOCKED

// b is row-major (unit column step, rows ldb apart).
void SmallGemmImpl(int64_t m, int64_t n, int64_t k, float alpha, StridedFloats a, const float* b,
                   int64_t ldb, bool accumulate, float* c, int64_t ldc) {
  int64_t j = 0;
#if OPENACLNN_SMALL_GEMM_BLOCKED
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  const int64_t wide = kVecs * lanes;
  for (; j + wide <= n; j += wide) {
    Strip<kVecs>(m, k, a.data, a.row_step, a.col_step, b + j, ldb, alpha, accumulate, c + j, ldc);
  }
  for (; j + lanes <= n; j += lanes) {
    Strip<1>(m, k, a.data, a.row_step, a.col_step, b + j, ldb, alpha, accumulate, c + j, ldc);
  }
#endif
  ScalarColumns(m, j, n, k, alpha, a, b, ldb, accumulate, c, ldc);
}

}  // namespace openaclnn::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(BlockedHere);
HWY_EXPORT(SmallGemmImpl);

bool SmallGemmRuns(const KernelTarget& target) { return OPENACLNN_DISPATCH(BlockedHere, target)(); }

bool SmallGemmPays(int64_t m, int64_t n, int64_t k) { return m <= 128 && n <= 128 && k <= 256; }

void SmallGemm(const KernelTarget& target, int64_t m, int64_t n, int64_t k, float alpha,
               StridedFloats a, StridedFloats b, bool accumulate, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  const float* rows = b.data;
  int64_t ldb = b.row_step;
  if (b.col_step != 1 && n > 1) {
    // Rows of B not contiguous (a k^T or weight.t() view): copied row-major once per call.
    static thread_local AlignedVector<float> scratch;
    scratch.resize(static_cast<size_t>(k * n));
    if (b.row_step == 1) {
      TransposeTile(target, b.data, b.col_step, scratch.data(), n, k, n, sizeof(float), false,
                    nullptr, 0);
    } else {
      for (int64_t p = 0; p < k; ++p) {
        for (int64_t j = 0; j < n; ++j)
          scratch[p * n + j] = b.data[p * b.row_step + j * b.col_step];
      }
    }
    rows = scratch.data();
    ldb = n;
  }
  OPENACLNN_DISPATCH(SmallGemmImpl, target)(m, n, k, alpha, a, rows, ldb, accumulate, c, ldc);
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE
