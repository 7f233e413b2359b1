// The reduction engine's SIMD sums, compiled once per Highway target.
#include "kernels/cpu/reduce_sum.h"

// Numerics: only additions, each rounded on its own; no contraction is possible, but keep the
// project's rule for kernel files.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <algorithm>
#include <cstring>

#include "api/dtype.h"
#include "api/reduce.h"
#include "hwy/cache_control.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/reduce_sum.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/convert-inl.h"
#include "kernels/cpu/vec_array-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// Every sum below has a structure fixed by kRunLanes or by the columns, not by the vector width;
// the lane folds use the lane count at compile time (4 float lanes on SVE: FixedLanesTag).
using DF = cv::FixedLanesTag<float>;
using DU16 = hn::Rebind<uint16_t, DF>;
using VF = hn::Vec<DF>;

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
#elif OPENACLNN_SIZELESS_VECTORS
  // On SVE, Half<D> of a capped tag keeps D's lane count (Highway scales the hardware lanes, then
  // caps): the same pairs, added on the stored lanes.
  constexpr size_t kN = hn::MaxLanes(D());
  HWY_ALIGN float lanes[kN];
  hn::Store(v, d, lanes);
  for (size_t h = kN / 2; h >= 1; h /= 2) {
    for (size_t j = 0; j < h; ++j) lanes[j] = lanes[j] + lanes[j + h];
  }
  return lanes[0];
#else
  if constexpr (hn::MaxLanes(D()) == 1) {
    return hn::GetLane(v);
  } else {
    const hn::Half<D> dh;
    return FoldLanes(dh, hn::Add(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)));
  }
#endif
}

// acc[v] += acc[v + kStep] for v < kStep, then the same with kStep / 2, .., 1 (unrolled at compile
// time, so that the accumulators stay in registers).
template <size_t kStep, class Acc>
HWY_INLINE void HalveVectors(Acc& acc) {
  if constexpr (kStep >= 1) {
    for (size_t v = 0; v < kStep; ++v) acc[v] = hn::Add(acc[v], acc[v + kStep]);
    HalveVectors<kStep / 2>(acc);
  }
}

// The kRunLanes lane sums of the n <= kRunChunk elements at p, halved down to one vector: lane j
// of the result holds the fold of lanes j, j + kN, j + 2 kN, ... by the halving steps h = 32 ..
// kN (lane j += lane j + h). The steps h < kN are left to FoldLanes or FoldRows. kMayHaveTail:
// false when n is a multiple of kRunLanes (the loop then keeps everything in registers).
template <ElemType E, bool kMayHaveTail = true>
HWY_INLINE VF RunChunkVector(const void* p, int64_t n) {
  const DF d;
  constexpr size_t kN = hn::MaxLanes(DF());
  constexpr size_t kVectors = kRunLanes / kN;
  static_assert(kRunLanes % kN == 0, "kRunLanes must be a multiple of every target's lanes");
  cv::VecArray<DF, kVectors> acc;
  HWY_UNROLL(16)
  for (size_t v = 0; v < kVectors; ++v) acc[v] = hn::Zero(d);
  int64_t i = 0;
  for (; i + kRunLanes <= n; i += kRunLanes) {
    HWY_UNROLL(16)
    for (size_t v = 0; v < kVectors; ++v) {
      acc[v] = hn::Add(acc[v],
                       cv::LoadFloatLanes<E>(d, Advance<E>(p, i + static_cast<int64_t>(v * kN))));
    }
  }
  if (kMayHaveTail && i < n) {
    // The last, partial round through a zero-filled buffer: lanes past the end add +0, which
    // changes nothing (no lane is ever -0, since each starts at +0 and adds elements).
    HWY_ALIGN float tail[kRunLanes] = {};
    for (int64_t j = 0; i + j < n; ++j) tail[j] = ScalarF<E>(p, i + j);
    for (size_t v = 0; v < kVectors; ++v) acc[v] = hn::Add(acc[v], hn::Load(d, tail + v * kN));
  }
  // Halving fold, lane j += lane j + h for h = 32 .. kN on whole vectors. Lanes that never received
  // an element hold +0, so every step may run.
  HalveVectors<kVectors / 2>(acc);
  return acc[0];
}

template <ElemType E>
HWY_INLINE float SumRunChunkT(const void* p, int64_t n) {
  return FoldLanes(DF(), RunChunkVector<E>(p, n));
}

#if HWY_TARGET != HWY_SCALAR
// One step of the halving fold on two vectors at once. In p and q each group of 2h consecutive
// lanes belongs to one row; the result holds, for every group of p and then of q, the h sums
// lane j + lane j + h (the low lane first, as FoldLanes adds): groups of h lanes, rows in order.
template <size_t kH>
HWY_INLINE VF FoldStep(DF d, VF p, VF q) {
  constexpr size_t kN = hn::MaxLanes(DF());
  if constexpr (2 * kH == kN) {
    return hn::Add(hn::ConcatLowerLower(d, q, p), hn::ConcatUpperUpper(d, q, p));
  } else if constexpr (kH == 1) {
    return hn::Add(hn::ConcatEven(d, q, p), hn::ConcatOdd(d, q, p));
  } else if constexpr (kH == 2) {
    const hn::Repartition<uint64_t, DF> du64;
    const auto p64 = hn::BitCast(du64, p), q64 = hn::BitCast(du64, q);
    return hn::Add(hn::BitCast(d, hn::ConcatEven(du64, q64, p64)),
                   hn::BitCast(d, hn::ConcatOdd(du64, q64, p64)));
  } else {
#if HWY_TARGET == HWY_AVX3
    static_assert(kH == 4 && kN == 16, "groups of 8 lanes: AVX-512 only");
    // 128-bit blocks: the low block of each 8-lane group of p, then of q; and the high blocks.
    return hn::Add(VF{_mm512_shuffle_f32x4(p.raw, q.raw, _MM_SHUFFLE(2, 0, 2, 0))},
                   VF{_mm512_shuffle_f32x4(p.raw, q.raw, _MM_SHUFFLE(3, 1, 3, 1))});
#else
    static_assert(kH == 0, "no target has groups of 8 lanes in vectors other than AVX-512's");
    return p;
#endif
  }
}

// The steps h = kH, kH / 2, .., 1 of the fold on `count` vectors (a power of two, count * kH ==
// kN): v[0] ends up holding one sum per row.
template <size_t kH, class Rows>
HWY_INLINE void FoldRowSteps(DF d, Rows& v, size_t count) {
  if constexpr (kH >= 1) {
    for (size_t i = 0; i < count / 2; ++i) v[i] = FoldStep<kH>(d, v[2 * i], v[2 * i + 1]);
    FoldRowSteps<kH / 2>(d, v, count / 2);
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

// The lane folds of kN rows at once: v[r] is row r's RunChunkVector. The same additions as
// FoldLanes on each row (lane j + lane j + h, h = kN / 2 .. 1), done with vertical adds on
// rearranged vectors, so the bits are FoldLanes' bits; about 3 instructions a row in place of a
// chain of log2(kN) shuffles and adds per row.
template <class Rows>
HWY_INLINE VF FoldRows(Rows& v) {
  const DF d;
  constexpr size_t kN = hn::MaxLanes(DF());
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kN > 1) FoldRowSteps<kN / 2>(d, v, kN);
#else
  (void)d;
  (void)kN;
#endif
  return v[0];
}

template <ElemType E, bool kMayHaveTail>
void SumRunRowsT(const void* base, const int64_t* row_offsets, int64_t rows, int64_t n,
                 float* sums) {
  const DF d;
  constexpr int64_t kN = static_cast<int64_t>(hn::MaxLanes(DF()));
  int64_t r = 0;
  // On SVE each row takes FoldLanes (the same bits): FoldStep's halves assume vectors whose
  // halves Highway's Half<> describes, which a capped SVE tag does not.
  if constexpr (!OPENACLNN_SIZELESS_VECTORS) {
    for (; r + kN <= rows; r += kN) {
      cv::VecArray<DF, kN> v;
      for (int64_t j = 0; j < kN; ++j) {
        v[j] = RunChunkVector<E, kMayHaveTail>(Advance<E>(base, row_offsets[r + j]), n);
      }
      hn::StoreU(FoldRows(v), d, sums + r);
    }
  }
  for (; r < rows; ++r) sums[r] = SumRunChunkT<E>(Advance<E>(base, row_offsets[r]), n);
}

template <ElemType E>
void SumRunRowsT(const void* base, const int64_t* row_offsets, int64_t rows, int64_t n,
                 float* sums) {
  if (n % kRunLanes == 0) return SumRunRowsT<E, false>(base, row_offsets, rows, n, sums);
  SumRunRowsT<E, true>(base, row_offsets, rows, n, sums);
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

// out[i] = sums[i] for i < count, in out_type (FLOAT, or FLOAT16/BFLOAT16 rounded to nearest even
// with the conversions of convert-inl.h, which give api/dtype.h's bits).
void StoreSumsImpl(const float* sums, int64_t count, void* out, ElemType out_type) {
  const DF d;
  const DU16 du16;
  const hn::RebindToSigned<DF> di;
  constexpr int64_t kN = static_cast<int64_t>(hn::MaxLanes(DF()));
  int64_t i = 0;
  if (out_type == ElemType::kFloat32) {
    std::memcpy(out, sums, static_cast<size_t>(count) * sizeof(float));
    return;
  }
  auto* o = static_cast<uint16_t*>(out);
  if (out_type == ElemType::kBFloat16) {
    for (; i + kN <= count; i += kN) {
      const auto bits = cv::F32ToBf16Bits(d, hn::LoadU(d, sums + i));
      hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di, bits)), du16, o + i);
    }
    for (; i < count; ++i) o[i] = FloatToBFloat16(sums[i]);
  } else {
    for (; i + kN <= count; i += kN)
      hn::StoreU(cv::F32ToHalves(d, hn::LoadU(d, sums + i)), du16, o + i);
    for (; i < count; ++i) o[i] = FloatToHalf(sums[i]);
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

// kPrefetch: fetch the next sweep's rows ahead (four rows a sweep); without it, eight rows a sweep
// and no prefetches (FLOAT rows equally spaced in memory, which the hardware prefetchers follow).
template <ElemType E, bool kPrefetch = true>
void SumColumnBlockT(const void* base, const int64_t* row_offsets, int64_t rows, int64_t width,
                     float* acc) {
  const DF d;
  constexpr int64_t kN = static_cast<int64_t>(hn::MaxLanes(DF()));
  for (int64_t c = 0; c < width; ++c) acc[c] = 0.0f;
  int64_t r = 0;
  if constexpr (!kPrefetch) {
    // Eight rows per sweep: acc + x0 + ... + x7, one addition after the other (the order of one
    // row at a time), an eighth of the accumulator traffic.
    for (; r + 8 <= rows; r += 8) {
      const void* p[8];
      for (int k = 0; k < 8; ++k) p[k] = Advance<E>(base, row_offsets[r + k]);
      int64_t c = 0;
      for (; c + kN <= width; c += kN) {
        VF a = hn::LoadU(d, acc + c);
        HWY_UNROLL(8)
        for (int k = 0; k < 8; ++k) a = hn::Add(a, cv::LoadFloatLanes<E>(d, Advance<E>(p[k], c)));
        hn::StoreU(a, d, acc + c);
      }
      for (; c < width; ++c) {
        float a = acc[c];
        for (int k = 0; k < 8; ++k) a += ScalarF<E>(p[k], c);
        acc[c] = a;
      }
    }
  }
  // Four rows per sweep over the columns: acc + x0 + x1 + x2 + x3, one addition after the other,
  // the order of one row at a time with a quarter of the accumulator traffic.
  for (; r + 4 <= rows; r += 4) {
    const void* p0 = Advance<E>(base, row_offsets[r]);
    const void* p1 = Advance<E>(base, row_offsets[r + 1]);
    const void* p2 = Advance<E>(base, row_offsets[r + 2]);
    const void* p3 = Advance<E>(base, row_offsets[r + 3]);
    // The next sweep's rows are fetched while this one runs: a row's part of a tile is a few KiB,
    // too short for the hardware prefetchers to run ahead across rows. Timing only.
    const bool ahead = kPrefetch && r + 8 <= rows;
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
      a = hn::Add(a, cv::LoadFloatLanes<E>(d, Advance<E>(p0, c)));
      a = hn::Add(a, cv::LoadFloatLanes<E>(d, Advance<E>(p1, c)));
      a = hn::Add(a, cv::LoadFloatLanes<E>(d, Advance<E>(p2, c)));
      a = hn::Add(a, cv::LoadFloatLanes<E>(d, Advance<E>(p3, c)));
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
      hn::StoreU(hn::Add(hn::LoadU(d, acc + c), cv::LoadFloatLanes<E>(d, Advance<E>(p0, c))), d,
                 acc + c);
    }
    for (; c < width; ++c) acc[c] += ScalarF<E>(p0, c);
  }
}

// Narrow tiles (kW vectors of columns): kB blocks summed at once, each block's columns in their
// own accumulators (registers), so that kB * kW addition chains run side by side where one block
// alone would wait on the latency of its kW chains. Every column still adds its block's rows one
// after the other from +0. Blocks of kColumnBlock rows, row k at element k * row_stride of base.
template <ElemType E, int64_t kW, int64_t kB>
HWY_INLINE void NarrowBlocksT(const void* base, int64_t row_stride, float* acc, int64_t width) {
  const DF d;
  constexpr int64_t kN = static_cast<int64_t>(hn::MaxLanes(DF()));
  cv::VecArray<DF, kB * kW> a;  // a[b * kW + w]: block b, vector w
  HWY_UNROLL(16)
  for (int64_t b = 0; b < kB; ++b) {
    HWY_UNROLL(16)
    for (int64_t w = 0; w < kW; ++w) a[b * kW + w] = hn::Zero(d);
  }
  for (int64_t r = 0; r < kColumnBlock; ++r) {
    HWY_UNROLL(16)
    for (int64_t b = 0; b < kB; ++b) {
      const void* row = Advance<E>(base, (b * kColumnBlock + r) * row_stride);
      HWY_UNROLL(16)
      for (int64_t w = 0; w < kW; ++w)
        a[b * kW + w] = hn::Add(a[b * kW + w], cv::LoadFloatLanes<E>(d, Advance<E>(row, w * kN)));
    }
  }
  HWY_UNROLL(16)
  for (int64_t b = 0; b < kB; ++b) {
    HWY_UNROLL(16)
    for (int64_t w = 0; w < kW; ++w) hn::StoreU(a[b * kW + w], d, acc + b * width + w * kN);
  }
}

template <ElemType E, int64_t kW>
void NarrowColumnBlocksT(const void* base, int64_t row_stride, int64_t rows, int64_t width,
                         float* acc) {
  constexpr int64_t kN = static_cast<int64_t>(hn::MaxLanes(DF()));
  constexpr int64_t kB = kW == 1 ? 8 : kW == 2 ? 4 : 2;
  const int64_t full_blocks = rows / kColumnBlock;
  int64_t b = 0;
  for (; b + kB <= full_blocks; b += kB) {
    NarrowBlocksT<E, kW, kB>(Advance<E>(base, b * kColumnBlock * row_stride), row_stride,
                             acc + b * width, width);
  }
  for (; b < full_blocks; ++b) {
    NarrowBlocksT<E, kW, 1>(Advance<E>(base, b * kColumnBlock * row_stride), row_stride,
                            acc + b * width, width);
  }
  // The short last block, and the columns past the last whole vector, one row after the other.
  const int64_t blocks = (rows + kColumnBlock - 1) / kColumnBlock;
  for (int64_t bl = 0; bl < blocks; ++bl) {
    const int64_t r0 = bl * kColumnBlock, r1 = std::min(rows, r0 + kColumnBlock);
    const int64_t c0 = bl < full_blocks ? kW * kN : 0;
    for (int64_t c = c0; c < width; ++c) {
      float sum = 0.0f;
      for (int64_t r = r0; r < r1; ++r) sum += ScalarF<E>(base, r * row_stride + c);
      acc[bl * width + c] = sum;
    }
  }
}

// Column order with equally spaced rows: the blocks of `rows` rows (kColumnBlock each, the last
// possibly shorter), block b's column sums into acc[b * width, (b + 1) * width).
template <ElemType E>
void SumColumnBlocksStridedT(const void* base, int64_t row_stride, int64_t rows, int64_t width,
                             float* acc) {
  constexpr int64_t kN = static_cast<int64_t>(hn::MaxLanes(DF()));
  switch (width / kN) {
    case 1:
      return NarrowColumnBlocksT<E, 1>(base, row_stride, rows, width, acc);
    case 2:
      return NarrowColumnBlocksT<E, 2>(base, row_stride, rows, width, acc);
    case 3:
      return NarrowColumnBlocksT<E, 3>(base, row_stride, rows, width, acc);
    case 4:
      return NarrowColumnBlocksT<E, 4>(base, row_stride, rows, width, acc);
    default:
      break;
  }
  int64_t offsets[kColumnBlock];
  for (int64_t r0 = 0, b = 0; r0 < rows; r0 += kColumnBlock, ++b) {
    const int64_t count = std::min(kColumnBlock, rows - r0);
    for (int64_t r = 0; r < count; ++r) offsets[r] = (r0 + r) * row_stride;
    // Equally spaced rows are streams the hardware prefetchers follow: for FLOAT, software
    // prefetches only took load slots (measured: (4096, 4096) over dim 0 from about 71 % to 90 %
    // of the stream without them). 16-bit elements take twice the instructions per byte, so the
    // out-of-order window holds half the cache lines in flight: there the prefetches of the next
    // sweep's rows pay ((256, 256, 256) BFLOAT16 over dim 1 from about 43 % to 68 %).
    constexpr bool kPrefetchRows = E != ElemType::kFloat32;
    SumColumnBlockT<E, kPrefetchRows>(base, offsets, count, width, acc + b * width);
  }
}

void SumColumnBlocksStridedImpl(const void* base, int64_t row_stride, int64_t rows, int64_t width,
                                ElemType in_type, float* acc) {
  switch (in_type) {
    case ElemType::kFloat16:
      return SumColumnBlocksStridedT<ElemType::kFloat16>(base, row_stride, rows, width, acc);
    case ElemType::kBFloat16:
      return SumColumnBlocksStridedT<ElemType::kBFloat16>(base, row_stride, rows, width, acc);
    default:
      return SumColumnBlocksStridedT<ElemType::kFloat32>(base, row_stride, rows, width, acc);
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
HWY_EXPORT(StoreSumsImpl);
HWY_EXPORT(SumColumnBlocksStridedImpl);

void SumColumnBlocksStrided(const KernelTarget& target, const void* base, int64_t row_stride,
                            int64_t rows, int64_t width, ElemType in_type, float* acc) {
  OPENACLNN_DISPATCH(SumColumnBlocksStridedImpl, target)
  (base, row_stride, rows, width, in_type, acc);
}

void StoreSums(const KernelTarget& target, const float* sums, int64_t count, void* out,
               ElemType out_type) {
  OPENACLNN_DISPATCH(StoreSumsImpl, target)(sums, count, out, out_type);
}

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
