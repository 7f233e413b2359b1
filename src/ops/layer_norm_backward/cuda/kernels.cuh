#pragma once
// Device code of the CUDA LayerNorm backward, shared by the .cu files (never by plain C++).
//
// Work split: the M rows are cut into chunks of consecutive rows; one CTA owns a chunk, reads each
// of its rows once (long or strided rows twice, the second time mostly from L2), writes dx, and
// keeps fp32 column partials of gradWeight (sum of dy * xhat) and gradBias (sum of dy) for the
// chunk, which it stores as one row of a [chunks, n_pad] array in the workspace. A second kernel
// adds those rows per column in a fixed order. The chunking is a function of the problem only (M,
// N, dtypes), never of the GPU, and nothing uses atomics, so the results are bitwise the same on
// every run and on every GPU that runs the same binary.
//
// Numerics: loads widen exactly to fp32, every sum is fp32 in a fixed order, 16-bit outputs are
// rounded once (round to nearest even). Products and sums are written with explicit intrinsics so
// the results do not depend on nvcc's contraction flags.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aclnn/opdev/op_errno.h"
#include "api/elem_type.h"
#include "api/layout.h"
#include "api/status.h"

namespace openaclnn::layer_norm_backward::cuda {

// Everything the row kernels need; frozen in phase 1 except the addresses, filled at launch.
struct RowParams {
  int64_t m = 0;
  int64_t n = 0;
  int64_t n_pad = 0;  // length of a partial row (floats): n rounded up to 32
  int64_t rows_per_chunk = 1;
  int64_t chunks = 0;
  const void* dy = nullptr;  // view element 0 of each tensor
  const void* x = nullptr;
  void* dx = nullptr;
  const void* mean = nullptr;
  const void* rstd = nullptr;
  const void* weight = nullptr;  // nullptr: ones; otherwise N contiguous elements of weight_dt
  float* part_gw = nullptr;      // [chunks, n_pad] when want_gw
  float* part_gb = nullptr;      // [chunks, n_pad] when want_gb
  ElemType dx_dt = ElemType::kFloat32;
  ElemType mean_dt = ElemType::kFloat32;
  ElemType rstd_dt = ElemType::kFloat32;
  ElemType weight_dt = ElemType::kFloat32;
  bool want_dx = false;
  bool want_gw = false;          // gradWeight partials (not for N == 1: gradWeight is 0 there)
  bool want_gb = false;          // gradBias partials
  bool contiguous_rows = false;  // the N elements of a row are adjacent in dy, x and dx
  bool vec_rows = false;         // ... and every row of them starts 16-byte aligned
  bool vec_weight = false;       // weight starts 16-byte aligned
  bool parts_in_smem = false;    // streamed kernel: partials accumulate in shared memory
  MultiStrided<3> lead;          // leading dims; stride sets dy, x, dx
  MultiStrided<3> trail;         // trailing dims; stride sets dy, x, dx (general path)
  MultiStrided<2> stat;          // mean/rstd view; stride sets mean, rstd
};

// Which row kernel a problem runs and how it is launched.
struct RowConfig {
  bool streamed = false;  // StreamRowsKernel, else RegisterRowsKernel<group, items>
  int group = 0;          // register kernel: threads sharing a row
  int items = 0;          // register kernel: row elements per thread
  int threads = 0;        // CTA size
  size_t smem = 0;        // dynamic shared memory (streamed kernel)
  unsigned grid = 0;      // CTAs (at most the number of chunks; they loop over chunks)
};

// The register kernel runs CTAs of at least 256 threads: small groups share a CTA, several rows
// at a time.
constexpr int CtaThreadsFor(int group) { return group < 256 ? 256 : group; }
constexpr int kStreamMaxThreads = 512;
// Rows up to this length run in registers (512 threads x 16 elements).
constexpr int64_t kRegisterMaxN = 8192;

// The kernel table by N (V = elements per 16-byte vector: 4 for FLOAT input, 8 for 16-bit), for
// rows contiguous in dy, x and dx (smallest entry that covers N):
//   N <= 16 V    1, 2, 4, 8 or 16 lanes per row, V elements each: 16 to 256 rows per CTA
//   N <= 512     a warp per row, V, 2 V (FLOAT: also 4 V) elements per lane: 8 rows per CTA
//   N <= 8192    64, 128, 256 or 512 threads per row, 16 elements each: 4, 2, 1, 1 rows per CTA
//   larger N, and rows that are not contiguous: StreamRowsKernel (the row read twice, the
//   second time mostly from L2; partials in shared memory, or in the workspace when too long).
inline RowConfig ChooseRowKernel(int64_t n, int vec, bool contiguous_rows) {
  RowConfig c;
  if (contiguous_rows && n <= kRegisterMaxN) {
    for (int group = 1; group <= 16; group *= 2) {
      if (n <= static_cast<int64_t>(group) * vec) {
        c.group = group;
        c.items = vec;
        c.threads = CtaThreadsFor(group);
        return c;
      }
    }
    for (int items = vec; items <= 16; items *= 2) {
      if (n <= 32 * static_cast<int64_t>(items)) {
        c.group = 32;
        c.items = items;
        c.threads = CtaThreadsFor(32);
        return c;
      }
    }
    for (int group = 64; group <= 512; group *= 2) {
      if (n <= static_cast<int64_t>(group) * 16) {
        c.group = group;
        c.items = 16;
        c.threads = CtaThreadsFor(group);
        return c;
      }
    }
  }
  c.streamed = true;
  const int64_t vectors = (n + vec - 1) / vec;
  const int64_t threads = (vectors + 31) / 32 * 32;
  c.threads = static_cast<int>(threads < 32                  ? 32
                               : threads > kStreamMaxThreads ? kStreamMaxThreads
                                                             : threads);
  return c;
}

inline Status CheckLaunch(const char* kernel) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR,
                     "aclnnLayerNormBackward: launching CUDA kernel %s failed: %s (%s)", kernel,
                     cudaGetErrorString(e), cudaGetErrorName(e));
}

// ---------------------------------------------------------------------------------------------
// Element access.

template <class T>
struct Io;
template <>
struct Io<float> {
  static constexpr int kVec = 4;
  __device__ static float ToFloat(float v) { return v; }
};
template <>
struct Io<__half> {
  static constexpr int kVec = 8;
  __device__ static float ToFloat(__half v) { return __half2float(v); }
};
template <>
struct Io<__nv_bfloat16> {
  static constexpr int kVec = 8;
  __device__ static float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
};

// Two packed 16-bit values (element 2i in the low half) to floats; exact.
__device__ __forceinline__ void Unpack16x2(uint32_t word, ElemType dt, float* out) {
  if (dt == ElemType::kBFloat16) {
    out[0] = __uint_as_float(word << 16);
    out[1] = __uint_as_float(word & 0xffff0000u);
  } else {
    __half2 h;
    memcpy(&h, &word, sizeof(word));
    const float2 f = __half22float2(h);
    out[0] = f.x;
    out[1] = f.y;
  }
}

// Two floats to packed 16-bit values, each rounded to nearest even.
__device__ __forceinline__ uint32_t Pack16x2(float lo, float hi, ElemType dt) {
  uint32_t word;
  if (dt == ElemType::kBFloat16) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    memcpy(&word, &h, sizeof(word));
  } else {
    const __half2 h = __floats2half2_rn(lo, hi);
    memcpy(&word, &h, sizeof(word));
  }
  return word;
}

// 16 bytes of T to Io<T>::kVec floats.
template <class T>
__device__ __forceinline__ void Unpack16Bytes(const uint4& raw, float* out) {
  if constexpr (Io<T>::kVec == 4) {
    out[0] = __uint_as_float(raw.x);
    out[1] = __uint_as_float(raw.y);
    out[2] = __uint_as_float(raw.z);
    out[3] = __uint_as_float(raw.w);
  } else {
    constexpr ElemType kDt =
        std::is_same_v<T, __nv_bfloat16> ? ElemType::kBFloat16 : ElemType::kFloat16;
    Unpack16x2(raw.x, kDt, out + 0);
    Unpack16x2(raw.y, kDt, out + 2);
    Unpack16x2(raw.z, kDt, out + 4);
    Unpack16x2(raw.w, kDt, out + 6);
  }
}

__device__ __forceinline__ float LoadAs(const void* base, ElemType dt, int64_t i) {
  switch (dt) {
    case ElemType::kFloat16:
      return __half2float(static_cast<const __half*>(base)[i]);
    case ElemType::kBFloat16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
    default:
      return static_cast<const float*>(base)[i];
  }
}

__device__ __forceinline__ void StoreAs(void* base, ElemType dt, int64_t i, float v) {
  switch (dt) {
    case ElemType::kFloat16:
      static_cast<__half*>(base)[i] = __float2half_rn(v);
      break;
    case ElemType::kBFloat16:
      static_cast<__nv_bfloat16*>(base)[i] = __float2bfloat16_rn(v);
      break;
    default:
      static_cast<float*>(base)[i] = v;
      break;
  }
}

// kVec elements of a contiguous row from column c0 as floats; 0 beyond the row end. One 16-byte
// load when the row is aligned and the vector lies inside the row.
template <class T>
__device__ __forceinline__ void LoadRowVector(const T* row, int64_t c0, int64_t n, bool vec,
                                              float (&out)[Io<T>::kVec]) {
  constexpr int kVec = Io<T>::kVec;
  if (vec && c0 + kVec <= n) {
    Unpack16Bytes<T>(*reinterpret_cast<const uint4*>(row + c0), out);
    return;
  }
#pragma unroll
  for (int j = 0; j < kVec; ++j) out[j] = c0 + j < n ? Io<T>::ToFloat(row[c0 + j]) : 0.0f;
}

// dy and x of one vector of columns for any layout: the contiguous paths above, or per element
// through the trailing dims' strides.
template <class T>
__device__ __forceinline__ void LoadDyX(const RowParams& p, const T* dy_row, const T* x_row,
                                        int64_t c0, float (&dy)[Io<T>::kVec],
                                        float (&x)[Io<T>::kVec]) {
  constexpr int kVec = Io<T>::kVec;
  if (p.contiguous_rows) {
    LoadRowVector<T>(dy_row, c0, p.n, p.vec_rows, dy);
    LoadRowVector<T>(x_row, c0, p.n, p.vec_rows, x);
    return;
  }
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    dy[j] = 0.0f;
    x[j] = 0.0f;
    if (c0 + j < p.n) {
      int64_t off[3];
      OffsetsAt(p.trail, c0 + j, off);
      dy[j] = Io<T>::ToFloat(dy_row[off[0]]);
      x[j] = Io<T>::ToFloat(x_row[off[1]]);
    }
  }
}

// Weight of kVec columns from c0 (ones without a weight, 0 beyond the row end).
template <int kVec>
__device__ __forceinline__ void LoadWeight(const RowParams& p, int64_t c0, float (&w)[kVec]) {
  if (p.weight == nullptr) {
#pragma unroll
    for (int j = 0; j < kVec; ++j) w[j] = c0 + j < p.n ? 1.0f : 0.0f;
    return;
  }
  if (p.vec_weight && c0 + kVec <= p.n) {
    // c0 is a multiple of kVec (>= 4): 4 elements are 16 (FLOAT) or 8 (16-bit) aligned bytes.
#pragma unroll
    for (int q = 0; q < kVec / 4; ++q) {
      if (p.weight_dt == ElemType::kFloat32) {
        const float4 f =
            *reinterpret_cast<const float4*>(static_cast<const float*>(p.weight) + c0 + 4 * q);
        w[4 * q + 0] = f.x;
        w[4 * q + 1] = f.y;
        w[4 * q + 2] = f.z;
        w[4 * q + 3] = f.w;
      } else {
        const uint2 raw =
            *reinterpret_cast<const uint2*>(static_cast<const uint16_t*>(p.weight) + c0 + 4 * q);
        Unpack16x2(raw.x, p.weight_dt, w + 4 * q);
        Unpack16x2(raw.y, p.weight_dt, w + 4 * q + 2);
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < kVec; ++j) w[j] = c0 + j < p.n ? LoadAs(p.weight, p.weight_dt, c0 + j) : 0.0f;
}

// Stores kVec dx values from column c0 of the row whose first element is `row_off` elements into
// dx (elements beyond the row end are skipped).
template <int kVec>
__device__ __forceinline__ void StoreDx(const RowParams& p, int64_t row_off, int64_t c0,
                                        const float (&v)[kVec]) {
  if (p.contiguous_rows && p.vec_rows && c0 + kVec <= p.n) {
    const int64_t at = row_off + c0;  // a multiple of kVec: aligned for the pieces below
    if (p.dx_dt == ElemType::kFloat32) {
#pragma unroll
      for (int q = 0; q < kVec / 4; ++q) {
        *reinterpret_cast<float4*>(static_cast<float*>(p.dx) + at + 4 * q) =
            make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
      }
    } else {
      uint32_t words[kVec / 2];
#pragma unroll
      for (int i = 0; i < kVec / 2; ++i) words[i] = Pack16x2(v[2 * i], v[2 * i + 1], p.dx_dt);
      uint16_t* dst = static_cast<uint16_t*>(p.dx) + at;
      if constexpr (kVec == 8) {
        *reinterpret_cast<uint4*>(dst) = make_uint4(words[0], words[1], words[2], words[3]);
      } else {
        *reinterpret_cast<uint2*>(dst) = make_uint2(words[0], words[1]);
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    if (c0 + j >= p.n) continue;
    int64_t off = c0 + j;
    if (!p.contiguous_rows) {
      int64_t offs[3];
      OffsetsAt(p.trail, c0 + j, offs);
      off = offs[2];
    }
    StoreAs(p.dx, p.dx_dt, row_off + off, v[j]);
  }
}

// Adds kVec floats into 16-byte aligned partials (shared or global memory).
template <int kVec>
__device__ __forceinline__ void AddPartials(float* dst, const float (&v)[kVec]) {
#pragma unroll
  for (int q = 0; q < kVec / 4; ++q) {
    float4* p = reinterpret_cast<float4*>(dst) + q;
    float4 acc = *p;
    acc.x = __fadd_rn(acc.x, v[4 * q]);
    acc.y = __fadd_rn(acc.y, v[4 * q + 1]);
    acc.z = __fadd_rn(acc.z, v[4 * q + 2]);
    acc.w = __fadd_rn(acc.w, v[4 * q + 3]);
    *p = acc;
  }
}

template <int kVec>
__device__ __forceinline__ void StorePartials(float* dst, const float* v) {
#pragma unroll
  for (int q = 0; q < kVec / 4; ++q) {
    reinterpret_cast<float4*>(dst)[q] =
        make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
  }
}

// The per-element work of pass 1: xhat (0 beyond the row end and for N == 1, where the row is
// its own mean), a = dy * w, the row sums of a and a * xhat, and the column partials.
struct RowStats {
  float mu;
  float rs;
  bool n_is_one;
};
__device__ __forceinline__ float Xhat(const RowStats& st, bool in_row, float x) {
  return in_row && !st.n_is_one ? __fmul_rn(__fsub_rn(x, st.mu), st.rs) : 0.0f;
}
__device__ __forceinline__ void Pass1Element(const RowStats& st, bool in_row, float dy, float x,
                                             float w, float* a_out, float* xh_out, float* s1,
                                             float* s2, float* gw, float* gb) {
  const float xh = Xhat(st, in_row, x);
  const float a = __fmul_rn(dy, w);
  *s1 = __fadd_rn(*s1, a);
  *s2 = __fmaf_rn(a, xh, *s2);
  *gw = __fmaf_rn(dy, xh, *gw);
  *gb = __fadd_rn(*gb, dy);
  *a_out = a;
  *xh_out = xh;
}

// dx = rstd * (a - mean(a) - xhat * mean(a * xhat)); exactly +0 for N == 1.
__device__ __forceinline__ float DxElement(const RowStats& st, float a, float xh, float c1,
                                           float c2) {
  if (st.n_is_one) return 0.0f;
  return __fmul_rn(st.rs, __fmaf_rn(-xh, c2, __fsub_rn(a, c1)));
}

// ---------------------------------------------------------------------------------------------
// Rows held in registers: kGroup threads per row, kItems elements per thread; thread `lane` of a
// group holds the vectors starting at columns (v * kGroup + lane) * kVec, v < kItems / kVec, the
// same columns for every row, so its column partials stay in registers across the chunk.

// Sums s1 and s2 over the threads of a row group; `buf` ([rows per step][kGroupWarps][2] shared
// floats) is used by groups of several warps only.
template <int kGroup, int kGroupWarps>
__device__ __forceinline__ void GroupSum(float* s1, float* s2, float (*buf)[kGroupWarps][2],
                                         int group, int lane) {
  constexpr int kWidth = kGroup < 32 ? kGroup : 32;
  // Butterfly: every lane of the group ends with the same bits (a + b == b + a).
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) {
    *s1 = __fadd_rn(*s1, __shfl_xor_sync(0xffffffffu, *s1, o));
    *s2 = __fadd_rn(*s2, __shfl_xor_sync(0xffffffffu, *s2, o));
  }
  if constexpr (kGroup > 32) {
    if ((lane & 31) == 0) {
      buf[group][lane / 32][0] = *s1;
      buf[group][lane / 32][1] = *s2;
    }
    __syncthreads();
    float t1 = buf[group][0][0];
    float t2 = buf[group][0][1];
#pragma unroll
    for (int w = 1; w < kGroupWarps; ++w) {
      t1 = __fadd_rn(t1, buf[group][w][0]);
      t2 = __fadd_rn(t2, buf[group][w][1]);
    }
    *s1 = t1;
    *s2 = t2;
  }
}

// Writes one chunk's partials (kItems per thread) as row `dst` (n_pad floats): directly when a
// CTA holds one row at a time, else added over the CTA's row groups in group order through
// shared memory.
template <int kGroup, int kItems, int kVec, int kRowsPerStep>
__device__ __forceinline__ void WriteChunkPartials(const float (&part)[kItems], float* dst,
                                                   int64_t n_pad, float* stage, int group,
                                                   int lane) {
  constexpr int kVecs = kItems / kVec;
  if constexpr (kRowsPerStep == 1) {
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int64_t c0 = static_cast<int64_t>(v * kGroup + lane) * kVec;
      if (c0 < n_pad) StorePartials<kVec>(dst + c0, part + v * kVec);  // n_pad % kVec == 0
    }
  } else {
    constexpr int kCover = kGroup * kItems;
    constexpr int kCta = kGroup * kRowsPerStep;
    __syncthreads();  // the previous user of `stage` is done
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int c0 = (v * kGroup + lane) * kVec;
      StorePartials<kVec>(stage + group * kCover + c0, part + v * kVec);
    }
    __syncthreads();
    const int limit = n_pad < kCover ? static_cast<int>(n_pad) : kCover;
    for (int c = static_cast<int>(threadIdx.x); c < limit; c += kCta) {
      float acc = stage[c];
#pragma unroll
      for (int g = 1; g < kRowsPerStep; ++g) acc = __fadd_rn(acc, stage[g * kCover + c]);
      dst[c] = acc;
    }
  }
}

template <class T, int kGroup, int kItems>
__global__ void __launch_bounds__(CtaThreadsFor(kGroup))
    RegisterRowsKernel(const __grid_constant__ RowParams p) {
  constexpr int kVec = Io<T>::kVec;
  static_assert(kItems % kVec == 0, "items must be whole vectors");
  constexpr int kVecs = kItems / kVec;
  constexpr int kCta = CtaThreadsFor(kGroup);
  constexpr int kRowsPerStep = kCta / kGroup;
  constexpr int kGroupWarps = kGroup > 32 ? kGroup / 32 : 1;
  constexpr int kStage = kRowsPerStep > 1 ? kCta * kItems : 4;
  constexpr int kSumRows = kGroup > 32 ? kRowsPerStep : 1;  // only groups of several warps
  __shared__ float row_sums[2][kSumRows][kGroupWarps][2];   // double buffered by step
  __shared__ __align__(16) float stage[kStage];

  const int group = static_cast<int>(threadIdx.x) / kGroup;
  const int lane = static_cast<int>(threadIdx.x) % kGroup;
  const int64_t n = p.n;
  const float inv_n = 1.0f / static_cast<float>(n);
  const T* dy_base = static_cast<const T*>(p.dy);
  const T* x_base = static_cast<const T*>(p.x);
  int parity = 0;

  for (int64_t chunk = blockIdx.x; chunk < p.chunks; chunk += gridDim.x) {
    const int64_t r_begin = chunk * p.rows_per_chunk;
    const int64_t r_end = r_begin + p.rows_per_chunk < p.m ? r_begin + p.rows_per_chunk : p.m;
    float gw[kItems], gb[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      gw[i] = 0.0f;
      gb[i] = 0.0f;
    }
    // Every thread runs the same steps (shuffles and barriers need them all); a group whose row
    // is past the chunk end works on zeros and stores nothing.
    for (int64_t r0 = r_begin; r0 < r_end; r0 += kRowsPerStep) {
      const int64_t row = r0 + group;
      const bool active = row < r_end;
      float a[kItems], xh[kItems];
      float s1 = 0.0f, s2 = 0.0f;
      RowStats st{0.0f, 0.0f, n == 1};
      int64_t off[3] = {0, 0, 0};
      if (active) {
        OffsetsAt(p.lead, row, off);
        int64_t stat_off[2];
        OffsetsAt(p.stat, row, stat_off);
        st.mu = LoadAs(p.mean, p.mean_dt, stat_off[0]);
        st.rs = LoadAs(p.rstd, p.rstd_dt, stat_off[1]);
#pragma unroll
        for (int v = 0; v < kVecs; ++v) {
          const int64_t c0 = static_cast<int64_t>(v * kGroup + lane) * kVec;
          float dyv[kVec], xv[kVec], wv[kVec];
          LoadRowVector<T>(dy_base + off[0], c0, n, p.vec_rows, dyv);
          LoadRowVector<T>(x_base + off[1], c0, n, p.vec_rows, xv);
          if (p.want_dx) {
            LoadWeight<kVec>(p, c0, wv);
          } else {
#pragma unroll
            for (int j = 0; j < kVec; ++j) wv[j] = 0.0f;
          }
#pragma unroll
          for (int j = 0; j < kVec; ++j) {
            const int i = v * kVec + j;
            Pass1Element(st, c0 + j < n, dyv[j], xv[j], wv[j], &a[i], &xh[i], &s1, &s2, &gw[i],
                         &gb[i]);
          }
        }
      } else {
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
          a[i] = 0.0f;
          xh[i] = 0.0f;
        }
      }
      if (p.want_dx) {
        GroupSum<kGroup, kGroupWarps>(&s1, &s2, row_sums[parity], group, lane);
        parity ^= 1;
        if (active) {
          const float c1 = __fmul_rn(s1, inv_n);
          const float c2 = __fmul_rn(s2, inv_n);
#pragma unroll
          for (int v = 0; v < kVecs; ++v) {
            const int64_t c0 = static_cast<int64_t>(v * kGroup + lane) * kVec;
            if (c0 >= n) continue;
            float out[kVec];
#pragma unroll
            for (int j = 0; j < kVec; ++j) {
              out[j] = DxElement(st, a[v * kVec + j], xh[v * kVec + j], c1, c2);
            }
            StoreDx<kVec>(p, off[2], c0, out);
          }
        }
      }
    }
    if (p.want_gw) {
      WriteChunkPartials<kGroup, kItems, kVec, kRowsPerStep>(gw, p.part_gw + chunk * p.n_pad,
                                                             p.n_pad, stage, group, lane);
    }
    if (p.want_gb) {
      WriteChunkPartials<kGroup, kItems, kVec, kRowsPerStep>(gb, p.part_gb + chunk * p.n_pad,
                                                             p.n_pad, stage, group, lane);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Long or strided rows: a CTA takes one row at a time and reads it twice (pass 1: row sums and
// column partials; pass 2: dx; the second read mostly hits L2). Thread t owns the vectors at
// columns (k * threads + t) * kVec in both passes and for the partials, so nothing but the row
// sums needs a barrier.

__device__ __forceinline__ void BlockSum(float* s1, float* s2, float (*buf)[2]) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
    *s1 = __fadd_rn(*s1, __shfl_xor_sync(0xffffffffu, *s1, o));
    *s2 = __fadd_rn(*s2, __shfl_xor_sync(0xffffffffu, *s2, o));
  }
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if ((threadIdx.x & 31) == 0) {
    buf[warp][0] = *s1;
    buf[warp][1] = *s2;
  }
  __syncthreads();
  const int warps = static_cast<int>(blockDim.x) / 32;
  float t1 = buf[0][0];
  float t2 = buf[0][1];
  for (int w = 1; w < warps; ++w) {
    t1 = __fadd_rn(t1, buf[w][0]);
    t2 = __fadd_rn(t2, buf[w][1]);
  }
  *s1 = t1;
  *s2 = t2;
}

template <class T>
__global__ void __launch_bounds__(kStreamMaxThreads)
    StreamRowsKernel(const __grid_constant__ RowParams p) {
  constexpr int kVec = Io<T>::kVec;
  extern __shared__ float4 smem_parts4[];  // float4: 16-byte aligned
  __shared__ float row_sums[2][kStreamMaxThreads / 32][2];
  float* smem_parts = reinterpret_cast<float*>(smem_parts4);

  const int64_t n = p.n;
  const float inv_n = 1.0f / static_cast<float>(n);
  const int64_t first = static_cast<int64_t>(threadIdx.x) * kVec;
  const int64_t step = static_cast<int64_t>(blockDim.x) * kVec;
  const T* dy_base = static_cast<const T*>(p.dy);
  const T* x_base = static_cast<const T*>(p.x);
  int parity = 0;

  for (int64_t chunk = blockIdx.x; chunk < p.chunks; chunk += gridDim.x) {
    const int64_t r_begin = chunk * p.rows_per_chunk;
    const int64_t r_end = r_begin + p.rows_per_chunk < p.m ? r_begin + p.rows_per_chunk : p.m;
    float* gwp = nullptr;
    float* gbp = nullptr;
    if (p.parts_in_smem) {
      gwp = p.want_gw ? smem_parts : nullptr;
      gbp = p.want_gb ? smem_parts + (p.want_gw ? p.n_pad : 0) : nullptr;
    } else {
      gwp = p.want_gw ? p.part_gw + chunk * p.n_pad : nullptr;
      gbp = p.want_gb ? p.part_gb + chunk * p.n_pad : nullptr;
    }
    // c0 < n and n_pad % 32 == 0, so every vector of partials lies inside the partial row.
    for (int64_t c0 = first; c0 < n; c0 += step) {
      const float zero[kVec] = {};
      if (gwp != nullptr) StorePartials<kVec>(gwp + c0, zero);
      if (gbp != nullptr) StorePartials<kVec>(gbp + c0, zero);
    }
    for (int64_t row = r_begin; row < r_end; ++row) {
      int64_t off[3];
      OffsetsAt(p.lead, row, off);
      int64_t stat_off[2];
      OffsetsAt(p.stat, row, stat_off);
      const RowStats st{LoadAs(p.mean, p.mean_dt, stat_off[0]),
                        LoadAs(p.rstd, p.rstd_dt, stat_off[1]), n == 1};
      const T* dy_row = dy_base + off[0];
      const T* x_row = x_base + off[1];
      float s1 = 0.0f, s2 = 0.0f;
      for (int64_t c0 = first; c0 < n; c0 += step) {
        float dyv[kVec], xv[kVec], wv[kVec];
        LoadDyX<T>(p, dy_row, x_row, c0, dyv, xv);
        if (p.want_dx) {
          LoadWeight<kVec>(p, c0, wv);
        } else {
#pragma unroll
          for (int j = 0; j < kVec; ++j) wv[j] = 0.0f;
        }
        float pgw[kVec], pgb[kVec], a, xh;
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          pgw[j] = 0.0f;
          pgb[j] = 0.0f;
          Pass1Element(st, c0 + j < n, dyv[j], xv[j], wv[j], &a, &xh, &s1, &s2, &pgw[j], &pgb[j]);
        }
        if (gwp != nullptr) AddPartials<kVec>(gwp + c0, pgw);
        if (gbp != nullptr) AddPartials<kVec>(gbp + c0, pgb);
      }
      if (!p.want_dx) continue;
      BlockSum(&s1, &s2, row_sums[parity]);
      parity ^= 1;
      const float c1 = __fmul_rn(s1, inv_n);
      const float c2 = __fmul_rn(s2, inv_n);
      for (int64_t c0 = first; c0 < n; c0 += step) {
        float dyv[kVec], xv[kVec], wv[kVec], out[kVec];
        LoadDyX<T>(p, dy_row, x_row, c0, dyv, xv);
        LoadWeight<kVec>(p, c0, wv);
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          // The same xhat and a as pass 1 computed.
          out[j] = DxElement(st, __fmul_rn(dyv[j], wv[j]), Xhat(st, c0 + j < n, xv[j]), c1, c2);
        }
        StoreDx<kVec>(p, off[2], c0, out);
      }
    }
    if (p.parts_in_smem) {
      // Each thread copies out the partials it accumulated itself: no barrier needed.
      for (int64_t c0 = first; c0 < n; c0 += step) {
        if (gwp != nullptr) StorePartials<kVec>(p.part_gw + chunk * p.n_pad + c0, gwp + c0);
        if (gbp != nullptr) StorePartials<kVec>(p.part_gb + chunk * p.n_pad + c0, gbp + c0);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Launch of the row kernel chosen by ChooseRowKernel, for one input type (each .cu file
// instantiates one, so they compile in parallel).

template <class T, int kGroup, int kItems>
Status LaunchRegisterRows(const RowParams& p, const RowConfig& c, cudaStream_t stream) {
  RegisterRowsKernel<T, kGroup, kItems><<<c.grid, CtaThreadsFor(kGroup), 0, stream>>>(p);
  return CheckLaunch("RegisterRowsKernel (LayerNorm backward rows in registers)");
}

template <class T>
Status LaunchRows(const RowParams& p, const RowConfig& c, cudaStream_t stream) {
  constexpr int kVec = Io<T>::kVec;
  if (c.streamed) {
    if (c.smem > 48 * 1024) {
      const cudaError_t e =
          cudaFuncSetAttribute(StreamRowsKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(c.smem));
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR,
                           "aclnnLayerNormBackward: cudaFuncSetAttribute(StreamRowsKernel, %zu "
                           "bytes of shared memory) failed: %s",
                           c.smem, cudaGetErrorString(e));
      }
    }
    StreamRowsKernel<T><<<c.grid, c.threads, c.smem, stream>>>(p);
    return CheckLaunch("StreamRowsKernel (LayerNorm backward, long or strided rows)");
  }
  switch (c.group) {
    case 1:
      if (c.items == kVec) return LaunchRegisterRows<T, 1, kVec>(p, c, stream);
      break;
    case 2:
      if (c.items == kVec) return LaunchRegisterRows<T, 2, kVec>(p, c, stream);
      break;
    case 4:
      if (c.items == kVec) return LaunchRegisterRows<T, 4, kVec>(p, c, stream);
      break;
    case 8:
      if (c.items == kVec) return LaunchRegisterRows<T, 8, kVec>(p, c, stream);
      break;
    case 16:
      if (c.items == kVec) return LaunchRegisterRows<T, 16, kVec>(p, c, stream);
      break;
    case 32:
      if (c.items == kVec) return LaunchRegisterRows<T, 32, kVec>(p, c, stream);
      if (c.items == 2 * kVec) return LaunchRegisterRows<T, 32, 2 * kVec>(p, c, stream);
      if constexpr (4 * kVec == 16) {
        if (c.items == 16) return LaunchRegisterRows<T, 32, 16>(p, c, stream);
      }
      break;
    case 64:
      if (c.items == 16) return LaunchRegisterRows<T, 64, 16>(p, c, stream);
      break;
    case 128:
      if (c.items == 16) return LaunchRegisterRows<T, 128, 16>(p, c, stream);
      break;
    case 256:
      if (c.items == 16) return LaunchRegisterRows<T, 256, 16>(p, c, stream);
      break;
    case 512:
      if (c.items == 16) return LaunchRegisterRows<T, 512, 16>(p, c, stream);
      break;
    default:
      break;
  }
  return ErrorStatus(ACLNN_ERR_INNER,
                     "aclnnLayerNormBackward: no CUDA row kernel for group %d, items %d", c.group,
                     c.items);
}

// Defined in rows_f32.cu, rows_f16.cu and rows_bf16.cu.
Status LaunchRowsF32(const RowParams& p, const RowConfig& c, cudaStream_t stream);
Status LaunchRowsF16(const RowParams& p, const RowConfig& c, cudaStream_t stream);
Status LaunchRowsBF16(const RowParams& p, const RowConfig& c, cudaStream_t stream);

}  // namespace openaclnn::layer_norm_backward::cuda
