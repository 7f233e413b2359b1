// The reduction engine's SIMD sums, compiled once per Highway target.
#include "kernels/cpu/reduce_sum.h"

// Numerics: only additions, each rounded on its own; no contraction is possible, but keep the
// project's rule for kernel files.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <cstring>

#include "api/dtype.h"
#include "api/reduce.h"
#include "hwy/cache_control.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/reduce_sum.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU16 = hn::Rebind<uint16_t, DF>;
using VF = hn::Vec<DF>;

// N lanes of type E at p, as float (exact).
template <ElemType E>
HWY_INLINE VF LoadF(DF d, const void* p) {
  if constexpr (E == ElemType::kFloat32) {
    return hn::LoadU(d, static_cast<const float*>(p));
  } else if constexpr (E == ElemType::kBFloat16) {
    const auto bits = hn::PromoteTo(hn::RebindToUnsigned<DF>(),
                                    hn::LoadU(DU16(), static_cast<const uint16_t*>(p)));
    return hn::BitCast(d, hn::ShiftLeft<16>(bits));
  } else {
    return cv::HalvesToF32(d, hn::LoadU(DU16(), static_cast<const uint16_t*>(p)));
  }
}

template <ElemType E>
HWY_INLINE float ScalarF(const void* p, int64_t i) {
  if constexpr (E == ElemType::kFloat32) {
    return static_cast<const float*>(p)[i];
  } else if constexpr (E == ElemType::kBFloat16) {
    return BFloat16ToFloat(static_cast<const uint16_t*>(p)[i]);
  } else {
    return HalfToFloat(static_cast<const uint16_t*>(p)[i]);
  }
}

template <ElemType E>
HWY_INLINE const void* Advance(const void* p, int64_t i) {
  constexpr size_t kSize = E == ElemType::kFloat32 ? 4 : 2;
  return static_cast<const unsigned char*>(p) + static_cast<size_t>(i) * kSize;
}

// Lanes folded by halving inside one vector: lane j += lane j + N/2, then on the lower half, down
// to one lane (the pairs of the scalar fold, lane j + h into lane j).
template <class D>
HWY_INLINE float FoldLanes(D d, hn::Vec<D> v) {
#if HWY_TARGET == HWY_SCALAR
  return hn::GetLane(v);
#else
  if constexpr (hn::MaxLanes(D()) == 1) {
    return hn::GetLane(v);
  } else {
    const hn::Half<D> dh;
    return FoldLanes(dh, hn::Add(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)));
  }
#endif
}

template <ElemType E>
HWY_INLINE float SumRunChunkT(const void* p, int64_t n) {
  const DF d;
  constexpr size_t kN = hn::MaxLanes(DF());
  constexpr size_t kVectors = kRunLanes / kN;
  static_assert(kRunLanes % kN == 0, "kRunLanes must be a multiple of every target's lanes");
  VF acc[kVectors];
  for (size_t v = 0; v < kVectors; ++v) acc[v] = hn::Zero(d);
  int64_t i = 0;
  for (; i + kRunLanes <= n; i += kRunLanes) {
    for (size_t v = 0; v < kVectors; ++v) {
      acc[v] = hn::Add(acc[v], LoadF<E>(d, Advance<E>(p, i + static_cast<int64_t>(v * kN))));
    }
  }
  if (i < n) {
    // The last, partial round through a zero-filled buffer: lanes past the end add +0, which
    // changes nothing (no lane is ever -0, since each starts at +0 and adds elements).
    HWY_ALIGN float tail[kRunLanes] = {};
    for (int64_t j = 0; i + j < n; ++j) tail[j] = ScalarF<E>(p, i + j);
    for (size_t v = 0; v < kVectors; ++v) acc[v] = hn::Add(acc[v], hn::Load(d, tail + v * kN));
  }
  // Halving fold, lane j += lane j + h for h = 32 .. 1: whole vectors while h >= kN, then inside
  // the first vector. Lanes that never received an element hold +0, so every step may run.
  for (size_t step = kVectors / 2; step >= 1; step /= 2) {
    for (size_t v = 0; v < step; ++v) acc[v] = hn::Add(acc[v], acc[v + step]);
  }
  return FoldLanes(d, acc[0]);
}

template <ElemType E>
void SumRunRowsT(const void* base, const int64_t* row_offsets, int64_t rows, int64_t n,
                 float* sums) {
  for (int64_t r = 0; r < rows; ++r) sums[r] = SumRunChunkT<E>(Advance<E>(base, row_offsets[r]), n);
}

void SumRunRowsImpl(const void* base, const int64_t* row_offsets, int64_t rows, int64_t n,
                    ElemType in_type, float* sums) {
  switch (in_type) {
    case ElemType::kFloat16:
      return SumRunRowsT<ElemType::kFloat16>(base, row_offsets, rows, n, sums);
    case ElemType::kBFloat16:
      return SumRunRowsT<ElemType::kBFloat16>(base, row_offsets, rows, n, sums);
    default:
      return SumRunRowsT<ElemType::kFloat32>(base, row_offsets, rows, n, sums);
  }
}

float SumRunChunkImpl(const void* p, int64_t n, ElemType in_type) {
  switch (in_type) {
    case ElemType::kFloat16:
      return SumRunChunkT<ElemType::kFloat16>(p, n);
    case ElemType::kBFloat16:
      return SumRunChunkT<ElemType::kBFloat16>(p, n);
    default:
      return SumRunChunkT<ElemType::kFloat32>(p, n);
  }
}

template <ElemType E>
void SumColumnBlockT(const void* base, const int64_t* row_offsets, int64_t rows, int64_t width,
                     float* acc) {
  const DF d;
  constexpr int64_t kN = static_cast<int64_t>(hn::MaxLanes(DF()));
  for (int64_t c = 0; c < width; ++c) acc[c] = 0.0f;
  int64_t r = 0;
  // Four rows per sweep over the columns: acc + x0 + x1 + x2 + x3, one addition after the other,
  // the order of one row at a time with a quarter of the accumulator traffic.
  for (; r + 4 <= rows; r += 4) {
    const void* p0 = Advance<E>(base, row_offsets[r]);
    const void* p1 = Advance<E>(base, row_offsets[r + 1]);
    const void* p2 = Advance<E>(base, row_offsets[r + 2]);
    const void* p3 = Advance<E>(base, row_offsets[r + 3]);
    // The next sweep's rows are fetched while this one runs: a row's part of a tile is a few KiB,
    // too short for the hardware prefetchers to run ahead across rows. Timing only.
    const bool ahead = r + 8 <= rows;
    const void* q0 = ahead ? Advance<E>(base, row_offsets[r + 4]) : p0;
    const void* q1 = ahead ? Advance<E>(base, row_offsets[r + 5]) : p1;
    const void* q2 = ahead ? Advance<E>(base, row_offsets[r + 6]) : p2;
    const void* q3 = ahead ? Advance<E>(base, row_offsets[r + 7]) : p3;
    int64_t c = 0;
    for (; c + kN <= width; c += kN) {
      if (ahead) {
        hwy::Prefetch(static_cast<const unsigned char*>(Advance<E>(q0, c)));
        hwy::Prefetch(static_cast<const unsigned char*>(Advance<E>(q1, c)));
        hwy::Prefetch(static_cast<const unsigned char*>(Advance<E>(q2, c)));
        hwy::Prefetch(static_cast<const unsigned char*>(Advance<E>(q3, c)));
      }
      VF a = hn::LoadU(d, acc + c);
      a = hn::Add(a, LoadF<E>(d, Advance<E>(p0, c)));
      a = hn::Add(a, LoadF<E>(d, Advance<E>(p1, c)));
      a = hn::Add(a, LoadF<E>(d, Advance<E>(p2, c)));
      a = hn::Add(a, LoadF<E>(d, Advance<E>(p3, c)));
      hn::StoreU(a, d, acc + c);
    }
    for (; c < width; ++c) {
      float a = acc[c];
      a += ScalarF<E>(p0, c);
      a += ScalarF<E>(p1, c);
      a += ScalarF<E>(p2, c);
      a += ScalarF<E>(p3, c);
      acc[c] = a;
    }
  }
  for (; r < rows; ++r) {
    const void* p0 = Advance<E>(base, row_offsets[r]);
    int64_t c = 0;
    for (; c + kN <= width; c += kN) {
      hn::StoreU(hn::Add(hn::LoadU(d, acc + c), LoadF<E>(d, Advance<E>(p0, c))), d, acc + c);
    }
    for (; c < width; ++c) acc[c] += ScalarF<E>(p0, c);
  }
}

void SumColumnBlockImpl(const void* base, const int64_t* row_offsets, int64_t rows, int64_t width,
                        ElemType in_type, float* acc) {
  switch (in_type) {
    case ElemType::kFloat16:
      return SumColumnBlockT<ElemType::kFloat16>(base, row_offsets, rows, width, acc);
    case ElemType::kBFloat16:
      return SumColumnBlockT<ElemType::kBFloat16>(base, row_offsets, rows, width, acc);
    default:
      return SumColumnBlockT<ElemType::kFloat32>(base, row_offsets, rows, width, acc);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(SumRunChunkImpl);
HWY_EXPORT(SumRunRowsImpl);
HWY_EXPORT(SumColumnBlockImpl);

float SumRunChunk(const KernelTarget& target, const void* p, int64_t n, ElemType in_type) {
  return OPENACLNN_DISPATCH(SumRunChunkImpl, target)(p, n, in_type);
}

void SumRunRows(const KernelTarget& target, const void* base, const int64_t* row_offsets,
                int64_t rows, int64_t n, ElemType in_type, float* sums) {
  OPENACLNN_DISPATCH(SumRunRowsImpl, target)(base, row_offsets, rows, n, in_type, sums);
}

void SumColumnBlock(const KernelTarget& target, const void* base, const int64_t* row_offsets,
                    int64_t rows, int64_t width, ElemType in_type, float* acc) {
  OPENACLNN_DISPATCH(SumColumnBlockImpl, target)(base, row_offsets, rows, width, in_type, acc);
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE
