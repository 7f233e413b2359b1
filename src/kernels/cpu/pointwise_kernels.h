#pragma once
// The inner-run kernels of the pointwise engine (api/pointwise.h): one call computes one run of
// `n` output elements whose operands advance by fixed strides (in elements; 0 for a broadcast
// operand). The SIMD kernel covers float runs whose operands are all unit-stride or broadcast;
// the typed loops cover every dtype and stride.
//
// The element conversions are kernels/cpu/element_convert.h's.

#include <cstddef>
#include <cstdint>

#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "kernels/cpu/element_convert.h"

namespace openaclnn::cpu {

// The arithmetic of a run: kAdd a + alpha * b, kSub a - alpha * b, kMul a * b, kDiv a / b,
// kCopy a converted to the output type.
enum class RunOp : uint8_t { kAdd, kSub, kMul, kDiv, kCopy };

// How a run computes (see pointwise::ComputeKind).
enum class RunKind : uint8_t { kF32, kF64, kInt, kBool };

struct RunArgs {
  RunOp op = RunOp::kCopy;
  RunKind kind = RunKind::kF32;
  ElemType a = ElemType::kFloat32;
  ElemType b = ElemType::kFloat32;
  ElemType out = ElemType::kFloat32;
  ElemType compute = ElemType::kFloat32;  // integer kinds wrap to its width
  bool b_is_scalar = false;               // b is the scalar below, not a tensor
  double scalar_f = 0, alpha_f = 1;       // kF32 / kF64 kinds (fp32 values for kF32)
  int64_t scalar_i = 0, alpha_i = 1;      // kInt / kBool kinds
  // The SIMD kernel writes its aligned vectors with non-temporal stores (decided in phase 1 for
  // problems far beyond the last-level cache, whose output would not stay cached anyway: the
  // store then skips the read of each output line before it is written). Only timing depends on
  // it.
  bool stream_out = false;
};

// True when the SIMD float kernel handles `args` (kind kF32 and every tensor operand FLOAT,
// FLOAT16 or BFLOAT16).
bool SimdHandles(const RunArgs& args);
// The SIMD float kernel on unit-stride runs: a and b point at their run's first element, or are
// nullptr when the operand is broadcast over the run, with its value in a_value / b_value (as
// loaded to fp32). Bitwise the same results as RunStrided.
void RunContiguousSimd(const KernelTarget& target, const RunArgs& args, const void* a,
                       float a_value, const void* b, float b_value, void* out, int64_t n);
// A tile transpose of 2- or 4-byte elements (esize), bits moved unchanged: dst[i * dst_stride + c]
// = src[c * src_stride + i] for i < rows, c < cols (strides in elements; the source's columns
// are contiguous). Blocks of 16 x 16 32-bit lanes (AVX-512; 8 x 8 on AVX2) are transposed in
// registers, 16-bit elements as pairs of adjacent columns in one 32-bit lane; the edges and other
// targets move elements one by one. `stream`: aligned whole-line stores are non-temporal. While
// a block of columns is moved, the lines of the same columns of `ahead` (the next tile, with
// `ahead_cols` columns; nullptr for none) are prefetched.
void TransposeTile(const KernelTarget& target, const void* src, int64_t src_stride, void* dst,
                   int64_t dst_stride, int64_t rows, int64_t cols, int64_t esize, bool stream,
                   const void* ahead, int64_t ahead_cols);
// Any dtype and strides: the typed loop. Pointers at each run's first element, strides in
// elements (b unused when args.b_is_scalar or for kCopy).
void RunStrided(const RunArgs& args, const void* a, int64_t sa, const void* b, int64_t sb,
                void* out, int64_t so, int64_t n);
// Zeroes `bytes` bytes at p with the target's vector stores: on output lines not in any cache,
// in kilobyte pieces, 10-30 % faster than glibc's memset in standalone loops on the AMD EPYC
// (Zen 4) build machine (the NLL loss backward's dense rows).
void ZeroBytes(const KernelTarget& target, void* p, size_t bytes);
// Writes `n` copies of the `size`-byte pattern at stride `so` elements starting at out.
void FillRun(const void* pattern, size_t size, void* out, int64_t so, int64_t n);

}  // namespace openaclnn::cpu
