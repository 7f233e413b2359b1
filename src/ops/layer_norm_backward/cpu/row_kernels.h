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
#include "api/layout.h"
#include "backend/cpu/isa.h"

namespace openaclnn::layer_norm_backward::cpu {

constexpr int64_t kBlock = 32;
constexpr int64_t kSegmentBlocks = 64;

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
  MultiStrided<3> lead;          // leading dims, collapsed; sets dy, x, dx
  MultiStrided<2> stat;          // mean/rstd view dims, collapsed; sets mean, rstd
  MultiStrided<3> trail;         // trailing dims, collapsed; sets dy, x, dx (!rows_contiguous)
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

// Whether ProcessRows on `target` reads RowPointers::weight and adds into gw_part and gb_part in
// swapped column order (bfloat16 rows of at least kBlock contiguous elements on AVX2, whose loads
// widen 16 elements in that order); column order otherwise.
bool RowsSwapColumns(const openaclnn::cpu::KernelTarget& target, const RowArgs& args);

// Processes rows [row_begin, row_end) for N >= 2: writes dx when want_dx, and adds
// dy * xhat and dy into gw_part and gb_part (n_pad floats each, zeroed by the caller) when
// want_params. Runs the kernel compiled for `target` (the plan's, resolved in phase 1).
void ProcessRows(const openaclnn::cpu::KernelTarget& target, const RowArgs& args,
                 const RowPointers& ptrs, int64_t row_begin, int64_t row_end, float* gw_part,
                 float* gb_part);

}  // namespace openaclnn::layer_norm_backward::cpu
