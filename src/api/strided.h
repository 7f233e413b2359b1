#pragma once
// Walking tensor views in row-major order with one or more stride sets that share the dims, and
// telling views whose elements may share an address.

#include <cstdint>

#include "api/tensor_desc.h"

namespace openaclnn {

constexpr int kMaxSets = 2;

// Dims with up to kMaxSets stride sets, in elements.
struct StridedDims {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kMaxSets][kMaxRank] = {};
};

// Element offset (from the first view element) of row-major index `linear` of a view.
inline int64_t ElementOffset(const TensorDesc& d, int64_t linear) {
  int64_t offset = 0;
  for (int i = d.rank - 1; i >= 0; --i) {
    if (d.dims[i] <= 0) return 0;
    offset += (linear % d.dims[i]) * d.strides[i];
    linear /= d.dims[i];
  }
  return offset;
}

// Keeps the element offsets of each stride set while walking the dims in row-major order.
class Odometer {
 public:
  Odometer(const StridedDims& s, int64_t linear) : s_(s) {
    for (int k = 0; k < kMaxSets; ++k) offset_[k] = 0;
    for (int d = s.rank - 1; d >= 0; --d) {
      idx_[d] = s.dims[d] > 0 ? linear % s.dims[d] : 0;
      linear = s.dims[d] > 0 ? linear / s.dims[d] : 0;
      for (int k = 0; k < kMaxSets; ++k) offset_[k] += idx_[d] * s.strides[k][d];
    }
  }
  int64_t offset(int k) const { return offset_[k]; }
  void Next() {
    for (int d = s_.rank - 1; d >= 0; --d) {
      for (int k = 0; k < kMaxSets; ++k) offset_[k] += s_.strides[k][d];
      if (++idx_[d] < s_.dims[d]) return;
      for (int k = 0; k < kMaxSets; ++k) offset_[k] -= s_.strides[k][d] * s_.dims[d];
      idx_[d] = 0;
    }
  }

 private:
  const StridedDims& s_;
  int64_t idx_[kMaxRank] = {};
  int64_t offset_[kMaxSets];
};

// Dims [from, to) of `a` with the strides of `a` (set 0) and `b` (set 1; nullptr: zeros).
inline StridedDims MakeStridedDims(const TensorDesc& a, const TensorDesc* b, int from, int to) {
  StridedDims s;
  for (int i = from; i < to; ++i) {
    s.dims[s.rank] = a.dims[i];
    s.strides[0][s.rank] = a.strides[i];
    s.strides[1][s.rank] = b != nullptr ? b->strides[i] : 0;
    ++s.rank;
  }
  return s;
}

// When walking every stride set of `s` in row-major order advances by one fixed step per
// index, stores those steps and returns true (index i is then at i * step[k]).
inline bool CollapseToOneStride(const StridedDims& s, int64_t step[kMaxSets]) {
  for (int k = 0; k < kMaxSets; ++k) {
    int64_t expected = -1;  // stride the next outer dim must have; -1: not known yet
    step[k] = 0;
    for (int i = s.rank - 1; i >= 0; --i) {
      if (s.dims[i] == 1) continue;
      if (s.dims[i] == 0) return false;
      if (expected < 0) {
        step[k] = s.strides[k][i];
      } else if (s.strides[k][i] != expected) {
        return false;
      }
      expected = s.strides[k][i] * s.dims[i];
    }
  }
  return true;
}

// True when dims [from, rank) of `d` are laid out contiguously with unit innermost stride.
inline bool TrailingContiguous(const TensorDesc& d, int from) {
  int64_t expected = 1;
  for (int i = d.rank - 1; i >= from; --i) {
    if (d.dims[i] == 1) continue;
    if (d.strides[i] != expected) return false;
    expected *= d.dims[i];
  }
  return true;
}

// False when two different indices of the view may share an address (a stride of 0 or strides
// that interleave); conservative: it may say "may overlap" for views that do not.
inline bool CertainlyDisjoint(const TensorDesc& d) {
  // Sort the non-trivial dims by |stride| and require each stride to exceed the span of the
  // smaller ones.
  int order[kMaxRank];
  int count = 0;
  for (int i = 0; i < d.rank; ++i) {
    if (d.dims[i] == 0) return true;
    if (d.dims[i] > 1) order[count++] = i;
  }
  for (int a = 1; a < count; ++a) {
    for (int b = a; b > 0; --b) {
      const int64_t sb = d.strides[order[b]] < 0 ? -d.strides[order[b]] : d.strides[order[b]];
      const int64_t sp =
          d.strides[order[b - 1]] < 0 ? -d.strides[order[b - 1]] : d.strides[order[b - 1]];
      if (sb >= sp) break;
      const int t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  }
  int64_t span = 0;  // largest offset reachable by the dims processed so far
  for (int a = 0; a < count; ++a) {
    const int i = order[a];
    const int64_t s = d.strides[i] < 0 ? -d.strides[i] : d.strides[i];
    if (s <= span) return false;
    span += s * (d.dims[i] - 1);
  }
  return true;
}

}  // namespace openaclnn
