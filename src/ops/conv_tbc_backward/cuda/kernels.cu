// Device passes of the CUDA ConvTbc backward (see kernels.h). The conversions reproduce the scalar
// ones of api/dtype.h for every non-NaN value (round to nearest even, subnormals kept: the build
// does not flush them), so a packed panel holds exactly what the CPU path's fp32 panels hold.
// No kernel uses atomics, and every sum runs in an order fixed by the problem alone.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ops/conv_tbc_backward/cuda/kernels.h"

namespace openaclnn::conv_tbc::cuda {
namespace {

// Blocks of 32 columns (one warp reads 32 neighbouring elements of a row) by 8 row lanes.
constexpr int kTileCols = 32;
constexpr int kTileRows = 8;
constexpr int64_t kMaxGridX = 4096;
constexpr int64_t kMaxGridY = 65535;  // the hardware limit of gridDim.y
// Enough blocks to fill an H200 several times over; grid-stride loops cover the rest.
constexpr int64_t kMaxBlocks = 16384;

__host__ __device__ constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

__device__ __forceinline__ float LoadElem(const void* base, ElemType type, int64_t i) {
  switch (type) {
    case ElemType::kFloat16:
      return __half2float(static_cast<const __half*>(base)[i]);
    case ElemType::kBFloat16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
    default:
      return static_cast<const float*>(base)[i];
  }
}

// RoundToHf32 of api/dtype.h: keep 11 mantissa bits, ties away from zero; inf and NaN unchanged.
__device__ __forceinline__ float RoundHf32(float f) {
  uint32_t u = __float_as_uint(f);
  if ((u & 0x7f800000u) == 0x7f800000u) return f;
  u = ((u >> 11) + 1u) >> 1 << 12;
  return __uint_as_float(u);
}

__device__ __forceinline__ float ApplyRounding(Rounding rounding, float v) {
  switch (rounding) {
    case Rounding::kHf32:
      return RoundHf32(v);
    case Rounding::kHalf:
      return __half2float(__float2half_rn(v));
    default:
      return v;
  }
}

// Output stores: one rounding to the dtype, after the FLOAT16 rounding of cubeMathType 2.
__device__ __forceinline__ void StoreElem(void* base, ElemType type, int64_t i, float v,
                                          bool via_half) {
  if (via_half) {
    const __half h = __float2half_rn(v);
    if (type == ElemType::kFloat16) {
      static_cast<__half*>(base)[i] = h;
      return;
    }
    v = __half2float(h);
  }
  switch (type) {
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

struct NoPanel {};

// Panel element types. The value is already representable (see plan.cu), so the conversion to a
// 16-bit panel is exact.
template <class P>
__device__ __forceinline__ void PutPanel(void* panel, int64_t i, float v) {
  if constexpr (std::is_same_v<P, float>) {
    static_cast<float*>(panel)[i] = v;
  } else if constexpr (std::is_same_v<P, __half>) {
    static_cast<__half*>(panel)[i] = __float2half_rn(v);
  } else if constexpr (std::is_same_v<P, __nv_bfloat16>) {
    static_cast<__nv_bfloat16*>(panel)[i] = __float2bfloat16_rn(v);
  }
}

template <class P>
__global__ void __launch_bounds__(kTileCols* kTileRows) PackKernel(PackArgs a) {
  __shared__ float lane_sums[kTileRows][kTileCols];
  const DeviceView& s = a.src;
  const int64_t rows = a.panel_times * s.dims[1];
  const int64_t cols = s.dims[2];
  const int64_t col_blocks = CeilDiv(cols, kTileCols);
  // Block-uniform loops, so the barriers below are reached by every thread of the block.
  for (int64_t chunk = blockIdx.y; chunk < a.chunks; chunk += gridDim.y) {
    const int64_t r0 = chunk * a.chunk_rows;
    const int64_t r1 = rows - r0 < a.chunk_rows ? rows : r0 + a.chunk_rows;
    for (int64_t cb = blockIdx.x; cb < col_blocks; cb += gridDim.x) {
      const int64_t c = cb * kTileCols + threadIdx.x;
      float sum = 0.0f;
      if (c < cols) {
        for (int64_t r = r0 + threadIdx.y; r < r1; r += kTileRows) {
          const int64_t tp = r / s.dims[1];
          const int64_t b = r - tp * s.dims[1];
          const int64_t t = tp + a.time_shift;
          float v = 0.0f;
          if (t >= 0 && t < s.dims[0]) {
            v = LoadElem(s.first, s.type, t * s.strides[0] + b * s.strides[1] + c * s.strides[2]);
          }
          sum += v;
          if constexpr (!std::is_same_v<P, NoPanel>) {
            PutPanel<P>(a.panel, r * a.ld + c, ApplyRounding(a.rounding, v));
          }
        }
      }
      if (a.partials != nullptr) {
        lane_sums[threadIdx.y][threadIdx.x] = sum;
        __syncthreads();
        if (threadIdx.y == 0 && c < cols) {
          float total = 0.0f;
          for (int lane = 0; lane < kTileRows; ++lane) total += lane_sums[lane][threadIdx.x];
          a.partials[chunk * cols + c] = total;
        }
        __syncthreads();
      }
    }
  }
}

__global__ void BiasFinishKernel(const float* partials, int64_t chunks, int64_t n, DeviceView out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < n; c += step) {
    float sum = 0.0f;
    for (int64_t i = 0; i < chunks; ++i) sum += partials[i * n + c];
    StoreElem(out.first, out.type, c * out.strides[2], sum, false);
  }
}

__global__ void ZeroRowsKernel(float* base, int64_t rows, int64_t cols, int64_t ld) {
  const int64_t row_step = static_cast<int64_t>(gridDim.y) * blockDim.y;
  const int64_t col_step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < rows;
       r += row_step) {
    for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < cols;
         c += col_step) {
      base[r * ld + c] = 0.0f;
    }
  }
}

// With a 1 x 1 grid of one thread the loops visit the elements in row-major order.
__global__ void StoreKernel(const float* src, int64_t ld, bool via_half, DeviceView out) {
  const int64_t rows = out.dims[0] * out.dims[1];
  const int64_t cols = out.dims[2];
  const int64_t row_step = static_cast<int64_t>(gridDim.y) * blockDim.y;
  const int64_t col_step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; r < rows;
       r += row_step) {
    const int64_t i0 = r / out.dims[1];
    const int64_t i1 = r - i0 * out.dims[1];
    const int64_t row_offset = i0 * out.strides[0] + i1 * out.strides[1];
    for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < cols;
         c += col_step) {
      const float v = src != nullptr ? src[r * ld + c] : 0.0f;
      StoreElem(out.first, out.type, row_offset + c * out.strides[2], v, via_half);
    }
  }
}

// A grid of 32 x 8 blocks over rows x cols, capped (grid-stride loops do the rest).
void TileGrid(int64_t rows, int64_t cols, dim3* grid, dim3* block) {
  const int64_t gx = std::min<int64_t>(std::max<int64_t>(CeilDiv(cols, kTileCols), 1), kMaxGridX);
  const int64_t gy = std::min<int64_t>(std::max<int64_t>(CeilDiv(rows, kTileRows), 1),
                                       std::max<int64_t>(std::min(kMaxGridY, kMaxBlocks / gx), 1));
  *grid = dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  *block = dim3(kTileCols, kTileRows);
}

}  // namespace

cudaError_t LaunchPack(const PackArgs& args, cudaStream_t stream) {
  const int64_t cols = args.src.dims[2];
  if (args.chunks <= 0 || cols <= 0) return cudaSuccess;
  const int64_t gx = std::min<int64_t>(CeilDiv(cols, kTileCols), kMaxGridX);
  const int64_t gy = std::min<int64_t>(args.chunks, kMaxGridY);
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  const dim3 block(kTileCols, kTileRows);
  if (args.panel == nullptr) {
    PackKernel<NoPanel><<<grid, block, 0, stream>>>(args);
  } else if (args.panel_type == ElemType::kFloat16) {
    PackKernel<__half><<<grid, block, 0, stream>>>(args);
  } else if (args.panel_type == ElemType::kBFloat16) {
    PackKernel<__nv_bfloat16><<<grid, block, 0, stream>>>(args);
  } else {
    PackKernel<float><<<grid, block, 0, stream>>>(args);
  }
  return cudaGetLastError();
}

cudaError_t LaunchBiasFinish(const float* partials, int64_t chunks, int64_t n,
                             const DeviceView& out, bool serial, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const unsigned blocks =
      serial ? 1u : static_cast<unsigned>(std::min<int64_t>(CeilDiv(n, kThreads), kMaxBlocks));
  BiasFinishKernel<<<blocks, serial ? 1 : kThreads, 0, stream>>>(partials, chunks, n, out);
  return cudaGetLastError();
}

cudaError_t LaunchZeroRows(float* base, int64_t rows, int64_t cols, int64_t ld,
                           cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  dim3 grid, block;
  TileGrid(rows, cols, &grid, &block);
  ZeroRowsKernel<<<grid, block, 0, stream>>>(base, rows, cols, ld);
  return cudaGetLastError();
}

cudaError_t LaunchStore(const float* src, int64_t ld, bool via_half, const DeviceView& out,
                        bool serial, cudaStream_t stream) {
  const int64_t rows = out.dims[0] * out.dims[1];
  const int64_t cols = out.dims[2];
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  dim3 grid(1, 1), block(1, 1);
  if (!serial) TileGrid(rows, cols, &grid, &block);
  StoreKernel<<<grid, block, 0, stream>>>(src, ld, via_half, out);
  return cudaGetLastError();
}

}  // namespace openaclnn::conv_tbc::cuda
