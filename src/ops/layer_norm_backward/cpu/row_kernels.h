#pragma once
// The row kernels of the fast CPU implementation (SIMD, dispatched at run time) and the
// layout descriptions they take. Numerics shared by every instruction set:
// - row sums use a canonical accumulation structure: element n goes to lane n % kBlock of a
//   kBlock-lane accumulator, restarted every kSegmentBlocks blocks and added into a running total,
//   then reduced by the fixed pairwise tree s[c] += s[c + w/2]; a wider or narrower vector only
//   holds more or fewer of these lanes, so every target computes bit for bit the same sums;
// - three fused multiply-adds (a * xhat into the row sum, dy * xhat into the gradWeight partial,
//   xhat * mean(a * xhat) out of dx), rounded once on every target: FMA instructions where the
//   target has them, std::fma lane by lane on the others (SSE4, scalar);
// - 16-bit loads and the stores of 16-bit outputs use exact, round-to-nearest-even conversions
//   written once with integer vector operations, or instructions that give the same bits
//   (F16C on AVX2 and AVX-512, VCVTNE2PS2BF16 where the CPU has AVX512_BF16).

#include <cstdint>

#include "api/elem_type.h"

namespace openaclnn::layer_norm_backward::cpu {

constexpr int64_t kBlock = 32;
constexpr int64_t kSegmentBlocks = 64;
constexpr int kMaxDims = 8;

// Dims with up to three stride sets (one per tensor sharing the dims), in elements.
struct StridedDims {
  int rank = 0;
  int64_t dims[kMaxDims] = {};
  int64_t strides[3][kMaxDims] = {};
};

// Walks a StridedDims in row-major order, keeping the element offset of each stride set.
template <int kSets>
class Odometer {
 public:
  Odometer(const StridedDims& s, int64_t linear) : s_(s) {
    for (int k = 0; k < kSets; ++k) offset_[k] = 0;
    for (int d = s.rank - 1; d >= 0; --d) {
      idx_[d] = linear % s.dims[d];
      linear /= s.dims[d];
      for (int k = 0; k < kSets; ++k) offset_[k] += idx_[d] * s.strides[k][d];
    }
  }
  int64_t offset(int k) const { return offset_[k]; }
  void Next() {
    for (int d = s_.rank - 1; d >= 0; --d) {
      for (int k = 0; k < kSets; ++k) offset_[k] += s_.strides[k][d];
      if (++idx_[d] < s_.dims[d]) return;
      for (int k = 0; k < kSets; ++k) offset_[k] -= s_.strides[k][d] * s_.dims[d];
      idx_[d] = 0;
    }
  }

 private:
  const StridedDims& s_;
  int64_t idx_[kMaxDims] = {};
  int64_t offset_[kSets];
};

// Everything the row kernel needs except addresses; frozen in phase 1.
struct RowArgs {
  int64_t n = 0;
  int64_t n_pad = 0;  // n rounded up to kBlock: the length of the weight and partial arrays
  ElemType in = ElemType::kFloat32;
  ElemType dx = ElemType::kFloat32;
  ElemType mean = ElemType::kFloat32;
  ElemType rstd = ElemType::kFloat32;
  bool want_dx = false;
  bool want_params = false;      // accumulate gradWeight and gradBias partials
  bool rows_contiguous = false;  // the row elements of dy, x (and dx) are adjacent
  bool stream_dx = false;        // write dx with non-temporal stores (outputs beyond cache)
  bool native_bf16 = false;      // AVX512_BF16 may round bfloat16 outputs (same bits either way)
  bool narrow_stores = false;    // 64-byte stores take two cycles (see ContiguousRows)
  bool prefetch_l2 = false;      // prefetch rows ahead into L2 (see ContiguousRows)
  StridedDims lead;              // leading dims; sets dy, x, dx
  StridedDims stat;              // mean/rstd view dims; sets mean, rstd
  StridedDims trail;             // trailing dims; sets dy, x, dx (used when !rows_contiguous)
};

struct RowPointers {
  const void* dy = nullptr;
  const void* x = nullptr;
  void* dx = nullptr;
  const void* mean = nullptr;
  const void* rstd = nullptr;
  const float* weight = nullptr;  // n_pad floats, zero padded; ones without a weight
};

// Where a column's weight and partials are kept when RowsSwapColumns: column c at c with bits 2 and
// 3 exchanged (the middle quarters of every 16 columns trade places; its own inverse).
constexpr int64_t SwappedColumn(int64_t c) {
  return (c & ~int64_t{12}) | ((c & 4) << 1) | ((c & 8) >> 1);
}

// Whether ProcessRows, with the instruction set it runs now, reads RowPointers::weight and adds
// into gw_part and gb_part in swapped column order (bfloat16 rows of at least kBlock contiguous
// elements on AVX2, whose loads widen 16 elements in that order); column order otherwise.
bool RowsSwapColumns(const RowArgs& args);

// Processes rows [row_begin, row_end) for N >= 2: writes dx when want_dx, and adds
// dy * xhat and dy into gw_part and gb_part (n_pad floats each, zeroed by the caller) when
// want_params.
void ProcessRows(const RowArgs& args, const RowPointers& ptrs, int64_t row_begin, int64_t row_end,
                 float* gw_part, float* gb_part);

}  // namespace openaclnn::layer_norm_backward::cpu
