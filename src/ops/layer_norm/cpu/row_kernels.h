#pragma once
// The row kernel of the fast LayerNorm forward (SIMD, dispatched at run time). Numerics, the same
// for every instruction set:
// - row sums use a canonical structure: element i goes to lane i % kBlock of a kBlock-lane
//   accumulator, restarted every kSegmentBlocks blocks and added into a running total, then the
//   lanes are reduced by the fixed pairwise tree s[c] += s[c + w/2]; a wider or narrower vector
//   only holds more or fewer of these lanes, so every target computes the same bits;
// - two passes for the statistics (mean, then the mean of squared deviations), never
//   E[x^2] - E[x]^2; rstd = 1 / sqrt(var + eps) in fp32; every pass works on x - x[0], so a
//   row whose mean is large against its spread keeps the precision of the spread;
// - no fused multiply-add, so targets without FMA give the same results;
// - 16-bit loads and stores use exact, round-to-nearest-even conversions.

#include <cstdint>

#include "acl/acl_base.h"
#include "api/elem_type.h"
#include "api/layout.h"
#include "backend/cpu/isa.h"

namespace openaclnn::layer_norm::cpu {

constexpr int64_t kBlock = 64;
constexpr int64_t kSegmentBlocks = 64;
// Rows up to this length are staged once in fp32 on the stack; longer ones are streamed.
constexpr int64_t kStageMax = 8192;
// The widest vector of floats any target has (AVX-512).
constexpr int64_t kMaxLanes = 16;
// Rows up to this length (with simple addressing) are processed a vector of rows at a time.
constexpr int64_t kTransposeMax = 64;

// Everything the row kernel needs except addresses; frozen in phase 1.
struct RowArgs {
  int64_t n = 0;  // >= 1
  float eps = 0.0f;
  ElemType in = ElemType::kFloat32;
  ElemType out = ElemType::kFloat32;
  aclDataType mean_type = ACL_FLOAT;
  aclDataType rstd_type = ACL_FLOAT;
  bool want_mean = false;
  bool want_rstd = false;
  bool in_contiguous = false;   // the row elements of input are adjacent
  bool out_contiguous = false;  // the row elements of out are adjacent
  // Row r of input and out starts at r * lead_stride[k] when lead_simple (the leading dims
  // collapse to one stride in both), else `lead` is walked; likewise mean and rstd.
  bool lead_simple = false;
  bool stat_simple = false;
  int64_t lead_stride[2] = {0, 0};
  int64_t stat_stride[2] = {0, 0};
  MultiStrided<2> lead;   // leading dims, uncollapsed; sets: input, out
  MultiStrided<2> stat;   // mean/rstd view dims, uncollapsed; sets: mean, rstd
  MultiStrided<2> trail;  // trailing dims, uncollapsed; sets: input, out
};

struct RowPointers {
  const void* x = nullptr;  // first element of the input view
  void* y = nullptr;        // first element of the out view
  void* mean = nullptr;
  void* rstd = nullptr;
  const float* weight = nullptr;  // n rounded up to kBlock floats, 64-byte aligned
  const float* bias = nullptr;    // same
};

// Normalises rows [row_begin, row_end) and writes their mean and rstd when wanted, with the
// kernel compiled for `target` (the plan's, resolved in phase 1).
void NormalizeRows(const openaclnn::cpu::KernelTarget& target, const RowArgs& args,
                   const RowPointers& ptrs, int64_t row_begin, int64_t row_end);

}  // namespace openaclnn::layer_norm::cpu
