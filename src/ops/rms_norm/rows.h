#pragma once
// Row walking shared by RmsNorm and RmsNormGrad: a tensor whose leading `begin` dims index the
// rows and whose trailing dims hold one row, read in place through its strides.

#include <cstdint>

#include "api/dtype.h"
#include "api/elem_type.h"
#include "api/tensor_desc.h"
#include "backend/cpu/isa.h"
#include "kernels/cpu/float_runs.h"

namespace openaclnn::rms_norm {

// Element offset of row-major linear index `linear` over all dims of a view.
inline int64_t LinearOffset(const TensorDesc& t, int64_t linear) {
  int64_t off = 0;
  for (int d = t.rank - 1; d >= 0; --d) {
    const int64_t dim = t.dims[d];
    off += (linear % dim) * t.strides[d];
    linear /= dim;
  }
  return off;
}

// Element offset of the first element of row `row` (dims [0, begin) in row-major order).
inline int64_t RowBase(const TensorDesc& t, int begin, int64_t row) {
  int64_t off = 0;
  for (int d = begin - 1; d >= 0; --d) {
    const int64_t dim = t.dims[d];
    off += (row % dim) * t.strides[d];
    row /= dim;
  }
  return off;
}

// True when the row's trailing dims [begin, rank) form one run of equally spaced elements; its
// spacing goes to *stride (dims of size 1 are skipped).
inline bool OneRun(const TensorDesc& t, int begin, int64_t* stride) {
  int64_t run_stride = 1;
  int64_t expect = -1;
  for (int d = t.rank - 1; d >= begin; --d) {
    if (t.dims[d] == 1) continue;
    if (expect < 0) {
      run_stride = t.strides[d];
      expect = t.strides[d] * t.dims[d];
    } else if (t.strides[d] != expect) {
      return false;
    } else {
      expect *= t.dims[d];
    }
  }
  *stride = run_stride;
  return true;
}

// Calls fn(i, offset) for the row's elements i = 0..n-1 in row-major order of dims
// [begin, rank), offset counted from `base`. A row whose trailing dims are one run of stride s
// costs one multiply per element; otherwise an odometer steps the dims.
template <class Fn>
inline void ForRow(const TensorDesc& t, int begin, int64_t base, int64_t n, const Fn& fn) {
  int64_t run_stride = 1;
  if (OneRun(t, begin, &run_stride)) {
    for (int64_t i = 0; i < n; ++i) fn(i, base + i * run_stride);
    return;
  }
  int64_t idx[kMaxRank] = {};
  int64_t off = base;
  for (int64_t i = 0; i < n; ++i) {
    fn(i, off);
    for (int d = t.rank - 1; d >= begin; --d) {
      off += t.strides[d];
      if (++idx[d] < t.dims[d]) break;
      off -= t.strides[d] * t.dims[d];
      idx[d] = 0;
    }
  }
}

// Row `row` of a view (its first element at `first`) as n floats into out. Rows laid out
// contiguously take the kit's vector conversions on the plan's SIMD target.
inline void LoadRow(const openaclnn::cpu::KernelTarget& target, const TensorDesc& t,
                    const void* first, int begin, int64_t row, int64_t n, float* out) {
  const int64_t base = RowBase(t, begin, row);
  int64_t stride = 0;
  if (OneRun(t, begin, &stride) && (stride == 1 || n == 1)) {
    const ElemType type = ToElemType(t.dtype);
    openaclnn::cpu::LoadFloatRun(
        target, type,
        static_cast<const unsigned char*>(first) + base * static_cast<int64_t>(ElemSize(type)), n,
        out);
    return;
  }
  ForRow(t, begin, base, n,
         [&](int64_t i, int64_t off) { out[i] = LoadAsFloat(first, t.dtype, off); });
}

// n floats into row `row` of a view, each rounded once to the view's dtype.
inline void StoreRow(const openaclnn::cpu::KernelTarget& target, const TensorDesc& t, void* first,
                     int begin, int64_t row, int64_t n, const float* in) {
  const int64_t base = RowBase(t, begin, row);
  int64_t stride = 0;
  if (OneRun(t, begin, &stride) && (stride == 1 || n == 1)) {
    const ElemType type = ToElemType(t.dtype);
    openaclnn::cpu::StoreFloatRun(
        target, type, in, n,
        static_cast<unsigned char*>(first) + base * static_cast<int64_t>(ElemSize(type)));
    return;
  }
  ForRow(t, begin, base, n,
         [&](int64_t i, int64_t off) { StoreFromFloat(first, t.dtype, off, in[i]); });
}

// sum_i a[i] * b[i] * (c ? c[i] : 1) of a row in a fixed order: eight fp32 lanes over blocks of
// 256 elements, each block's total added to a double. A plain running fp32 sum lost 2e-4
// relative on a row of 2^20 elements; this keeps the error of every row length near fp32's
// rounding of the result, and the order depends on n only.
inline float RowDot(const float* a, const float* b, const float* c, int64_t n) {
  constexpr int64_t kBlock = 256;
  double total = 0;
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const int64_t b1 = b0 + kBlock < n ? b0 + kBlock : n;
    float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = b0;
    for (; i + 8 <= b1; i += 8) {
      for (int l = 0; l < 8; ++l) {
        lanes[l] += a[i + l] * b[i + l] * (c != nullptr ? c[i + l] : 1.0f);
      }
    }
    float rest = 0;
    for (; i < b1; ++i) rest += a[i] * b[i] * (c != nullptr ? c[i] : 1.0f);
    total += static_cast<double>(((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
                                 ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7])) + rest);
  }
  return static_cast<float>(total);
}

// Rows per chunk of an M x N problem: about 64K elements a chunk, at most 256 chunks. It depends
// on the problem only, so the chunks (and any per-chunk partial sums) are the same for every
// thread count.
inline int64_t RowsPerChunk(int64_t m, int64_t n) {
  constexpr int64_t kChunkElements = int64_t{1} << 16;
  constexpr int64_t kMaxChunks = 256;
  int64_t rows = n > 0 ? (kChunkElements + n - 1) / n : m;
  if (rows < 1) rows = 1;
  const int64_t min_rows = (m + kMaxChunks - 1) / kMaxChunks;
  return rows > min_rows ? rows : (min_rows > 0 ? min_rows : 1);
}

}  // namespace openaclnn::rms_norm
