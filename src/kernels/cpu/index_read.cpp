#include "kernels/cpu/index_read.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/index_read.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

// The vector check of contiguous INT64 indices, compiled once per Highway target.
HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether any of the n >= 0 indices at p lies outside [0, bound) and differs from `allowed`
// (bound >= 1; a caller without an allowed value passes 0, which is in range).
bool AnyOutsideImpl(const int64_t* p, int64_t n, int64_t bound, int64_t allowed) {
  const hn::ScalableTag<uint64_t> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto* u = reinterpret_cast<const uint64_t*>(p);
  const auto upper = hn::Set(d, static_cast<uint64_t>(bound));
  const auto also = hn::Set(d, static_cast<uint64_t>(allowed));
  // A negative index is a huge unsigned one, so one unsigned comparison checks both ends.
  auto outside = [&](int64_t i) {
    const auto v = hn::LoadU(d, u + i);
    return hn::AndNot(hn::Eq(v, also), hn::Not(hn::Lt(v, upper)));
  };
  int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const auto any = hn::Or(hn::Or(outside(i), outside(i + lanes)),
                            hn::Or(outside(i + 2 * lanes), outside(i + 3 * lanes)));
    if (!hn::AllFalse(d, any)) return true;
  }
  for (; i < n; ++i) {
    if (u[i] >= static_cast<uint64_t>(bound) && u[i] != static_cast<uint64_t>(allowed)) return true;
  }
  return false;
}

}  // namespace openaclnn::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/element_convert.h"

namespace openaclnn::cpu {

HWY_EXPORT(AnyOutsideImpl);

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
  // Contiguous INT64 indices only checked (the NLL loss's targets, read in place later): whole
  // vectors compared, and the element loop below only run to find the first invalid one.
  if constexpr (std::is_same_v<T, int64_t>) {
    if (step == 1 && dst == nullptr && check.bound >= 1 &&
        !OPENACLNN_DISPATCH(AnyOutsideImpl, PlanningTarget())(
            p + begin, end - begin, check.bound, check.has_allowed ? check.allowed : 0)) {
      return -1;
    }
  }
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
#endif  // HWY_ONCE
