#include "kernels/cpu/tile_gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/dtype.h"
#include "kernels/cpu/aligned_vector.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/tiling.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#define OPENACLNN_TILE_GEMM 1
#else
#define OPENACLNN_TILE_GEMM 0
#endif

namespace openaclnn::cpu {

#if OPENACLNN_TILE_GEMM
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_epi32() as the unused merge source of their
// unmasked forms, which its -W(maybe-)uninitialized reports once they are inlined here.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// The kernels are compiled for these instruction sets whatever the build's baseline; they run only
// where TileGemmRuns() (AMX-BF16 CPUs, which all have these AVX-512 subsets).
#define OPENACLNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define OPENACLNN_AMX __attribute__((target("amx-tile,amx-bf16")))

namespace {

// The tile unit's operand shapes: every tile register holds 16 rows of 64 bytes (A: 16 rows x 32
// bfloat16; B: 16 pairs of k x 16 columns, the pairs interleaved; C: 16 x 16 fp32). A product
// is computed in blocks of 32 x 32 outputs (four C tiles, two A tiles, two B tiles), so the
// buffers hold m and n rounded up to 32 and k to 32, the padding zero.
constexpr int64_t kBlock = 32;
constexpr int64_t kDepthStep = 32;

// Linux hands a process the tile unit's 8 KiB of register state only on request
// (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)); without it the first tile instruction
// faults. The grant is process-wide and idempotent (oneDNN asks for it the same way).
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};

constexpr TileConfig MakeTileConfig() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.bytes_per_row[t] = 64;
    config.rows[t] = 16;
  }
  return config;
}

// A constant in memory: GCC 12's _tile_loadconfig tells the compiler that it reads only the
// first 8 bytes of its operand, so the stores of a configuration built on the stack just before
// were dropped as dead (and the instruction faulted on the half-written configuration).
constexpr TileConfig kTileConfig = MakeTileConfig();

// This thread's buffers, sized once for the largest product.
struct TileBuffers {
  AlignedVector<uint16_t> a, b;
  AlignedVector<float> c;
  TileBuffers()
      : a(static_cast<size_t>(kTileGemmMaxRows * kTileGemmMaxDepth)),
        b(static_cast<size_t>(kTileGemmMaxDepth * kTileGemmMaxCols)),
        c(static_cast<size_t>(kTileGemmMaxRows * kTileGemmMaxCols)) {}
};

// B (k x n, rows contiguous) into pairs of rows: packed[q][j] = (B(2q, j), B(2q + 1, j)), 32
// columns at a time, for q < depth / 2 and j < cols (cols a multiple of 32); zero outside B.
OPENACLNN_AVX512 void PackRowsInPairs(const StridedBf16& b, int64_t k, int64_t n, int64_t depth,
                                      int64_t cols, uint16_t* packed) {
  // Lane 2t takes column t of the even row, lane 2t + 1 column t of the odd row (indices >= 32
  // pick from the second source).
  alignas(64) uint16_t low_index[32];
  alignas(64) uint16_t high_index[32];
  for (int t = 0; t < 16; ++t) {
    low_index[2 * t] = static_cast<uint16_t>(t);
    low_index[2 * t + 1] = static_cast<uint16_t>(32 + t);
    high_index[2 * t] = static_cast<uint16_t>(16 + t);
    high_index[2 * t + 1] = static_cast<uint16_t>(48 + t);
  }
  const __m512i low = _mm512_load_si512(low_index);
  const __m512i high = _mm512_load_si512(high_index);
  for (int64_t q = 0; q < depth / 2; ++q) {
    const uint16_t* even = 2 * q < k ? b.data + 2 * q * b.row_step : nullptr;
    const uint16_t* odd = 2 * q + 1 < k ? b.data + (2 * q + 1) * b.row_step : nullptr;
    uint16_t* to = packed + q * cols * 2;
    for (int64_t j = 0; j < cols; j += 32) {
      const int64_t left = std::clamp<int64_t>(n - j, 0, 32);
      const __mmask32 mask =
          left == 32 ? ~__mmask32{0} : static_cast<__mmask32>((uint32_t{1} << left) - 1);
      const __m512i x0 = even != nullptr && left > 0 ? _mm512_maskz_loadu_epi16(mask, even + j)
                                                     : _mm512_setzero_si512();
      const __m512i x1 = odd != nullptr && left > 0 ? _mm512_maskz_loadu_epi16(mask, odd + j)
                                                    : _mm512_setzero_si512();
      _mm512_storeu_si512(to + 2 * j, _mm512_permutex2var_epi16(x0, low, x1));
      _mm512_storeu_si512(to + 2 * j + 32, _mm512_permutex2var_epi16(x0, high, x1));
    }
  }
}

// Transposes a 16 x 16 matrix of 32-bit words held in rows[0..15] (in place).
OPENACLNN_AVX512 void Transpose16x16(__m512i* rows) {
  __m512i t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(rows[i], rows[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(rows[i], rows[i + 1]);
  }
  // u[4g + c] holds, in its 128-bit lane L, column 4L + c of rows 4g .. 4g + 3.
  __m512i u[16];
  for (int g = 0; g < 16; g += 4) {
    u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
    u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
    u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
    u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
  }
  // Column 4L + c gathers lane L of u[c], u[4 + c], u[8 + c], u[12 + c].
  for (int c = 0; c < 4; ++c) {
    const __m512i v0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x44);
    const __m512i v1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xEE);
    const __m512i v2 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x44);
    const __m512i v3 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xEE);
    rows[c] = _mm512_shuffle_i32x4(v0, v2, 0x88);
    rows[4 + c] = _mm512_shuffle_i32x4(v0, v2, 0xDD);
    rows[8 + c] = _mm512_shuffle_i32x4(v1, v3, 0x88);
    rows[12 + c] = _mm512_shuffle_i32x4(v1, v3, 0xDD);
  }
}

// The same pairs from a B whose columns are contiguous (B(p, j) at data[p + j * col_step]): a
// pair is one 32-bit word of column j, so 16 columns of 16 pairs are loaded as rows and
// transposed.
OPENACLNN_AVX512 void TransposeColumnPairs(const StridedBf16& b, int64_t k, int64_t n,
                                           int64_t depth, int64_t cols, uint16_t* packed) {
  for (int64_t p = 0; p < depth; p += 32) {
    const int64_t left_p = std::clamp<int64_t>(k - p, 0, 32);
    const __mmask32 p_mask =
        left_p == 32 ? ~__mmask32{0} : static_cast<__mmask32>((uint32_t{1} << left_p) - 1);
    for (int64_t j = 0; j < cols; j += 16) {
      __m512i rows[16];
      for (int64_t t = 0; t < 16; ++t) {
        rows[t] = j + t < n && left_p > 0
                      ? _mm512_maskz_loadu_epi16(p_mask, b.data + (j + t) * b.col_step + p)
                      : _mm512_setzero_si512();
      }
      Transpose16x16(rows);
      for (int64_t q = 0; q < 16; ++q) {
        _mm512_storeu_si512(packed + (p / 2 + q) * cols * 2 + j * 2, rows[q]);
      }
    }
  }
}

// A whose columns are contiguous (A(i, p) at data[i + p * col_step], attention's probs^T) laid
// out row-major, rows x depth with zero padding: pairs (A(i, 2q), A(i, 2q + 1)) are formed from
// two columns of A 16 rows at a time, and each 16 x 16 block of pairs transposed into 16 rows.
OPENACLNN_AVX512 void TransposeColumnsOfA(const StridedBf16& a, int64_t m, int64_t k, int64_t rows,
                                          int64_t depth, uint16_t* packed) {
  // Lane 2t takes element t of the even column, lane 2t + 1 element t of the odd one (the odd
  // column sits in the upper half of the combined vector).
  alignas(64) uint16_t pair_index[32];
  for (int t = 0; t < 16; ++t) {
    pair_index[2 * t] = static_cast<uint16_t>(t);
    pair_index[2 * t + 1] = static_cast<uint16_t>(16 + t);
  }
  const __m512i pairs = _mm512_load_si512(pair_index);
  for (int64_t i = 0; i < rows; i += 16) {
    const int64_t left = std::clamp<int64_t>(m - i, 0, 16);
    const __mmask16 mask =
        left == 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1);
    for (int64_t p = 0; p < depth; p += 32) {
      __m512i block[16];
      for (int64_t q = 0; q < 16; ++q) {
        const int64_t even = p + 2 * q, odd = even + 1;
        const __m256i x0 = even < k && left > 0
                               ? _mm256_maskz_loadu_epi16(mask, a.data + even * a.col_step + i)
                               : _mm256_setzero_si256();
        const __m256i x1 = odd < k && left > 0
                               ? _mm256_maskz_loadu_epi16(mask, a.data + odd * a.col_step + i)
                               : _mm256_setzero_si256();
        block[q] =
            _mm512_permutexvar_epi16(pairs, _mm512_inserti64x4(_mm512_castsi256_si512(x0), x1, 1));
      }
      Transpose16x16(block);
      for (int64_t t = 0; t < 16; ++t) _mm512_storeu_si512(packed + (i + t) * depth + p, block[t]);
    }
  }
}

// C (rows x cols, multiples of 32; row stride ldc) = A (rows x depth, row stride lda) @ B (pairs
// of rows as PackRowsInPairs lays them out, cols wide), in blocks of 32 x 32.
OPENACLNN_AMX void MultiplyBlocks(const uint16_t* a, int64_t lda, const uint16_t* b, float* c,
                                  int64_t ldc, int64_t rows, int64_t cols, int64_t depth) {
  const int64_t a_stride = lda * 2;   // bytes between A's rows
  const int64_t b_stride = cols * 4;  // bytes between B's rows of pairs
  const int64_t c_stride = ldc * 4;   // bytes between C's rows
  for (int64_t i = 0; i < rows; i += kBlock) {
    const uint16_t* a0 = a + i * lda;
    const uint16_t* a1 = a0 + 16 * lda;
    for (int64_t j = 0; j < cols; j += kBlock) {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
      const uint16_t* b0 = b + j * 2;
      const uint16_t* b1 = b0 + 32;
      for (int64_t p = 0; p < depth; p += kDepthStep) {
        const int64_t pair_row = p / 2;
        _tile_loadd(4, a0 + p, a_stride);
        _tile_loadd(6, b0 + pair_row * cols * 2, b_stride);
        _tile_dpbf16ps(0, 4, 6);
        _tile_loadd(7, b1 + pair_row * cols * 2, b_stride);
        _tile_dpbf16ps(1, 4, 7);
        _tile_loadd(5, a1 + p, a_stride);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
      float* c0 = c + i * ldc + j;
      _tile_stored(0, c0, c_stride);
      _tile_stored(1, c0 + 16, c_stride);
      _tile_stored(2, c0 + 16 * ldc, c_stride);
      _tile_stored(3, c0 + 16 * ldc + 16, c_stride);
    }
  }
}

OPENACLNN_AMX void LoadTileConfig() { _tile_loadconfig(&kTileConfig); }

OPENACLNN_AMX void ReleaseTiles() { _tile_release(); }

}  // namespace

bool TileGemmRuns() {
  static const bool runs =
      HasAmxBf16() && syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  return runs;
}

namespace {

// Runs the product into `c` (row stride ldc) when `c` is given and the tiles cover m x n exactly,
// else into this thread's buffer; returns where it landed and that row stride.
float* RunProduct(int64_t m, int64_t n, int64_t k, const StridedBf16& a, const StridedBf16& b,
                  float* c, int64_t ldc, int64_t* ld_out) {
  static thread_local TileBuffers buffers;
  const int64_t rows = CeilDiv(m, kBlock) * kBlock;
  const int64_t cols = CeilDiv(n, kBlock) * kBlock;
  const int64_t depth = CeilDiv(k, kDepthStep) * kDepthStep;
  // A's tiles are loaded from A itself when they cover it exactly, else from a zero-padded copy.
  const uint16_t* pa = a.data;
  int64_t lda = a.row_step;
  if (a.col_step != 1 && k > 1) {
    TransposeColumnsOfA(a, m, k, rows, depth, buffers.a.data());
    pa = buffers.a.data();
    lda = depth;
  } else if (rows != m || depth != k) {
    uint16_t* copy = buffers.a.data();
    for (int64_t i = 0; i < rows; ++i) {
      uint16_t* to = copy + i * depth;
      const int64_t copied = i < m ? k : 0;
      if (copied > 0) std::memcpy(to, a.data + i * a.row_step, sizeof(uint16_t) * copied);
      std::fill(to + copied, to + depth, uint16_t{0});
    }
    pa = copy;
    lda = depth;
  }
  if (b.col_step == 1 || n == 1) {
    PackRowsInPairs(b, k, n, depth, cols, buffers.b.data());
  } else {
    TransposeColumnPairs(b, k, n, depth, cols, buffers.b.data());
  }
  const bool direct = c != nullptr && rows == m && cols == n;
  float* to = direct ? c : buffers.c.data();
  *ld_out = direct ? ldc : cols;
  LoadTileConfig();
  MultiplyBlocks(pa, lda, buffers.b.data(), to, *ld_out, rows, cols, depth);
  ReleaseTiles();
  return to;
}

// fp32 values rounded once to bfloat16 bits in the low halves of the lanes (nearest even; a NaN
// keeps its sign and upper payload, made quiet: the bits of the library's scalar conversion).
OPENACLNN_AVX512 inline __m512i Bf16BitsOf(__m512 f) {
  const __m512i u = _mm512_castps_si512(f);
  const __m512i high = _mm512_srli_epi32(u, 16);
  const __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                                           _mm512_and_si512(high, _mm512_set1_epi32(1)))),
      16);
  const __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
  return _mm512_mask_or_epi32(rounded, nan, high, _mm512_set1_epi32(0x40));
}

// Rows of the tile unit's fp32 sums rounded once to bfloat16 by VCVTNEPS2BF16 (AVX512_BF16, which
// every CPU with AMX-BF16 has): Bf16BitsOf's bits for every fp32 value but a subnormal, which the
// instruction takes as zero and the tile unit never writes (it flushes such sums). One
// instruction and a plain store per 16 values rather than the integer rounding and a narrowing
// store: bench_matmul BF16 per-head products 2-4 % faster (Intel Xeon with AMX, 2026-12-07).
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void RoundRowsToBf16(
    const float* from, int64_t ld, int64_t m, int64_t n, uint16_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; j += 16) {
      const int64_t left = std::min<int64_t>(n - j, 16);
      const __mmask16 mask =
          left == 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1);
      const __m512 f = _mm512_maskz_loadu_ps(mask, from + i * ld + j);
      _mm256_mask_storeu_epi16(c + i * ldc + j, mask,
                               reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(f)));
    }
  }
}

// A's rows [i0, i0 + 32) and columns [p0, p0 + depth) (depth a multiple of 32) as tile registers
// (A read row-major, or through its contiguous columns where trans_a):
// tile (h, s), rows i0 + 16 h .. and columns p0 + 32 s .., at tiles + (h * steps + s) * 512, row
// by row (64 bytes each); zero outside m x k.
OPENACLNN_AVX512 void PackATiles(const uint16_t* a, int64_t lda, bool trans_a, int64_t m, int64_t k,
                                 int64_t i0, int64_t p0, int64_t depth, uint16_t* tiles) {
  const int64_t steps = depth / kDepthStep;
  if (trans_a) {
    // A(i, p) at a[i + p * lda]: each tile is a 16 x 32 block of A's columns transposed.
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t s = 0; s < steps; ++s) {
        uint16_t* to = tiles + (h * steps + s) * 16 * kDepthStep;
        const int64_t i = i0 + 16 * h, p = p0 + s * kDepthStep;
        if (i >= m || p >= k) {
          std::fill(to, to + 16 * kDepthStep, uint16_t{0});
          continue;
        }
        TransposeColumnsOfA({a + i + p * lda, 1, lda}, m - i, k - p, 16, kDepthStep, to);
      }
    }
    return;
  }
  for (int64_t r = 0; r < kBlock; ++r) {
    const int64_t row = i0 + r;
    uint16_t* to = tiles + ((r / 16) * steps * 16 + r % 16) * kDepthStep;
    for (int64_t s = 0; s < steps; ++s, to += 16 * kDepthStep) {
      const int64_t p = p0 + s * kDepthStep;
      const int64_t valid = row < m ? std::clamp<int64_t>(k - p, 0, kDepthStep) : 0;
      const __mmask32 mask =
          valid == kDepthStep ? ~__mmask32{0} : static_cast<__mmask32>((uint32_t{1} << valid) - 1);
      _mm512_store_si512(to, valid > 0 ? _mm512_maskz_loadu_epi16(mask, a + row * lda + p)
                                       : _mm512_setzero_si512());
    }
  }
}

// Where BlockedGemmBf16 writes its sums: `out`, its bias row widened to fp32 once per call (null
// without a bias), and the product's extent.
struct BlockedStore {
  const GemmOutput* out;
  const float* bias;
  int64_t rows, cols;  // the product's m and n
};

// Writes the 32 x 32 block of sums `block` (row stride 32) at out's (i, j), the rows and columns
// within the product: plus the bias, then stored, added to c (accumulate) or rounded once to
// bfloat16 (Bf16BitsOf).
OPENACLNN_AVX512 void StoreBlock(const float* block, const BlockedStore& st, int64_t i, int64_t j) {
  const GemmOutput& out = *st.out;
  const int64_t rows = std::min(kBlock, st.rows - i);
  for (int64_t h = 0; h < kBlock; h += 16) {
    const int64_t left = std::clamp<int64_t>(st.cols - j - h, 0, 16);
    if (left == 0) break;
    const __mmask16 mask =
        left == 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1);
    const __m512 bias =
        st.bias != nullptr ? _mm512_maskz_loadu_ps(mask, st.bias + j + h) : _mm512_setzero_ps();
    for (int64_t r = 0; r < rows; ++r) {
      __m512 f = _mm512_load_ps(block + r * kBlock + h);
      if (st.bias != nullptr) f = _mm512_add_ps(f, bias);
      const int64_t at = (i + r) * out.ldc + j + h;
      if (out.c_type == GemmElement::kBf16) {
        _mm512_mask_cvtepi32_storeu_epi16(static_cast<uint16_t*>(out.c) + at, mask, Bf16BitsOf(f));
        continue;
      }
      float* c = static_cast<float*>(out.c) + at;
      if (out.accumulate) f = _mm512_add_ps(f, _mm512_maskz_loadu_ps(mask, c));
      _mm512_mask_storeu_ps(c, mask, f);
    }
  }
}

// acc (32 x cols fp32, row stride ld; cols a multiple of 32) = (first ? 0 : acc) + the 32 rows of
// A in `tiles` (PackATiles, `steps` depth steps from depth p0) @ B's rows [p0, p0 + 32 steps),
// B blocked as PackBlockedB lays it out with `depth` rows a column block.
// With `store`, the last chunk: each block's sums go through a 32 x 32 buffer to out (StoreBlock,
// rows from row i0) instead of back into acc.
OPENACLNN_AMX void MultiplyBlockedChunk(const uint16_t* tiles, int64_t steps, const uint16_t* b,
                                        int64_t depth, int64_t p0, float* acc, int64_t ld,
                                        int64_t cols, bool first, const BlockedStore* store,
                                        int64_t i0) {
  alignas(64) float block[kBlock * kBlock];
  constexpr int64_t kPairRow = kBlockedBCols * 2;            // elements between B's pair rows
  constexpr int64_t b_stride = kPairRow * sizeof(uint16_t);  // bytes
  const int64_t c_stride = ld * static_cast<int64_t>(sizeof(float));
  const uint16_t* a1 = tiles + steps * 16 * kDepthStep;
  for (int64_t j = 0; j < cols; j += kBlock) {
    float* c = acc != nullptr ? acc + j : nullptr;  // null: one chunk, no sums kept between
    if (first) {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
    } else {
      _tile_loadd(0, c, c_stride);
      _tile_loadd(1, c + 16, c_stride);
      _tile_loadd(2, c + 16 * ld, c_stride);
      _tile_loadd(3, c + 16 * ld + 16, c_stride);
    }
    const uint16_t* b0 = b + (j / kBlockedBCols) * depth * kBlockedBCols + (j % kBlockedBCols) * 2 +
                         p0 / 2 * kPairRow;
    for (int64_t s = 0; s < steps; ++s) {
      const uint16_t* bs = b0 + s * 16 * kPairRow;
      _tile_loadd(4, tiles + s * 16 * kDepthStep, 64);
      _tile_loadd(6, bs, b_stride);
      _tile_dpbf16ps(0, 4, 6);
      _tile_loadd(7, bs + 32, b_stride);
      _tile_dpbf16ps(1, 4, 7);
      _tile_loadd(5, a1 + s * 16 * kDepthStep, 64);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
    if (store != nullptr) {
      constexpr int64_t kRowBytes = kBlock * sizeof(float);
      _tile_stored(0, block, kRowBytes);
      _tile_stored(1, block + 16, kRowBytes);
      _tile_stored(2, block + 16 * kBlock, kRowBytes);
      _tile_stored(3, block + 16 * kBlock + 16, kRowBytes);
      StoreBlock(block, *store, i0, j);
      continue;
    }
    _tile_stored(0, c, c_stride);
    _tile_stored(1, c + 16, c_stride);
    _tile_stored(2, c + 16 * ld, c_stride);
    _tile_stored(3, c + 16 * ld + 16, c_stride);
  }
}

// Most fp32 sums BlockedGemmBf16 keeps between depth chunks (1 MiB: half of the AMX Xeons' L2,
// beside a depth chunk of B).
constexpr int64_t kBlockedGemmSums = int64_t{1} << 18;

// This thread's buffers of BlockedGemmBf16: A's tiles, the fp32 sums of a group of rows, the
// widened bias row.
struct BlockedBuffers {
  AlignedVector<uint16_t> a;
  AlignedVector<float> acc, bias;
};

}  // namespace

void TileGemmBf16(int64_t m, int64_t n, int64_t k, const StridedBf16& a, const StridedBf16& b,
                  bool accumulate, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  // C's tiles are stored into c itself when they cover it exactly and nothing is added.
  int64_t ld = 0;
  const float* from = RunProduct(m, n, k, a, b, accumulate ? nullptr : c, ldc, &ld);
  if (from == c) return;
  for (int64_t i = 0; i < m; ++i) {
    const float* row = from + i * ld;
    float* to = c + i * ldc;
    if (accumulate) {
      for (int64_t j = 0; j < n; ++j) to[j] += row[j];
    } else {
      std::memcpy(to, row, sizeof(float) * n);
    }
  }
}

void TileGemmBf16To(int64_t m, int64_t n, int64_t k, const StridedBf16& a, const StridedBf16& b,
                    uint16_t* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  int64_t ld = 0;
  const float* from = RunProduct(m, n, k, a, b, nullptr, 0, &ld);
  RoundRowsToBf16(from, ld, m, n, c, ldc);
}

void BlockedGemmBf16(int64_t m, int64_t n, int64_t k, const uint16_t* a, int64_t lda, bool trans_a,
                     const uint16_t* blocked_b, const GemmOutput& out) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  static thread_local BlockedBuffers buffers;
  const int64_t depth = BlockedBDepth(GemmElement::kBf16, k);
  const int64_t cols = CeilDiv(n, kBlock) * kBlock;  // within B's column blocks of 64
  const int64_t chunk = std::min(kBlockedGemmDepth, depth);
  // Rows whose sums stay in the buffer while B's depth chunks pass (each chunk read from L2 by
  // every 32 rows of the group); the last chunk writes out directly.
  const int64_t group = std::min(CeilDiv(m, kBlock) * kBlock,
                                 std::max(kBlock, kBlockedGemmSums / cols / kBlock * kBlock));
  buffers.a.resize(static_cast<size_t>(kBlock * chunk));
  if (depth > chunk) buffers.acc.resize(static_cast<size_t>(group * cols));
  BlockedStore store{&out, nullptr, m, n};
  if (out.bias != nullptr) {
    buffers.bias.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      buffers.bias[j] = out.bias_type == GemmElement::kBf16
                            ? BFloat16ToFloat(static_cast<const uint16_t*>(out.bias)[j])
                            : static_cast<const float*>(out.bias)[j];
    }
    store.bias = buffers.bias.data();
  }
  float* const acc = buffers.acc.data();
  LoadTileConfig();
  for (int64_t g0 = 0; g0 < m; g0 += group) {
    const int64_t rows = std::min(group, m - g0);
    for (int64_t p0 = 0; p0 < depth; p0 += chunk) {
      const int64_t part = std::min(chunk, depth - p0);
      const bool last = p0 + part >= depth;
      for (int64_t i0 = 0; i0 < rows; i0 += kBlock) {
        PackATiles(a, lda, trans_a, m, k, g0 + i0, p0, part, buffers.a.data());
        MultiplyBlockedChunk(buffers.a.data(), part / kDepthStep, blocked_b, depth, p0,
                             depth > chunk ? acc + i0 * cols : nullptr, cols, cols, p0 == 0,
                             last ? &store : nullptr, g0 + i0);
      }
    }
  }
  ReleaseTiles();
}

bool PackRowPairs(const uint16_t* b, int64_t ldb, int64_t k, int64_t n, int64_t depth, int64_t cols,
                  uint16_t* packed) {
  static const bool avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  if (!avx512 || cols % 32 != 0) return false;
  PackRowsInPairs({b, ldb, 1}, k, n, depth, cols, packed);
  return true;
}

#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else  // no tile unit on this architecture: TileGemmRuns() is false, so the kernels are never
       // called

bool TileGemmRuns() { return false; }

bool PackRowPairs(const uint16_t*, int64_t, int64_t, int64_t, int64_t, int64_t, uint16_t*) {
  return false;
}

void TileGemmBf16(int64_t, int64_t, int64_t, const StridedBf16&, const StridedBf16&, bool, float*,
                  int64_t) {}

void TileGemmBf16To(int64_t, int64_t, int64_t, const StridedBf16&, const StridedBf16&, uint16_t*,
                    int64_t) {}

void BlockedGemmBf16(int64_t, int64_t, int64_t, const uint16_t*, int64_t, bool, const uint16_t*,
                     const GemmOutput&) {}

#endif

bool TileGemmPays(int64_t m, int64_t n, int64_t k, const StridedBf16& a, const StridedBf16& b) {
  if (m < 2 || m > kTileGemmMaxRows || n < 1 || n > kTileGemmMaxCols || k < 1 ||
      k > kTileGemmMaxDepth) {
    return false;
  }
  return (a.col_step == 1 || k == 1 || a.row_step == 1) &&
         (b.col_step == 1 || n == 1 || b.row_step == 1);
}

}  // namespace openaclnn::cpu
