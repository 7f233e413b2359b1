#pragma once
// Device passes of the CUDA ConvTbc backward around the cuBLAS products: packing a view into a
// row-major GEMM panel (with the cubeMathType input rounding and the gradBias partial sums),
// finishing gradBias, zeroing an fp32 accumulator, and storing an fp32 result into an output view.
// Internal to cuda/: plan.h is the header without CUDA types.

#include <cuda_runtime.h>

#include <cstdint>

#include "api/elem_type.h"

namespace openaclnn::conv_tbc::cuda {

// How a value is rounded before it enters a product (mirrors InputRounding).
enum class Rounding : int { kNone = 0, kHf32 = 1, kHalf = 2 };

// A rank-3 view (a rank-1 view is (1, 1, n)); strides in elements, may be negative or zero.
struct DeviceView {
  void* first = nullptr;  // address of element (0, 0, 0)
  ElemType type = ElemType::kFloat32;
  int64_t dims[3] = {0, 0, 0};
  int64_t strides[3] = {0, 0, 0};
};

// Packs `src` into `panel` (or only sums it when panel is null). Panel row p is view row
// (p / dims[1] + time_shift, p % dims[1]); rows whose time falls outside [0, dims[0]) are zeros,
// which gives the zero-padded time window gradWeight multiplies. The panel has
// panel_times * dims[1] rows of dims[2] columns, row stride ld.
//
// With `partials`, chunk c (rows [c * chunk_rows, (c + 1) * chunk_rows)) also writes
// partials[c * dims[2] + col] = the fp32 sum of the unrounded values of that column, summed in a
// fixed order (8 row lanes in row order, then the lanes in order): the first stage of gradBias.
struct PackArgs {
  DeviceView src;
  Rounding rounding = Rounding::kNone;
  int64_t time_shift = 0;
  int64_t panel_times = 0;
  void* panel = nullptr;
  ElemType panel_type = ElemType::kFloat32;
  int64_t ld = 0;
  int64_t chunk_rows = 1;
  int64_t chunks = 0;
  float* partials = nullptr;
};
cudaError_t LaunchPack(const PackArgs& args, cudaStream_t stream);

// gradBias[c] = sum over chunks, in chunk order, of partials[chunk * n + c], stored once in the
// output dtype. `serial` runs one thread over c in order (for views that repeat addresses).
cudaError_t LaunchBiasFinish(const float* partials, int64_t chunks, int64_t n,
                             const DeviceView& out, bool serial, cudaStream_t stream);

// Zeros rows x cols fp32 values with row stride ld.
cudaError_t LaunchZeroRows(float* base, int64_t rows, int64_t cols, int64_t ld,
                           cudaStream_t stream);

// Element (i0, i1, i2) of `out` = src[(i0 * dims[1] + i1) * ld + i2] (0 when src is null),
// rounded through FLOAT16 first when `via_half`, then once to the output dtype. `serial` stores in
// row-major order from one thread, so where the view repeats an address the last element wins, as
// on the CPU path.
cudaError_t LaunchStore(const float* src, int64_t ld, bool via_half, const DeviceView& out,
                        bool serial, cudaStream_t stream);

}  // namespace openaclnn::conv_tbc::cuda
