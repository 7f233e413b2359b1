#include "kernels/cpu/index_read.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "api/elem_type.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/element_convert.h"

namespace openaclnn::cpu {
namespace {

constexpr int64_t kIndicesPerChunk = 1 << 16;

// Checks one integer index; on success stores it (or -1 for the allowed value) unless dst is
// null.
inline bool Accept(int64_t v, const IndexCheck& check, int64_t* dst) {
  if (check.has_allowed && v == check.allowed) {
    if (dst != nullptr) *dst = -1;
    return true;
  }
  if (v < 0 || v >= check.bound) return false;
  if (dst != nullptr) *dst = v;
  return true;
}

// Elements [begin, end) of a view whose row-major order is one stride `step` apart.
template <class T>
int64_t ReadStrided(const T* p, int64_t step, int64_t begin, int64_t end, const IndexCheck& check,
                    int64_t* dst) {
  for (int64_t i = begin; i < end; ++i) {
    if (!Accept(static_cast<int64_t>(p[i * step]), check, dst != nullptr ? dst + i : nullptr)) {
      return i;
    }
  }
  return -1;
}

}  // namespace

BadIndex ReadIndices(const TensorDesc& desc, const void* first, const IndexCheck& check,
                     int64_t* dst) {
  const int64_t count = desc.Numel();
  const ElemType type = ToElemType(desc.dtype);
  // A view whose elements are evenly spaced in row-major order (contiguous, or one dim, or 0-d).
  const MultiStrided<1> collapsed = CollapsedView(desc);
  const bool one_step = collapsed.rank <= 1;
  const int64_t step = collapsed.rank == 1 ? collapsed.strides[0][0] : 1;
  const int64_t chunks = (count + kIndicesPerChunk - 1) / kIndicesPerChunk;
  std::vector<int64_t> first_bad(static_cast<size_t>(chunks), -1);
  ParallelFor(chunks, [&](int64_t chunk) {
    const int64_t begin = chunk * kIndicesPerChunk;
    const int64_t end = std::min(count, begin + kIndicesPerChunk);
    int64_t bad = -1;
    auto at = [dst](int64_t i) -> int64_t* { return dst != nullptr ? dst + i : nullptr; };
    if (one_step && type == ElemType::kInt64) {
      bad = ReadStrided(static_cast<const int64_t*>(first), step, begin, end, check, dst);
    } else if (one_step && type == ElemType::kInt32) {
      bad = ReadStrided(static_cast<const int32_t*>(first), step, begin, end, check, dst);
    } else if (IsFloating(type)) {
      for (int64_t i = begin; i < end && bad < 0; ++i) {
        const double v = LoadAsDouble(type, first, one_step ? i * step : ElementOffset(desc, i));
        const double truncated = std::trunc(v);
        // Out of int64's range (or NaN) is out of range whatever the bound.
        if (!(std::fabs(truncated) < 9.2e18) ||
            !Accept(static_cast<int64_t>(truncated), check, at(i))) {
          bad = i;
        }
      }
    } else {
      for (int64_t i = begin; i < end && bad < 0; ++i) {
        const int64_t v = LoadAsInt64(type, first, one_step ? i * step : ElementOffset(desc, i));
        if (!Accept(v, check, at(i))) bad = i;
      }
    }
    first_bad[static_cast<size_t>(chunk)] = bad;
  });
  BadIndex result;
  for (int64_t bad : first_bad) {
    if (bad < 0) continue;
    result.position = bad;
    const int64_t at = one_step ? bad * step : ElementOffset(desc, bad);
    result.value = LoadAsDouble(type, first, at);
    break;
  }
  return result;
}

}  // namespace openaclnn::cpu
