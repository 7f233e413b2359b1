#pragma once
// Which bytes a view covers, for the operators that must notice an input sharing memory with
// their output (pointwise staging, the matmul family's deferred stores).

#include <cstdint>

#include "api/dtype.h"
#include "api/tensor_desc.h"

namespace openaclnn {

// The bytes a view spans, [begin, end), from its storage base; empty views span nothing.
inline void ByteSpan(const TensorDesc& d, uintptr_t base, uintptr_t* begin, uintptr_t* end) {
  int64_t lo = d.offset, hi = d.offset;
  for (int i = 0; i < d.rank; ++i) {
    const int64_t reach = (d.dims[i] - 1) * d.strides[i];
    if (reach < 0) lo += reach;
    if (reach > 0) hi += reach;
  }
  const int64_t size = static_cast<int64_t>(DTypeSize(d.dtype));
  *begin = base + static_cast<uintptr_t>(lo * size);
  *end = base + static_cast<uintptr_t>((hi + 1) * size);
}

// The same dtype, dims and strides (strides of dims of extent 1 do not matter) and offset.
inline bool SameView(const TensorDesc& a, const TensorDesc& b) {
  if (a.dtype != b.dtype || a.rank != b.rank || a.offset != b.offset) return false;
  for (int i = 0; i < a.rank; ++i) {
    if (a.dims[i] != b.dims[i]) return false;
    if (a.dims[i] > 1 && a.strides[i] != b.strides[i]) return false;
  }
  return true;
}

// True when two non-empty views' byte spans intersect (conservative: interleaved views that share
// no element count as overlapping). False when either base is null.
inline bool SpansOverlap(const TensorDesc& a, const void* a_base, const TensorDesc& b,
                         const void* b_base) {
  if (a_base == nullptr || b_base == nullptr || a.Numel() == 0 || b.Numel() == 0) return false;
  uintptr_t ab, ae, bb, be;
  ByteSpan(a, reinterpret_cast<uintptr_t>(a_base), &ab, &ae);
  ByteSpan(b, reinterpret_cast<uintptr_t>(b_base), &bb, &be);
  return ab < be && bb < ae;
}

}  // namespace openaclnn
