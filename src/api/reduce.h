#pragma once
// The reduction engine's planning half (phase 1): which input dims are reduced, the output shape
// they give, and the normalised problem a CPU plan runs: the reduced and the kept dims each sorted
// by stride and collapsed (api/layout.h), the summation order and the split into tasks, all decided
// by the problem alone, so that the bits of every result are the same for any thread count and
// SIMD target.
//
// Summation order (docs/ops/reduce_sum.md has the why). Every output is the sum of its reduced
// elements, taken in one of two orders, chosen by the layout:
// - run order, when the innermost reduced dim (after sorting and collapsing) has unit stride: its
//   runs are cut into chunks of kRunChunk elements; a chunk is summed in kRunLanes lanes (element
//   i of the chunk goes to lane i % kRunLanes, each lane adding in element order from +0), and
//   the lanes are folded by halving (lane j += lane j + h for h = 32, 16, ..., 1). The chunks of
//   all the output's runs, in row-major order, are the leaves of the pairwise tree below.
// - column order otherwise: the reduced positions in row-major order are cut into blocks of
//   kColumnBlock, each block summed one element after the other from +0; the blocks are the leaves
//   of the pairwise tree.
// The pairwise tree over n leaves: PairwiseSum(p, n) = PairwiseSum(p, m) + PairwiseSum(p + m,
// n - m), m the largest power of two below n. Any aligned group of 2^k leaves is a subtree, so a
// task may sum one such group and the groups' results are summed with the same tree.

#include <cstdint>
#include <string>
#include <vector>

#include "api/elem_type.h"
#include "api/layout.h"
#include "api/status.h"
#include "api/tensor_desc.h"

namespace openaclnn {

inline constexpr int64_t kRunChunk = 8192;
inline constexpr int kRunLanes = 64;
inline constexpr int64_t kColumnBlock = 64;
// Input bytes per row of one column-order tile: 4 KiB keeps the reads of a row long enough for the
// hardware prefetchers, and the tile's fp32 accumulators (1024 for FLOAT, 2048 for 16-bit
// inputs) in L1.
inline constexpr int64_t kColumnTileBytes = 4096;
// About this many input elements make a task; at least kMinTasks tasks where the problem allows.
inline constexpr int64_t kTaskElements = int64_t{1} << 18;
inline constexpr int64_t kMinTasks = 64;

// Bit d set: input dim d is reduced.
using ReduceMask = uint32_t;

// The dims list of a reduction over a tensor of `rank` dims (rank 0 is treated as 1, as CANN
// does): each in [-rank, rank - 1], negatives counted from the end, none twice. An empty list
// reduces every dim. 161002 naming `param` otherwise.
Status NormalizeReduceDims(const std::vector<int64_t>& dims, int rank, const char* param,
                           ReduceMask* mask);

// The output shape of reducing `in` over `mask`: reduced dims dropped, or kept as 1 with keep_dims.
std::vector<int64_t> ReducedShape(const TensorDesc& in, ReduceMask mask, bool keep_dims);
// CANN's shape rule: `out` has the reduced shape, or both have exactly one element.
bool OutputShapeAccepted(const std::vector<int64_t>& expected, const TensorDesc& out);

// The accumulator a sum into `out_type` uses.
enum class Accumulator { kFloat, kDouble, kInt64 };
inline Accumulator AccumulatorOf(ElemType out_type) {
  return out_type == ElemType::kFloat64 ? Accumulator::kDouble
         : IsFloating(out_type)         ? Accumulator::kFloat
                                        : Accumulator::kInt64;
}

// A reduction as its operator states it.
struct ReduceProblem {
  TensorDesc in;
  TensorDesc out;
  ReduceMask mask = 0;
  bool keep_dims = false;
  ElemType in_type = ElemType::kInvalid;
  ElemType out_type = ElemType::kInvalid;
};

// The normalised, planned reduction.
struct ReduceGeometry {
  bool empty_input = false;  // no input element: every output element is 0
  // The kept dims: set 0 input strides, set 1 output strides (elements).
  MultiStrided<2> kept;
  // The reduced dims, input strides.
  MultiStrided<1> reduced;
  int64_t kept_count = 1;
  int64_t reduced_count = 1;
  bool output_may_overlap = false;  // two output indices may share an address: one task
  bool run_order = false;

  // Run order: the unit-stride innermost reduced dim and the reduced dims outside it.
  int64_t run_length = 0;
  MultiStrided<1> run_outer;
  int64_t chunks_per_run = 0;
  int64_t leaves = 0;  // per output
  // Column order: the kept innermost dim (length and strides; 1 and 0 without kept dims), the
  // kept dims outside it, and the tiles of kColumnTile columns.
  int64_t columns = 1;
  int64_t column_in_stride = 0;
  int64_t column_out_stride = 0;
  MultiStrided<2> kept_outer;
  int64_t column_tile = 1;  // columns per tile (kColumnTileBytes of input)
  int64_t tiles_per_outer = 1;
  int64_t tiles = 1;

  // The split: leaves are summed in groups of group_leaves (a power of two), groups_per_output
  // groups per output; with one group per output, a task sums outputs_per_task whole outputs
  // (run order) or one tile (column order). partial_count accumulators are booked when
  // groups_per_output > 1.
  int64_t group_leaves = 1;
  int64_t groups_per_output = 1;
  int64_t outputs_per_task = 1;
  int64_t tasks = 0;

  std::string Describe() const;
};

// Sorts, collapses, classifies and splits `problem` (which the operator has validated).
ReduceGeometry PlanReduce(const ReduceProblem& problem);

// Output strides indexed by input dim (0 for reduced dims), for an `out` the operator accepted.
void OutputStridesByInputDim(const ReduceProblem& problem, int64_t strides[kMaxRank]);

// Largest power of two below n (n >= 2): where the pairwise tree splits n leaves.
inline int64_t PairwiseSplit(int64_t n) {
  int64_t m = 1;
  while (m * 2 < n) m *= 2;
  return m;
}

// The pairwise tree over n >= 1 values, PairwiseSum(p, m) + PairwiseSum(p + m, n - m), computed
// as a binary counter: level l holds the sum of the last complete group of 2^l values, a new value
// merges with the equal-sized sums on its left, and the levels left over are folded right to left
// (the same additions as the recursion, without its calls).
template <class T>
T PairwiseSum(const T* p, int64_t n) {
  T level[64];
  uint64_t used = 0;
  for (int64_t i = 0; i < n; ++i) {
    T v = p[i];
    int l = 0;
    for (; (used >> l) & 1u; ++l) {
      v = level[l] + v;
      used &= ~(uint64_t{1} << l);
    }
    level[l] = v;
    used |= uint64_t{1} << l;
  }
  T acc = level[__builtin_ctzll(used)];
  for (used &= used - 1; used != 0; used &= used - 1) acc = level[__builtin_ctzll(used)] + acc;
  return acc;
}

}  // namespace openaclnn
