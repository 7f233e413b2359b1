#pragma once
// The strided-layout module: views that share their dims, each with its own strides (in
// elements), collapsed to the fewest dims and walked in row-major order. g++ and nvcc both compile
// it (host and device code), so CPU and CUDA plans analyse and walk views the same way.
//
// A broadcast dim is a stride of 0; strides may be negative. Collapse drops size-1 dims and merges
// a dim into its outer neighbour when the two are contiguous with each other in every stride set,
// as PyTorch's TensorIterator does; the walk then visits the same elements in the same order.

#include <cstdint>

#include "api/host_device.h"

namespace openaclnn {

constexpr int kMaxLayoutRank = 8;

template <int kSets>
struct MultiStrided {
  int rank = 0;
  int64_t dims[kMaxLayoutRank] = {};
  int64_t strides[kSets][kMaxLayoutRank] = {};

  // Product of the dims (1 for rank 0; 0 when a dim is 0). The caller bounds it (kMaxViewElements).
  OPENACLNN_HOST_DEVICE int64_t Numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
  // The innermost dim's length (1 for rank 0) and stride of set k (0 for rank 0).
  OPENACLNN_HOST_DEVICE int64_t InnerDim() const { return rank == 0 ? 1 : dims[rank - 1]; }
  OPENACLNN_HOST_DEVICE int64_t InnerStride(int k) const {
    return rank == 0 ? 0 : strides[k][rank - 1];
  }
  // True when every set walks its elements at unit stride (one contiguous run each).
  OPENACLNN_HOST_DEVICE bool AllUnitStride() const {
    if (rank > 1) return false;
    for (int k = 0; k < kSets && rank == 1; ++k) {
      if (strides[k][0] != 1) return false;
    }
    return true;
  }
};

// |v| as an unsigned number; defined for INT64_MIN too.
OPENACLNN_HOST_DEVICE inline uint64_t Magnitude(int64_t v) {
  return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

// a * b without overflow, or false.
OPENACLNN_HOST_DEVICE inline bool MulNoOverflow(int64_t a, int64_t b, int64_t* out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return true;
  }
  const uint64_t mag_a = Magnitude(a);
  const uint64_t mag_b = Magnitude(b);
  if (mag_a > UINT64_MAX / mag_b) return false;
  const uint64_t mag = mag_a * mag_b;
  const bool negative = (a < 0) != (b < 0);
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  if (mag > limit) return false;
  if (negative) {
    *out = mag == limit ? INT64_MIN : -static_cast<int64_t>(mag);
  } else {
    *out = static_cast<int64_t>(mag);
  }
  return true;
}

// Dims [from, to) of `dims` with kSets stride arrays (strides[k][i]), collapsed: size-1 dims
// dropped, neighbours merged where every set allows. An empty view (a dim of 0) collapses to rank
// 1 with that dim, so Numel() stays 0.
template <int kSets>
OPENACLNN_HOST_DEVICE MultiStrided<kSets> Collapse(const int64_t* dims, int from, int to,
                                                   const int64_t* const* strides) {
  MultiStrided<kSets> s;
  for (int i = from; i < to; ++i) {
    if (dims[i] == 0) {
      s.rank = 1;
      s.dims[0] = 0;
      for (int k = 0; k < kSets; ++k) s.strides[k][0] = 0;
      return s;
    }
  }
  for (int i = from; i < to; ++i) {
    if (dims[i] == 1) continue;
    if (s.rank > 0) {
      const int last = s.rank - 1;
      int64_t merged = 0;
      bool mergeable = MulNoOverflow(s.dims[last], dims[i], &merged);
      for (int k = 0; k < kSets && mergeable; ++k) {
        int64_t reach = 0;
        mergeable = MulNoOverflow(strides[k][i], dims[i], &reach) && s.strides[k][last] == reach;
      }
      if (mergeable) {
        s.dims[last] = merged;
        for (int k = 0; k < kSets; ++k) s.strides[k][last] = strides[k][i];
        continue;
      }
    }
    s.dims[s.rank] = dims[i];
    for (int k = 0; k < kSets; ++k) s.strides[k][s.rank] = strides[k][i];
    ++s.rank;
  }
  return s;
}

// The same dims without collapsing (each dim kept, size-1 ones too).
template <int kSets>
OPENACLNN_HOST_DEVICE MultiStrided<kSets> Uncollapsed(const int64_t* dims, int from, int to,
                                                      const int64_t* const* strides) {
  MultiStrided<kSets> s;
  for (int i = from; i < to; ++i) {
    s.dims[s.rank] = dims[i];
    for (int k = 0; k < kSets; ++k) s.strides[k][s.rank] = strides[k][i];
    ++s.rank;
  }
  return s;
}

// Element offsets (from each set's first element) of row-major index `linear` (< Numel()).
template <int kSets>
OPENACLNN_HOST_DEVICE void OffsetsAt(const MultiStrided<kSets>& s, int64_t linear,
                                     int64_t offsets[kSets]) {
  if (s.rank == 1) {  // the common case of a collapsed view: no division
    for (int k = 0; k < kSets; ++k) offsets[k] = linear * s.strides[k][0];
    return;
  }
  for (int k = 0; k < kSets; ++k) offsets[k] = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    if (s.dims[d] <= 0) return;
    const int64_t idx = linear % s.dims[d];
    linear /= s.dims[d];
    for (int k = 0; k < kSets; ++k) offsets[k] += idx * s.strides[k][d];
  }
}

// Walks the dims in row-major order from row-major index `linear`, keeping each set's element
// offset; Next() advances one index. With `skip_inner` the innermost dim is left out of the walk
// (the caller runs it as a 1-D loop), so `linear` counts inner runs and Next() moves to the next.
template <int kSets>
class LayoutOdometer {
 public:
  OPENACLNN_HOST_DEVICE LayoutOdometer(const MultiStrided<kSets>& s, bool skip_inner,
                                       int64_t linear)
      : s_(s), rank_(skip_inner && s.rank > 0 ? s.rank - 1 : s.rank) {
    for (int k = 0; k < kSets; ++k) offset_[k] = 0;
    // Kernels start one per row at element 0: no divisions then (they cost a short row's time).
    if (linear == 0) return;
    for (int d = rank_ - 1; d >= 0; --d) {
      idx_[d] = s.dims[d] > 0 ? linear % s.dims[d] : 0;
      linear = s.dims[d] > 0 ? linear / s.dims[d] : 0;
      for (int k = 0; k < kSets; ++k) offset_[k] += idx_[d] * s.strides[k][d];
    }
  }
  OPENACLNN_HOST_DEVICE int64_t offset(int k) const { return offset_[k]; }
  OPENACLNN_HOST_DEVICE void Next() {
    for (int d = rank_ - 1; d >= 0; --d) {
      for (int k = 0; k < kSets; ++k) offset_[k] += s_.strides[k][d];
      if (++idx_[d] < s_.dims[d]) return;
      for (int k = 0; k < kSets; ++k) offset_[k] -= s_.strides[k][d] * s_.dims[d];
      idx_[d] = 0;
    }
  }

 private:
  const MultiStrided<kSets>& s_;
  int rank_;
  int64_t idx_[kMaxLayoutRank] = {};
  int64_t offset_[kSets];
};

// One view given as rank, dims and strides (in elements), as TensorDesc holds it; tensor_desc.h
// has the TensorDesc forms of these.

// Element offset (from the first view element) of row-major index `linear`; 0 for an empty view.
OPENACLNN_HOST_DEVICE inline int64_t ElementOffset(int rank, const int64_t* dims,
                                                   const int64_t* strides, int64_t linear) {
  int64_t offset = 0;
  for (int i = rank - 1; i >= 0; --i) {
    if (dims[i] <= 0) return 0;
    offset += (linear % dims[i]) * strides[i];
    linear /= dims[i];
  }
  return offset;
}

// True when dims [from, rank) are laid out contiguously with unit innermost stride.
OPENACLNN_HOST_DEVICE inline bool TrailingContiguous(int rank, const int64_t* dims,
                                                     const int64_t* strides, int from) {
  int64_t expected = 1;
  for (int i = rank - 1; i >= from; --i) {
    if (dims[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= dims[i];
  }
  return true;
}

// False when two different indices of the view may share an address (a stride of 0 or strides
// that interleave); conservative: it may say "may overlap" for views that do not.
OPENACLNN_HOST_DEVICE inline bool CertainlyDisjoint(int rank, const int64_t* dims,
                                                    const int64_t* strides) {
  // Sort the non-trivial dims by |stride| and require each stride to exceed the span of the
  // smaller ones.
  int order[kMaxLayoutRank];
  int count = 0;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] == 0) return true;
    if (dims[i] > 1) order[count++] = i;
  }
  for (int a = 1; a < count; ++a) {
    for (int b = a; b > 0; --b) {
      if (Magnitude(strides[order[b]]) >= Magnitude(strides[order[b - 1]])) break;
      const int t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  }
  uint64_t span = 0;  // largest offset reachable by the dims processed so far
  for (int a = 0; a < count; ++a) {
    const int i = order[a];
    const uint64_t stride = Magnitude(strides[i]);
    if (stride <= span) return false;
    const uint64_t steps = static_cast<uint64_t>(dims[i] - 1);
    if (stride > (UINT64_MAX - span) / steps) return false;  // reach beyond 2^64: may wrap
    span += stride * steps;
  }
  return true;
}

}  // namespace openaclnn
