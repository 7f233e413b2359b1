#include "api/reduce.h"

#include <algorithm>
#include <cstdlib>

#include "api/tensor_desc.h"

namespace openaclnn {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t NextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Dims of one group in storage order: broadcast (stride 0) dims outermost, then by decreasing
// |stride|, ties in dim order; size-1 dims are left out (Collapse would drop them).
std::vector<int> StorageOrder(const TensorDesc& in, ReduceMask mask, bool reduced) {
  std::vector<int> dims;
  for (int d = 0; d < in.rank; ++d) {
    if (((mask >> d) & 1u) == (reduced ? 1u : 0u) && in.dims[d] != 1) dims.push_back(d);
  }
  auto key = [&](int d) {
    const int64_t s = std::llabs(in.strides[d]);
    return s == 0 ? INT64_MAX : s;
  };
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) { return key(a) > key(b); });
  return dims;
}

template <int kSets>
MultiStrided<kSets> CollapseGroup(const TensorDesc& in, const std::vector<int>& order,
                                  const int64_t* const* strides_by_dim) {
  int64_t dims[kMaxRank] = {};  // (initialised: aarch64 GCC 12 warns otherwise)
  int64_t strides[kSets][kMaxRank];
  const int64_t* rows[kSets];
  for (size_t i = 0; i < order.size(); ++i) {
    dims[i] = in.dims[order[i]];
    for (int k = 0; k < kSets; ++k) strides[k][i] = strides_by_dim[k][order[i]];
  }
  for (int k = 0; k < kSets; ++k) rows[k] = strides[k];
  return Collapse<kSets>(dims, 0, static_cast<int>(order.size()), rows);
}

}  // namespace

Status NormalizeReduceDims(const std::vector<int64_t>& dims, int rank, const char* param,
                           ReduceMask* mask) {
  const int64_t range = rank <= 0 ? 1 : rank;
  ReduceMask seen = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    if (d < -range || d >= range) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s[%zu] must be in [%lld, %lld] for a self of rank %d, got %lld", param,
                         i, static_cast<long long>(-range), static_cast<long long>(range - 1), rank,
                         static_cast<long long>(d));
    }
    const int64_t positive = d < 0 ? d + range : d;
    if ((seen >> positive) & 1u) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s must name each dim once, got dim %lld twice (%s[%zu] is %lld)", param,
                         static_cast<long long>(positive), param, i, static_cast<long long>(d));
    }
    seen |= ReduceMask{1} << positive;
  }
  if (rank <= 0) {
    *mask = 0;
  } else if (dims.empty()) {
    *mask = rank >= 32 ? ~ReduceMask{0} : (ReduceMask{1} << rank) - 1;
  } else {
    *mask = seen;
  }
  return Status::Ok();
}

std::vector<int64_t> ReducedShape(const TensorDesc& in, ReduceMask mask, bool keep_dims) {
  std::vector<int64_t> shape;
  for (int d = 0; d < in.rank; ++d) {
    if ((mask >> d) & 1u) {
      if (keep_dims) shape.push_back(1);
    } else {
      shape.push_back(in.dims[d]);
    }
  }
  return shape;
}

bool OutputShapeAccepted(const std::vector<int64_t>& expected, const TensorDesc& out) {
  bool equal = static_cast<int>(expected.size()) == out.rank;
  for (int d = 0; equal && d < out.rank; ++d) equal = expected[d] == out.dims[d];
  if (equal) return true;
  int64_t expected_count = 1;
  for (int64_t v : expected) expected_count *= v;
  return expected_count == 1 && out.Numel() == 1;
}

void OutputStridesByInputDim(const ReduceProblem& p, int64_t strides[kMaxRank]) {
  const std::vector<int64_t> expected = ReducedShape(p.in, p.mask, p.keep_dims);
  bool equal = static_cast<int>(expected.size()) == p.out.rank;
  for (int d = 0; equal && d < p.out.rank; ++d) equal = expected[d] == p.out.dims[d];
  int out_dim = 0;
  for (int d = 0; d < p.in.rank; ++d) {
    const bool reduced = (p.mask >> d) & 1u;
    strides[d] = 0;
    // Only one output element otherwise: its address is the view's first element.
    if (equal && !reduced) strides[d] = p.out.strides[out_dim];
    if (!reduced || p.keep_dims) ++out_dim;
  }
}

ReduceGeometry PlanReduce(const ReduceProblem& p) {
  ReduceGeometry g;
  g.output_may_overlap = !CertainlyDisjoint(p.out);
  if (p.in.Numel() == 0) {
    g.empty_input = true;
    g.kept_count = p.out.Numel();
    g.tasks = g.kept_count == 0 ? 0 : 1;
    return g;
  }
  int64_t out_strides[kMaxRank];
  OutputStridesByInputDim(p, out_strides);
  const int64_t* kept_sets[2] = {p.in.strides.data(), out_strides};
  const int64_t* reduced_sets[1] = {p.in.strides.data()};
  g.kept = CollapseGroup<2>(p.in, StorageOrder(p.in, p.mask, false), kept_sets);
  g.reduced = CollapseGroup<1>(p.in, StorageOrder(p.in, p.mask, true), reduced_sets);
  g.kept_count = g.kept.Numel();
  g.reduced_count = g.reduced.Numel();
  g.run_order = g.reduced.rank >= 1 && g.reduced.InnerStride(0) == 1;

  if (g.run_order) {
    g.run_length = g.reduced.InnerDim();
    g.run_outer = g.reduced;
    g.run_outer.rank -= 1;
    g.chunks_per_run = CeilDiv(g.run_length, kRunChunk);
    g.leaves = g.run_outer.Numel() * g.chunks_per_run;
    const int64_t per_output = g.reduced_count;
    if (g.leaves > 1 && g.kept_count < kMinTasks) {
      const int64_t wanted = CeilDiv(kMinTasks, g.kept_count);
      const int64_t leaf_elements = std::min(g.run_length, kRunChunk);
      const int64_t by_size = std::max<int64_t>(1, kTaskElements / leaf_elements);
      g.group_leaves = std::min(NextPow2(CeilDiv(g.leaves, wanted)), NextPow2(by_size));
      g.groups_per_output = CeilDiv(g.leaves, g.group_leaves);
    }
    if (g.groups_per_output == 1) {
      g.group_leaves = NextPow2(g.leaves);
      g.outputs_per_task = std::max<int64_t>(1, kTaskElements / per_output);
      g.tasks = CeilDiv(g.kept_count, g.outputs_per_task);
    } else {
      g.tasks = g.kept_count * g.groups_per_output;
    }
  } else {
    if (g.kept.rank >= 1) {
      g.columns = g.kept.InnerDim();
      g.column_in_stride = g.kept.InnerStride(0);
      g.column_out_stride = g.kept.InnerStride(1);
      g.kept_outer = g.kept;
      g.kept_outer.rank -= 1;
    }
    g.column_tile = kColumnTileBytes / static_cast<int64_t>(ElemSize(p.in_type));
    g.tiles_per_outer = CeilDiv(g.columns, g.column_tile);
    g.tiles = g.kept_outer.Numel() * g.tiles_per_outer;
    g.leaves = CeilDiv(g.reduced_count, kColumnBlock);
    if (g.leaves > 1 && g.tiles < kMinTasks) {
      const int64_t wanted = CeilDiv(kMinTasks, g.tiles);
      const int64_t tile_columns = std::min(g.columns, g.column_tile);
      const int64_t by_size = std::max<int64_t>(1, kTaskElements / (tile_columns * kColumnBlock));
      g.group_leaves = std::min(NextPow2(CeilDiv(g.leaves, wanted)), NextPow2(by_size));
      g.groups_per_output = CeilDiv(g.leaves, g.group_leaves);
    }
    if (g.groups_per_output == 1) g.group_leaves = NextPow2(g.leaves);
    g.tasks = g.tiles * g.groups_per_output;
  }
  return g;
}

std::string ReduceGeometry::Describe() const {
  if (empty_input) return "empty input";
  std::string s = run_order ? "run order" : "column order";
  s += " kept=" + std::to_string(kept_count) + " reduced=" + std::to_string(reduced_count);
  if (run_order) {
    s += " run=" + std::to_string(run_length);
  } else {
    s += " columns=" + std::to_string(columns) + " stride=" + std::to_string(column_in_stride);
  }
  s += " groups=" + std::to_string(groups_per_output) + "x" + std::to_string(group_leaves) +
       " tasks=" + std::to_string(tasks);
  return s;
}

}  // namespace openaclnn
