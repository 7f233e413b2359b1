// SIMD row kernels of the fast LayerNorm backward, compiled once per Highway target.
// Numerics: the compiler may not contract a multiply and an add into an FMA (GCC contracts by
// default in C++, and only some targets have FMA); the fused multiply-adds are written out
// (FusedMulAdd), so every target rounds the same operations. (clang does not contract across
// statements and has no such pragma; the build also passes -ffp-contract=off.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif
#include "ops/layer_norm_backward/cpu/row_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "api/dtype.h"

// SSSE3 is never chosen on a CPU with SSE4 and only adds build time (notably under sanitizers);
// without it such a CPU runs the scalar target, with the same results.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/layer_norm_backward/cpu/row_kernels.cpp"
#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/convert-inl.h"
#include "kernels/cpu/vec_array-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::layer_norm_backward::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// The kernels fold kBlock lanes with the lane count known at compile time: the full vector on
// fixed-width targets, 4 float lanes on SVE (FixedLanesTag).
using DF = cv::FixedLanesTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using DU16 = hn::Rebind<uint16_t, DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;

template <ElemType E>
struct Storage {
  using T = uint16_t;
};
template <>
struct Storage<ElemType::kFloat32> {
  using T = float;
};
// Float lanes of DF (a compile-time constant on every target).
constexpr size_t kLanes = hn::MaxLanes(DF());

template <ElemType E>
HWY_INLINE VF BitsToF32(DF d, VU bits) {
  if constexpr (E == ElemType::kBFloat16) {
    return hn::BitCast(d, hn::ShiftLeft<16>(bits));
  } else {
    return cv::HalfBitsToF32(d, bits);
  }
}

template <ElemType E>
HWY_INLINE VF LoadF32(DF d, const typename Storage<E>::T* p) {
  if constexpr (E == ElemType::kFloat32) {
    return hn::LoadU(d, p);
  } else if constexpr (E == ElemType::kFloat16) {
    return cv::HalvesToF32(d, hn::LoadU(DU16(), p));
  } else {
    const DU du;
    const DU16 du16;
    return BitsToF32<E>(d, hn::PromoteTo(du, hn::LoadU(du16, p)));
  }
}

template <ElemType E>
HWY_INLINE VU F32ToBits(DF d, VF v) {
  if constexpr (E == ElemType::kBFloat16) {
    return cv::F32ToBf16Bits(d, v);
  } else {
    return cv::F32ToHalfBits(d, v);
  }
}

template <ElemType E>
HWY_INLINE void StoreF32(DF d, VF v, typename Storage<E>::T* p) {
  if constexpr (E == ElemType::kFloat32) {
    hn::StoreU(v, d, p);
  } else if constexpr (E == ElemType::kFloat16) {
    hn::StoreU(cv::F32ToHalves(d, v), DU16(), p);
  } else {
    const DI di;
    const DU16 du16;
    hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di, F32ToBits<E>(d, v))), du16, p);
  }
}

// Non-temporal variant for outputs too large to stay in cache; `p` is aligned to the stored
// vector's size. Same values as StoreF32.
template <ElemType E>
HWY_INLINE void StreamF32(DF d, VF v, typename Storage<E>::T* p) {
  if constexpr (E == ElemType::kFloat32) {
    hn::Stream(v, d, p);
  } else if constexpr (E == ElemType::kFloat16) {
    hn::Stream(cv::F32ToHalves(d, v), DU16(), p);
  } else {
    const DI di;
    const DU16 du16;
    hn::Stream(hn::DemoteTo(du16, hn::BitCast(di, F32ToBits<E>(d, v))), du16, p);
  }
}

// a * b + c and c - a * b, each rounded once on every target, so that every target computes the
// same bits: the FMA instruction where the target has one. Elsewhere a * b is exact in double and
// a * b + c rounded to double then to float is the fused result unless that double lies on a
// float rounding midpoint (the first rounding may have made the tie), in the float subnormal
// range, or is not finite; vectors with such a lane take std::fma (correctly rounded) lane by lane.
// (Checked against std::fma on 1.2e8 lanes of this SSE4 code and 2e8 triples of the per-lane
// code, random, subnormal and near-midpoint: no difference.)
HWY_INLINE VF ExactMulAddByLane(DF d, VF a, VF b, VF c) {
  constexpr size_t kMax = HWY_MAX_BYTES / sizeof(float);
  HWY_ALIGN float fa[kMax], fb[kMax], fc[kMax];
  hn::Store(a, d, fa);
  hn::Store(b, d, fb);
  hn::Store(c, d, fc);
  for (size_t i = 0; i < hn::Lanes(d); ++i) fa[i] = std::fma(fa[i], fb[i], fc[i]);
  return hn::Load(d, fa);
}

HWY_INLINE VF FusedMulAdd(DF d, VF a, VF b, VF c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulAdd(a, b, c);
#elif HWY_HAVE_FLOAT64 && HWY_TARGET != HWY_SCALAR
  const hn::Half<DF> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const hn::RebindToUnsigned<decltype(dd)> du64;
  auto half = [&](hn::Vec<decltype(dh)> ha, hn::Vec<decltype(dh)> hb, hn::Vec<decltype(dh)> hc,
                  hn::Mask<decltype(dd)>* exact_needed) HWY_ATTR {
    const auto sum =
        hn::Add(hn::Mul(hn::PromoteTo(dd, ha), hn::PromoteTo(dd, hb)), hn::PromoteTo(dd, hc));
    const auto low_bits = hn::And(hn::BitCast(du64, sum), hn::Set(du64, 0x1FFFFFFFull));
    const auto midpoint = hn::RebindMask(dd, low_bits == hn::Set(du64, 0x10000000ull));
    const auto magnitude = hn::Abs(sum);
    const auto not_finite = hn::Not(magnitude <= hn::Set(dd, 1.7976931348623157e308));
    const auto smallest_normal = hn::Set(dd, 0x1p-126);  // of float
    const auto float_subnormal =
        hn::And(hn::Gt(smallest_normal, magnitude), hn::Gt(magnitude, hn::Zero(dd)));
    *exact_needed = hn::Or(*exact_needed, hn::Or(midpoint, hn::Or(not_finite, float_subnormal)));
    return hn::DemoteTo(dh, sum);
  };
  auto exact_needed = hn::FirstN(dd, 0);
  const auto lo =
      half(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b), hn::LowerHalf(dh, c), &exact_needed);
  const auto hi =
      half(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b), hn::UpperHalf(dh, c), &exact_needed);
  if (!hn::AllFalse(dd, exact_needed)) return ExactMulAddByLane(d, a, b, c);
  return hn::Combine(d, hi, lo);
#else  // the same test, lane by lane
  constexpr size_t kMax = HWY_MAX_BYTES / sizeof(float);
  HWY_ALIGN float fa[kMax], fb[kMax], fc[kMax], out[kMax];
  hn::Store(a, d, fa);
  hn::Store(b, d, fb);
  hn::Store(c, d, fc);
  const size_t lanes = hn::Lanes(d);
  bool exact_needed = false;
  for (size_t i = 0; i < lanes; ++i) {
    const double s =
        static_cast<double>(fa[i]) * static_cast<double>(fb[i]) + static_cast<double>(fc[i]);
    uint64_t bits;
    std::memcpy(&bits, &s, sizeof(bits));
    const uint64_t magnitude = bits & 0x7FFFFFFFFFFFFFFFull;
    const bool midpoint = (bits & 0x1FFFFFFFull) == 0x10000000ull;  // low 29 of 52 bits = 1000..
    const bool not_finite = magnitude >= 0x7FF0000000000000ull;
    const bool float_subnormal = magnitude - 1 < 0x380FFFFFFFFFFFFFull;  // 0 < |s| < 2^-126
    exact_needed |= midpoint | not_finite | float_subnormal;
    out[i] = static_cast<float>(s);
  }
  if (exact_needed) return ExactMulAddByLane(d, a, b, c);
  return hn::Load(d, out);
#endif
}
// c - a * b, rounded once: the same bits as FusedMulAdd(-a, b, c) (negation is exact), in one
// instruction where the target has FMA.
HWY_INLINE VF FusedNegMulAdd(DF d, VF a, VF b, VF c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::NegMulAdd(a, b, c);
#else
  return FusedMulAdd(d, hn::Neg(a), b, c);
#endif
}

// Slides a vector down by (Lanes - count) and zeroes lanes >= count (count in (0, Lanes)): the
// indices and mask of TailLoad below, computed once per call of the row kernel.
// (Constructors written out: the implicit ones are compiled outside the target's attributes, which
// GCC refuses on aarch64, where the NEON target's attributes differ from the baseline's.)
HWY_INLINE hn::Vec<DI> TailIndexVector(DF d, size_t count) {
  const size_t lanes = hn::Lanes(d);
  const DI di;
  return hn::Min(hn::Iota(di, static_cast<int32_t>(lanes - count)),
                 hn::Set(di, static_cast<int32_t>(lanes - 1)));
}
#if OPENACLNN_SIZELESS_VECTORS
// SVE: sizeless indices and masks cannot be members; the count is kept and they are made when
// used.
struct TailPermute {
  size_t count = 1;
};
HWY_INLINE TailPermute MakeTailPermute(DF, size_t count) { return TailPermute{count}; }
HWY_INLINE auto TailIndices(DF d, const TailPermute& t) {
  return hn::IndicesFromVec(d, TailIndexVector(d, t.count));
}
HWY_INLINE hn::Mask<DF> TailKeep(DF d, const TailPermute& t) { return hn::FirstN(d, t.count); }
#else
struct TailPermute {
  using Indices = decltype(hn::IndicesFromVec(DF(), hn::Zero(DI())));
  HWY_INLINE TailPermute() {}
  HWY_INLINE TailPermute(Indices i, hn::Mask<DF> k) : idx(i), keep(k) {}
  Indices idx;
  hn::Mask<DF> keep;
};
HWY_INLINE TailPermute MakeTailPermute(DF d, size_t count) {
  return TailPermute{hn::IndicesFromVec(d, TailIndexVector(d, count)), hn::FirstN(d, count)};
}
HWY_INLINE TailPermute::Indices TailIndices(DF, const TailPermute& t) { return t.idx; }
HWY_INLINE hn::Mask<DF> TailKeep(DF, const TailPermute& t) { return t.keep; }
#endif

// The partial last block of a row (`tail_valid` elements, the same for every row): per vector of
// the block, which lanes hold row elements and how to slide a vector ending at the row end into
// place.
template <class Keep>
HWY_INLINE void MakeTailLanes(DF d, int64_t tail_valid, size_t vectors, Keep& keep,
                              TailPermute* tail) {
  const size_t lanes = hn::Lanes(d);
  for (size_t k = 0; k < vectors; ++k) {
    const int64_t left = tail_valid - static_cast<int64_t>(k * lanes);
    const size_t count = static_cast<size_t>(
        std::max<int64_t>(0, std::min<int64_t>(left, static_cast<int64_t>(lanes))));
    keep[k] = hn::FirstN(d, count);
    tail[k] = MakeTailPermute(d, count > 0 && count < lanes ? count : 1);
  }
}

// Lanes [0, count) = the `count` elements that end at `end`, other lanes 0: a full vector ending
// at `end` (inside the row) slid down, so nothing outside the row is read. The same values as
// staging through a zero-padded buffer, hence the same bits on every target.
template <ElemType E>
HWY_INLINE VF LoadTail(DF d, const typename Storage<E>::T* end, const TailPermute& t) {
  const VF window = LoadF32<E>(d, end - hn::Lanes(d));
  return hn::IfThenElseZero(TailKeep(d, t), hn::TableLookupLanes(window, TailIndices(d, t)));
}

// The canonical tree on the lanes of one vector: s[c] += s[c + w/2] for w = Lanes .. 2. (The
// tag is passed, not taken from the vector: on SVE the vector type is the full register.)
template <class D>
HWY_INLINE float ReduceLanes(D d, hn::Vec<D> v) {
  constexpr size_t kN = hn::MaxLanes(D());
  if constexpr (OPENACLNN_SIZELESS_VECTORS) {
    // On SVE, Half<D> of a capped tag keeps D's lane count (Highway scales the hardware lanes,
    // then caps): the same tree on the stored lanes.
    HWY_ALIGN float lanes[kN];
    hn::Store(v, d, lanes);
    for (size_t h = kN / 2; h >= 1; h /= 2) {
      for (size_t j = 0; j < h; ++j) lanes[j] = lanes[j] + lanes[j + h];
    }
    return lanes[0];
  } else if constexpr (kN == 1) {
    return hn::GetLane(v);
  } else if constexpr (kN == 4 && !OPENACLNN_SIZELESS_VECTORS) {  // no Shuffle1032 on SVE
    v = hn::Add(v, Shuffle1032(v));
    v = hn::Add(v, Shuffle2301(v));
    return hn::GetLane(v);
  } else {
    const hn::Half<D> dh;
    return ReduceLanes(dh, hn::Add(LowerHalf(dh, v), UpperHalf(dh, v)));
  }
}

// The canonical tree reduction of a kBlock-lane accumulator held in kBlock / Lanes vectors.
template <class Acc>
HWY_INLINE float ReduceCanonical(DF d, Acc& v, size_t vectors) {
  for (size_t w = vectors; w > 1; w /= 2) {
    for (size_t i = 0; i < w / 2; ++i) v[i] = hn::Add(v[i], v[i + w / 2]);
  }
  return ReduceLanes(d, v[0]);
}

// Bfloat16 rows on AVX2 widen 16 elements with one 32-byte load and two word unpacks, whose
// vectors hold columns 0-3 and 8-11, then 4-7 and 12-15: the two middle 16-byte quarters of each
// 16 columns trade places (column c sits at c with bits 2 and 3 exchanged, SwappedColumn). The
// full blocks of ContiguousRows work in that order throughout: their lane sums, the weight and the
// gradWeight / gradBias partials (fast.cpp lays those two out so, see RowsSwapColumns), and the
// dx pairs, which the pack of StorePair puts back in column order by itself. Each lane still
// adds the same values in the same order; only the final tree (ReduceTotal) and the chunk sums
// read the lanes back in column order: the same bits as every other target.
template <ElemType EIn>
constexpr bool kSwappedTarget = (HWY_TARGET == HWY_AVX2) && EIn == ElemType::kBFloat16;

// Two vectors in column order <-> the same 16 columns in swapped order (an involution).
HWY_INLINE void SwapQuarters(VF* lo, VF* hi) {
#if HWY_TARGET == HWY_AVX2
  const __m256 a = lo->raw, b = hi->raw;
  *lo = VF{_mm256_permute2f128_ps(a, b, 0x20)};
  *hi = VF{_mm256_permute2f128_ps(a, b, 0x31)};
#else
  (void)lo;
  (void)hi;
#endif
}
// The same on vectors k and k + 1 of a VecArray.
template <class Vectors>
HWY_INLINE void SwapQuartersAt(Vectors& v, size_t k) {
#if HWY_TARGET == HWY_AVX2
  SwapQuarters(&v[k], &v[k + 1]);
#else
  (void)v;
  (void)k;
#endif
}

// The same reduction of a kBlock-lane accumulator kept in memory (in swapped order if kSwapped).
template <bool kSwapped = false>
HWY_INLINE float ReduceTotal(DF d, const float* total) {
  constexpr size_t kVectors = static_cast<size_t>(kBlock) / kLanes;
  cv::VecArray<DF, kVectors> v;
  for (size_t k = 0; k < kVectors; ++k) v[k] = hn::Load(d, total + k * hn::Lanes(d));
  if constexpr (kSwapped) {
    for (size_t k = 0; k < kVectors; k += 2) SwapQuartersAt(v, k);
  }
  return ReduceCanonical(d, v, kVectors);
}

// Two adjacent vectors (2 * Lanes elements) of a contiguous row, loaded or stored together. On
// AVX-512, bfloat16 rows use one 64-byte access per pair: loads widen with one word permute per
// vector, and, where the CPU has AVX512_BF16, stores round with VCVTNE2PS2BF16. On AVX2 the pair
// is stored with one pack, one permute and one 32-byte store (paired runs on a Zen 3 core, one
// thread, BF16 rows in L2, with the totals change above: 4-17 % faster); its loads stay one
// widening load and one shift per vector (a 32-byte load, a permute and two unpacks per pair
// was 4-23 % slower there). Both give exactly
// the bits of LoadF32 / StoreF32 (the instruction rounds to nearest even and quiets NaN as
// F32ToBf16Bits does; its only difference, denormal inputs flushed to zero, is caught per pair
// and such pairs take the portable conversion).
template <ElemType E>
HWY_INLINE void LoadPair(DF d, const typename Storage<E>::T* p, VF* lo, VF* hi) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (E == ElemType::kBFloat16) {
    // Word 2i + 1 of the result takes word i (low half) or 16 + i (high half); even words are 0.
    alignas(64) static constexpr uint16_t kLow[32] = {0,  0,  1,  1,  2,  2,  3,  3,  4,  4,  5,
                                                      5,  6,  6,  7,  7,  8,  8,  9,  9,  10, 10,
                                                      11, 11, 12, 12, 13, 13, 14, 14, 15, 15};
    alignas(64) static constexpr uint16_t kHigh[32] = {16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21,
                                                       21, 22, 22, 23, 23, 24, 24, 25, 25, 26, 26,
                                                       27, 27, 28, 28, 29, 29, 30, 30, 31, 31};
    constexpr __mmask32 kOddWords = 0xAAAAAAAAu;
    const __m512i raw = _mm512_loadu_si512(p);
    *lo = VF{_mm512_castsi512_ps(
        _mm512_maskz_permutexvar_epi16(kOddWords, _mm512_load_si512(kLow), raw))};
    *hi = VF{_mm512_castsi512_ps(
        _mm512_maskz_permutexvar_epi16(kOddWords, _mm512_load_si512(kHigh), raw))};
    return;
  }
#endif
#if HWY_TARGET == HWY_AVX2
  if constexpr (E == ElemType::kBFloat16) {
    // Swapped order (kSwappedTarget): columns 0-3, 8-11 and 4-7, 12-15.
    const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    *lo = VF{_mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), raw))};
    *hi = VF{_mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), raw))};
    return;
  }
#endif
  *lo = LoadF32<E>(d, p);
  *hi = LoadF32<E>(d, p + hn::Lanes(d));
}

// Vector k of a full block starting at `p`: LoadF32 at k * Lanes, or on kSwappedTarget the
// vector of LoadPair at the pair's start.
template <ElemType E>
HWY_INLINE VF LoadBlockVector(DF d, const typename Storage<E>::T* p, size_t k) {
#if HWY_TARGET == HWY_AVX2
  if constexpr (E == ElemType::kBFloat16) {
    const __m256i raw =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + (k & ~size_t{1}) * 8));
    const __m256i zero = _mm256_setzero_si256();
    return VF{_mm256_castsi256_ps((k & 1) != 0 ? _mm256_unpackhi_epi16(zero, raw)
                                               : _mm256_unpacklo_epi16(zero, raw))};
  }
#endif
  return LoadF32<E>(d, p + k * hn::Lanes(d));
}

// `lo` and `hi` in swapped order if kSwapped (see kSwappedTarget).
template <ElemType E, bool kStream, bool kSwapped = false>
HWY_INLINE void StorePair(DF d, VF lo, VF hi, bool native_bf16, typename Storage<E>::T* p) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (E == ElemType::kBFloat16) {
    constexpr int kDenormal = 0x20;  // VFPCLASSPS category
    if (native_bf16 && _kortestz_mask16_u8(_mm512_fpclass_ps_mask(lo.raw, kDenormal),
                                           _mm512_fpclass_ps_mask(hi.raw, kDenormal))) {
      __m512i packed;
      // Written as assembly: the AVX-512 target's compile flags do not include AVX512_BF16.
      asm("vcvtne2ps2bf16 %2, %1, %0" : "=v"(packed) : "v"(hi.raw), "v"(lo.raw));
      if constexpr (kStream) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(p), packed);
      } else {
        _mm512_storeu_si512(p, packed);
      }
      return;
    }
  }
#elif HWY_TARGET == HWY_AVX2
  if constexpr (E == ElemType::kBFloat16) {
    // Both vectors rounded, packed together (lanes come out as lo 0-3, hi 0-3, lo 4-7, hi 4-7),
    // put in element order by one permute (none from swapped order, which the pack undoes), one
    // 32-byte store. A pair without NaN skips F32ToBf16Bits' NaN select: (u + 0x7fff + lsb) >> 16
    // is its result for every other input.
    __m256i bits_lo, bits_hi;
    if (_mm256_movemask_ps(_mm256_cmp_ps(lo.raw, hi.raw, _CMP_UNORD_Q)) == 0) {
      const DU du;
      auto round = [&](VF v) HWY_ATTR {
        const VU u = hn::BitCast(du, v);
        const VU lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
        return hn::ShiftRight<16>(hn::Add(u, hn::Add(hn::Set(du, 0x7fffu), lsb))).raw;
      };
      bits_lo = round(lo);
      bits_hi = round(hi);
    } else {
      bits_lo = F32ToBits<E>(d, lo).raw;
      bits_hi = F32ToBits<E>(d, hi).raw;
    }
    __m256i packed = _mm256_packus_epi32(bits_lo, bits_hi);
    if constexpr (!kSwapped) packed = _mm256_permute4x64_epi64(packed, 0xD8);  // 0, 2, 1, 3
    if constexpr (kStream) {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(p), packed);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), packed);
    }
    return;
  }
#endif
  (void)native_bf16;
  if constexpr (kSwapped) SwapQuarters(&lo, &hi);
  if constexpr (kStream) {
    StreamF32<E>(d, lo, p);
    StreamF32<E>(d, hi, p + hn::Lanes(d));
  } else {
    StoreF32<E>(d, lo, p);
    StoreF32<E>(d, hi, p + hn::Lanes(d));
  }
}

// One vector, as StoreF32, with VCVTNEPS2BF16 on AVX-512 where StorePair would use it.
template <ElemType E>
HWY_INLINE void StoreOne(DF d, VF v, bool native_bf16, typename Storage<E>::T* p) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (E == ElemType::kBFloat16) {
    constexpr int kDenormal = 0x20;  // VFPCLASSPS category
    if (native_bf16 && _mm512_fpclass_ps_mask(v.raw, kDenormal) == 0) {
      __m256i packed;
      asm("vcvtneps2bf16 %1, %0" : "=v"(packed) : "v"(v.raw));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), packed);
      return;
    }
  }
#endif
  (void)native_bf16;
  StoreF32<E>(d, v, p);
}

// 16-bit rows of up to this many columns keep pass 1's a = w * dy and xhat, as floats, for pass
// 2, which then neither widens nor recomputes them. Measured: it pays while all of it stays in L1
// with the row, the weight and the partials, and only for 16-bit inputs (for FLOAT rows the extra
// stores cost more than the three operations they save). Not so on Zen 4 (see ContiguousRows).
constexpr int64_t kKeptColumns = 1024;

// This thread's buffer for them: 2 * kKeptColumns floats, allocated on first use and freed when
// the thread ends; null if the allocation failed (the kernel then recomputes, with the same bits).
HWY_INLINE float* KeptRowBuffer() {
  thread_local hwy::AlignedFreeUniquePtr<float[]> buffer =
      hwy::AllocateAligned<float>(2 * static_cast<size_t>(kKeptColumns));
  return buffer.get();
}

// Rows shorter than a block (lanes <= n < kBlock) whose elements are adjacent and whose rows
// follow each other at one stride: the operations of ContiguousRows' partial last block, in the
// same order (the same bits), with everything of a row in registers and the gradWeight and
// gradBias partials kept in registers across the rows (stored once at the end). The generic
// kernel spent more on its per-row bookkeeping than on the row itself here. Only the first kUsed
// vectors of the block hold row elements (the rest would add +0 lanes: the row sums' tree takes
// +0 for them, and their partials lie past the row, never read): on targets with 16 vector
// registers, a row of 24 FLOAT elements then keeps 3 vectors of partials in registers, not 4
// with the rest spilled.
template <ElemType EIn, ElemType EDx, bool kDx, bool kParams, size_t kUsed>
void ShortRows(const RowArgs& a, const RowPointers& p, int64_t row_begin, int64_t row_end,
               float* gw, float* gb) {
  using TIn = typename Storage<EIn>::T;
  using TDx = typename Storage<EDx>::T;
  const DF d;
  constexpr size_t kVectors = static_cast<size_t>(kBlock) / kLanes;
  static_assert(kUsed >= 1 && kUsed <= kVectors, "vectors");
  const size_t lanes = hn::Lanes(d);
  const int64_t n = a.n;
  const float inv_n = 1.0f / static_cast<float>(n);
  const bool native_bf16 = a.native_bf16;
  cv::MaskArray<DF, kVectors> keep;
  TailPermute tail[kVectors];
  MakeTailLanes(d, n, kVectors, keep, tail);
  const size_t whole = static_cast<size_t>(n) / lanes;  // vectors [0, whole) hold full runs
  cv::VecArray<DF, kUsed> w, part_gw, part_gb;
  for (size_t k = 0; k < kUsed; ++k) {
    w[k] = part_gw[k] = part_gb[k] = hn::Zero(d);
    if (kDx) w[k] = hn::Load(d, p.weight + k * lanes);
    if (kParams) {
      part_gw[k] = hn::Load(d, gw + k * lanes);
      part_gb[k] = hn::Load(d, gb + k * lanes);
    }
  }
  const aclDataType mean_type = ToAclDataType(a.mean);
  const aclDataType rstd_type = ToAclDataType(a.rstd);
  const LayoutOdometer<3> lead(a.lead, false, row_begin);
  const LayoutOdometer<2> stat(a.stat, false, row_begin);
  const bool walk = a.lead.rank == 1;
  const TIn* dy = static_cast<const TIn*>(p.dy) + lead.offset(0);
  const TIn* x = static_cast<const TIn*>(p.x) + lead.offset(1);
  TDx* dx = kDx ? static_cast<TDx*>(p.dx) + lead.offset(2) : nullptr;
  const int64_t dy_stride = walk ? a.lead.strides[0][0] : 0;
  const int64_t x_stride = walk ? a.lead.strides[1][0] : 0;
  const int64_t dx_stride = walk ? a.lead.strides[2][0] : 0;
  const bool stat_walk = a.stat.rank == 1;
  int64_t mean_at = stat.offset(0), rstd_at = stat.offset(1);
  const int64_t mean_stride = stat_walk ? a.stat.strides[0][0] : 0;
  const int64_t rstd_stride = stat_walk ? a.stat.strides[1][0] : 0;
  // Software prefetch of dy and x, the row about 2 KiB ahead (its first and last line), within
  // this call's rows. Measured (one thread, paired runs): (401408, 24) FLOAT 10 % faster from L3;
  // for BF16 rows of 48 bytes it cost 5 %, so rows under a line go without.
  constexpr int64_t kPrefetchBytes = 2048;
  constexpr int64_t kLine = 64;
  const int64_t row_bytes = n * static_cast<int64_t>(sizeof(TIn));
  const int64_t step_bytes =
      std::max<int64_t>(1, std::abs(dy_stride) * static_cast<int64_t>(sizeof(TIn)));
  const int64_t rows_ahead =
      walk && row_bytes >= kLine ? (kPrefetchBytes + step_bytes - 1) / step_bytes : 0;
  for (int64_t r = row_begin; r < row_end; ++r) {
    if (rows_ahead > 0 && r + rows_ahead < row_end) {
      const char* ahead_dy = reinterpret_cast<const char*>(dy + rows_ahead * dy_stride);
      const char* ahead_x = reinterpret_cast<const char*>(x + rows_ahead * x_stride);
      hwy::Prefetch(ahead_dy);
      hwy::Prefetch(ahead_dy + row_bytes - 1);
      hwy::Prefetch(ahead_x);
      hwy::Prefetch(ahead_x + row_bytes - 1);
    }
    const VF vm = hn::Set(d, LoadAsFloat(p.mean, mean_type, mean_at));
    const VF vr = hn::Set(d, LoadAsFloat(p.rstd, rstd_type, rstd_at));
    cv::VecArray<DF, kUsed> va, xh;
    cv::VecArray<DF, kVectors> sum_a, sum_axh;
    for (size_t k = kUsed; k < kVectors; ++k) sum_a[k] = sum_axh[k] = hn::Zero(d);
    for (size_t k = 0; k < kUsed; ++k) {
      const int64_t left = n - static_cast<int64_t>(k * lanes);
      VF vdy = hn::Zero(d), vx = hn::Zero(d);
      if (left >= static_cast<int64_t>(lanes)) {
        vdy = LoadF32<EIn>(d, dy + k * lanes);
        vx = LoadF32<EIn>(d, x + k * lanes);
      } else if (left > 0) {
        vdy = LoadTail<EIn>(d, dy + n, tail[k]);
        vx = LoadTail<EIn>(d, x + n, tail[k]);
      }
      xh[k] = hn::IfThenElseZero(keep[k], hn::Mul(hn::Sub(vx, vm), vr));
      if (kDx) {
        va[k] = hn::Mul(vdy, w[k]);
        // The general kernel's segment sum and running total, both starting at +0: the additions
        // of +0 stay, since they turn -0 into +0.
        sum_a[k] = hn::Add(hn::Zero(d), hn::Add(hn::Zero(d), va[k]));
        sum_axh[k] = hn::Add(hn::Zero(d), FusedMulAdd(d, va[k], xh[k], hn::Zero(d)));
      }
      if (kParams) {
        part_gw[k] = FusedMulAdd(d, vdy, xh[k], part_gw[k]);
        part_gb[k] = hn::Add(part_gb[k], vdy);
      }
    }
    if (kDx) {
      const VF vc1 = hn::Set(d, ReduceCanonical(d, sum_a, kVectors) * inv_n);
      const VF vc2 = hn::Set(d, ReduceCanonical(d, sum_axh, kVectors) * inv_n);
      auto dx_from = [&](VF a_value, VF xhat) HWY_ATTR {
        return hn::Mul(vr, FusedNegMulAdd(d, xhat, vc2, hn::Sub(a_value, vc1)));
      };
      for (size_t k = 0; k < whole; ++k)
        StoreOne<EDx>(d, dx_from(va[k], xh[k]), native_bf16, dx + k * lanes);
      if (whole * lanes < static_cast<size_t>(n)) {
        // One vector ending at the row end, as ContiguousRows writes it.
        const int64_t back = n - static_cast<int64_t>(lanes);
        const VF back_xh = hn::Mul(hn::Sub(LoadF32<EIn>(d, x + back), vm), vr);
        const VF back_a = hn::Mul(LoadF32<EIn>(d, dy + back), hn::LoadU(d, p.weight + back));
        StoreOne<EDx>(d, dx_from(back_a, back_xh), native_bf16, dx + back);
      }
    }
    dy += dy_stride;
    x += x_stride;
    if (kDx) dx += dx_stride;
    mean_at += mean_stride;
    rstd_at += rstd_stride;
  }
  if (kParams) {
    for (size_t k = 0; k < kUsed; ++k) {
      hn::Store(part_gw[k], d, gw + k * lanes);
      hn::Store(part_gb[k], d, gb + k * lanes);
    }
  }
}

// Kept rows go through both passes in groups of up to this many (see ContiguousRows).
constexpr int64_t kGroupRows = 8;

// What pass 2 of ContiguousRows needs of a row whose pass 1 has finished.
template <class TIn, class TDx>
struct RowPass1 {
  const TIn* dy;
  const TIn* x;
  TDx* dx;
  const TIn* ahead_dy;
  const TIn* ahead_x;
  float mean, rstd, c1, c2;  // c1, c2: mean(a) and mean(a * xhat)
};

// Rows whose elements are adjacent (in dy, x and dx) and at least one vector long, one row at a
// time with every accumulator in registers. The same operations in the same order as Rows below,
// hence the same bits: pass 1 accumulates the canonical row sums and the parameter-gradient
// partials, pass 2 writes dx from the (now cache-resident) row, or from what pass 1 kept.
template <ElemType EIn, ElemType EDx, bool kDx, bool kParams, bool kPairLoads, bool kIntoL2,
          bool kPartialsInPass2>
void ContiguousRows(const RowArgs& a, const RowPointers& p, int64_t row_begin, int64_t row_end,
                    float* gw, float* gb) {
  if (a.n < kBlock && a.lead.rank <= 1 && a.stat.rank <= 1) {
    constexpr size_t kBlockVectors = static_cast<size_t>(kBlock) / kLanes;
    if constexpr (kBlockVectors == 4) {  // AVX2: rows of 8 to 31 elements use 1 to 4 vectors
      switch ((a.n + 7) / 8) {
        case 1:
          return ShortRows<EIn, EDx, kDx, kParams, 1>(a, p, row_begin, row_end, gw, gb);
        case 2:
          return ShortRows<EIn, EDx, kDx, kParams, 2>(a, p, row_begin, row_end, gw, gb);
        case 3:
          return ShortRows<EIn, EDx, kDx, kParams, 3>(a, p, row_begin, row_end, gw, gb);
        default:
          break;
      }
    }
    ShortRows<EIn, EDx, kDx, kParams, kBlockVectors>(a, p, row_begin, row_end, gw, gb);
    return;
  }
  using TIn = typename Storage<EIn>::T;
  using TDx = typename Storage<EDx>::T;
  const DF d;
  constexpr size_t kVectors = static_cast<size_t>(kBlock) / kLanes;
  static_assert(kVectors % 2 == 0, "vectors are handled in pairs");
  const size_t lanes = hn::Lanes(d);
  const int64_t n = a.n;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const int64_t full_blocks = n / kBlock;
  const int64_t tail_valid = n - full_blocks * kBlock;
  const float inv_n = 1.0f / static_cast<float>(n);
  const float* w = p.weight;
  const bool native_bf16 = a.native_bf16;
  const TIn* dy_base = static_cast<const TIn*>(p.dy);
  const TIn* x_base = static_cast<const TIn*>(p.x);
  TDx* dx_base = static_cast<TDx*>(p.dx);
  const aclDataType mean_type = ToAclDataType(a.mean);
  const aclDataType rstd_type = ToAclDataType(a.rstd);
  const bool can_stream = kDx && a.stream_dx;
  // On targets with 16 vector registers (AVX2 and below) only the dx-only pass keeps: with the
  // parameter partials too, the extra stores cost more than the recomputation (paired runs on a
  // Zen 3 core, two threads, BF16 rows of 128 to 1024 from memory: 2-20 % faster without
  // keeping, most 7-13 %; with dx alone keeping was 18-32 % faster).
  constexpr bool kMayKeep =
      kDx && EIn != ElemType::kFloat32 && (HWY_TARGET == HWY_AVX3 || !kParams) && !kPartialsInPass2;
  static_assert(!kPartialsInPass2 || (kDx && kParams), "pass 2 adds the partials");
  // Where a 64-byte store takes two cycles (Zen 4), the AVX-512 target does not keep: pass 1's
  // two extra stores per vector cost more than pass 2's recomputation. The benchmark's BF16
  // shapes, the two builds run in turn at two threads on a (noisy) Zen 4 host, four rounds, the
  // mean of the per-run medians: (16384, 768) 19 %, (16384, 1024) 16 %, (50432, 384) 8 %,
  // (1048576, 128) 12 %, (4445, 512) 39 % and (100000, 8, 16) 3 % faster without keeping.
  const bool keep_allowed = HWY_TARGET != HWY_AVX3 || !a.narrow_stores;
  float* const kept = kMayKeep && keep_allowed && n <= kKeptColumns ? KeptRowBuffer() : nullptr;

  cv::MaskArray<DF, kVectors> tail_keep;
  TailPermute tail[kVectors];
  MakeTailLanes(d, tail_valid, kVectors, tail_keep, tail);

  // Swapped column order (kSwappedTarget) wherever there are full blocks, as RowsSwapColumns
  // tells fast.cpp. Pass 2's partial last block reads the weight in column order from here:
  // columns [tail_w_begin, n), where its vectors may start (the last one ends at the row end).
  constexpr bool kSwapped = kSwappedTarget<EIn>;
  const bool swapped = kSwapped && full_blocks > 0;
  const int64_t tail_w_begin =
      std::max<int64_t>(0, full_blocks * kBlock - static_cast<int64_t>(lanes));
  HWY_ALIGN float tail_w[kBlock + kLanes];
  if (swapped && kDx && tail_valid > 0) {
    for (int64_t c = tail_w_begin; c < n; ++c) tail_w[c - tail_w_begin] = w[SwappedColumn(c)];
  }
  auto tail_weight = [&](int64_t at) HWY_ATTR {
    return swapped ? hn::LoadU(d, tail_w + (at - tail_w_begin)) : hn::LoadU(d, w + at);
  };
  auto reduce_total = [&](const float* total) HWY_ATTR {
    return swapped ? ReduceTotal<kSwapped>(d, total) : ReduceTotal<false>(d, total);
  };

  // Software prefetch of dy and x (with the hardware prefetchers alone, pass 1 waited on L3 at a
  // third of its bandwidth). Rows of at least kPrefetchBytes: the next row is fetched block by
  // block, during pass 2 (rows above kSplitRowBytes) or dy during pass 1 and x during pass 2, so
  // memory stays busy while the row computes (without pass 2, pass 1 prefetches
  // kPrefetchBytes ahead, within the row and on into the next); shorter rows of at least
  // kShortRowBytes fetch the row kPrefetchBytes ahead spread over the row's own work: its first
  // and last line when the row starts, then a block's lines per block, dy's in pass 1 and x's in
  // pass 2 (both in pass 1 when there is no pass 2). Below kShortRowBytes the per-row cost
  // outweighed it. Fetching the whole row ahead in one burst when a row started was slower: the
  // burst of prefetches held up the row's own loads (paired runs, (16384, 768) BF16 from L3, 10 %
  // at two threads and 14-16 % at one; 7 % with the rows in L2). Chosen by measurement, L3 and
  // DRAM-resident shapes. The odometer wraps past the last row, so every prefetched address lies
  // inside the tensors.
  constexpr int64_t kPrefetchBytes = 2048;
  constexpr int64_t kLine = 64;
  constexpr int64_t kPrefetchColumns = kPrefetchBytes / static_cast<int64_t>(sizeof(TIn));
  const int64_t row_bytes = n * static_cast<int64_t>(sizeof(TIn));
  constexpr int64_t kShortRowBytes = 256;
  const bool long_rows = n >= kPrefetchColumns;
  const bool prefetch_rows = !long_rows && row_bytes >= kShortRowBytes;
  // Rows of kPrefetchBytes up to kSplitRowBytes with a pass 2 split the next row's fetch the same
  // way: dy during pass 1, x during pass 2 (paired runs, two threads: BF16 rows of 1024 to 65536
  // columns 3-10 % faster, FLOAT rows of 512 to 8192 columns 0-9 %). Rows above it fetch both
  // during pass 2 (FLOAT rows of 65536 columns were 3-7 % slower split).
  constexpr int64_t kSplitRowBytes = int64_t{128} << 10;
  const bool split_long_rows = kDx && long_rows && row_bytes <= kSplitRowBytes;
  const int64_t rows_ahead = long_rows ? 1 : (kPrefetchBytes + row_bytes - 1) / row_bytes;
  // kIntoL2 (see RowsPrefetchIntoL2): the rows ahead go into L2 instead of L1.
  auto prefetch_line = [](const void* at) {
#if defined(__GNUC__)
    if constexpr (kIntoL2) {
      __builtin_prefetch(at, 0, 2);  // prefetcht1 on x86
      return;
    }
#endif
    hwy::Prefetch(at);
  };
  // The lines of the block of kBlock elements starting at `at`.
  auto prefetch_block = [prefetch_line](const TIn* at) {
    const char* bytes = reinterpret_cast<const char*>(at);
    constexpr int64_t kBlockBytes = kBlock * static_cast<int64_t>(sizeof(TIn));
    for (int64_t off = 0; off < kBlockBytes; off += kLine) prefetch_line(bytes + off);
  };

  // Kept rows go in groups of up to kGroupRows, as many as the buffer holds one after the other:
  // pass 1 of every row of the group, then pass 2 of each. Each row keeps its own sums and the
  // partials still add the rows in row order: the same bits. Measured (one thread, rows in L2):
  // BF16 rows of 128 to 512 columns 4-20 % faster; no gain for rows that keep nothing (FLOAT
  // rows, rows shorter than a block).
  const int64_t kept_stride = full_blocks * kBlock;
  const int64_t group_rows = kept != nullptr && kept_stride > 0
                                 ? std::min<int64_t>(kGroupRows, kKeptColumns / kept_stride)
                                 : 1;

  LayoutOdometer<3> lead(a.lead, false, row_begin);
  LayoutOdometer<3> ahead(a.lead, false, row_begin + rows_ahead);
  LayoutOdometer<2> stat(a.stat, false, row_begin);
  auto run_rows = [&](auto keep_rows) HWY_ATTR {
    constexpr bool kKeep = decltype(keep_rows)::value;
    using FullBlockParams = std::integral_constant<bool, kParams && !kPartialsInPass2>;
    auto add_partials = [&](int64_t at, VF vdy, VF xh) HWY_ATTR {
      hn::Store(FusedMulAdd(d, vdy, xh, hn::Load(d, gw + at)), d, gw + at);
      hn::Store(hn::Add(hn::Load(d, gb + at), vdy), d, gb + at);
    };
    RowPass1<TIn, TDx> done[kGroupRows];
    for (int64_t group_begin = row_begin; group_begin < row_end; group_begin += group_rows) {
      const int64_t rows = std::min(group_rows, row_end - group_begin);
      for (int64_t g = 0; g < rows; ++g, stat.Next()) {
        float* const kept_a = kKeep ? kept + g * kept_stride : nullptr;
        float* const kept_xh = kKeep ? kept_a + kKeptColumns : nullptr;
        const float mean = LoadAsFloat(p.mean, mean_type, stat.offset(0));
        const float rstd = LoadAsFloat(p.rstd, rstd_type, stat.offset(1));
        const VF vm = hn::Set(d, mean);
        const VF vr = hn::Set(d, rstd);
        const TIn* dy = dy_base + lead.offset(0);
        const TIn* x = x_base + lead.offset(1);
        TDx* dx = kDx ? dx_base + lead.offset(2) : nullptr;
        lead.Next();
        const TIn* ahead_dy = dy_base + ahead.offset(0);
        const TIn* ahead_x = x_base + ahead.offset(1);
        if (long_rows || prefetch_rows) ahead.Next();
        if (prefetch_rows) {
          // The first and last lines of that row; pass 1 (dy, and x without pass 2) and pass 2
          // (x) fetch the rest, a block at a time.
          prefetch_line(ahead_dy);
          prefetch_line(reinterpret_cast<const char*>(ahead_dy) + row_bytes - 1);
          prefetch_line(ahead_x);
          prefetch_line(reinterpret_cast<const char*>(ahead_x) + row_bytes - 1);
        }

        // Pass 1. One step: vector k of a block at column col, from float vectors vdy and xh.
        // The running totals live in memory (touched once a segment), so that the segment sums
        // stay in registers on targets with 16 vector registers (AVX2 spilled them: paired runs,
        // one thread, BF16 rows of 1024 in L2, 5-7 % faster).
        HWY_ALIGN float sum_a[kBlock], sum_axh[kBlock];
        cv::VecArray<DF, kVectors> seg_a, seg_axh;
        for (size_t k = 0; k < kVectors; ++k) {
          seg_a[k] = seg_axh[k] = hn::Zero(d);
          hn::Store(seg_a[k], d, sum_a + k * lanes);
          hn::Store(seg_a[k], d, sum_axh + k * lanes);
        }
        // The segment sums are passed by reference, not captured: a lambda capturing the arrays
        // kept them in memory (GCC, AVX2: a store and a reload per vector, each block's sums
        // waiting on the last block's stores).
        auto step = [&](int64_t col, size_t k, VF vdy, VF xh, auto&& acc_a, auto&& acc_axh,
                        auto keep_step, auto params_step) HWY_ATTR {
          const int64_t at = col + static_cast<int64_t>(k * lanes);
          if (kDx) {
            const VF va = hn::Mul(vdy, hn::Load(d, w + at));
            acc_a = hn::Add(acc_a, va);
            acc_axh = FusedMulAdd(d, va, xh, acc_axh);
            if constexpr (decltype(keep_step)::value) {
              hn::Store(va, d, kept_a + at);
              hn::Store(xh, d, kept_xh + at);
            }
          }
          if constexpr (decltype(params_step)::value) add_partials(at, vdy, xh);
        };
        auto fold = [&](auto& acc_a, auto& acc_axh) HWY_ATTR {
          for (size_t k = 0; k < kVectors; ++k) {
            float* const total_a = sum_a + k * lanes;
            float* const total_axh = sum_axh + k * lanes;
            hn::Store(hn::Add(hn::Load(d, total_a), acc_a[k]), d, total_a);
            hn::Store(hn::Add(hn::Load(d, total_axh), acc_axh[k]), d, total_axh);
            acc_a[k] = acc_axh[k] = hn::Zero(d);
          }
        };
        for (int64_t b = 0; b < full_blocks; ++b) {
          const int64_t col = b * kBlock;
          if (!kDx && long_rows) {
            const int64_t to = col + kPrefetchColumns;
            const TIn* pf_dy = to < n ? dy + to : ahead_dy + (to - n);
            const TIn* pf_x = to < n ? x + to : ahead_x + (to - n);
            prefetch_block(pf_dy);
            prefetch_block(pf_x);
          }
          if (prefetch_rows || split_long_rows) {
            prefetch_block(ahead_dy + col);
            if (!kDx) prefetch_block(ahead_x + col);
          }
          if constexpr (kPairLoads) {
            for (size_t k = 0; k < kVectors; k += 2) {
              VF dy0, dy1, x0, x1;
              LoadPair<EIn>(d, dy + col + k * lanes, &dy0, &dy1);
              LoadPair<EIn>(d, x + col + k * lanes, &x0, &x1);
              step(col, k, dy0, hn::Mul(hn::Sub(x0, vm), vr), seg_a[k], seg_axh[k], keep_rows,
                   FullBlockParams());
              step(col, k + 1, dy1, hn::Mul(hn::Sub(x1, vm), vr), seg_a[k + 1], seg_axh[k + 1],
                   keep_rows, FullBlockParams());
            }
          } else {
            for (size_t k = 0; k < kVectors; ++k) {
              const VF vdy = LoadBlockVector<EIn>(d, dy + col, k);
              const VF vx = LoadBlockVector<EIn>(d, x + col, k);
              step(col, k, vdy, hn::Mul(hn::Sub(vx, vm), vr), seg_a[k], seg_axh[k], keep_rows,
                   FullBlockParams());
            }
          }
          if (kDx && ((b + 1) % kSegmentBlocks == 0 || b + 1 == blocks)) fold(seg_a, seg_axh);
        }
        if (tail_valid > 0) {
          const int64_t col = full_blocks * kBlock;
          cv::VecArray<DF, kVectors> tail_dy, tail_xh;
          for (size_t k = 0; k < kVectors; ++k) {
            const int64_t left = tail_valid - static_cast<int64_t>(k * lanes);
            VF vdy = hn::Zero(d), vx = hn::Zero(d);
            if (left >= static_cast<int64_t>(lanes)) {
              vdy = LoadF32<EIn>(d, dy + col + k * lanes);
              vx = LoadF32<EIn>(d, x + col + k * lanes);
            } else if (left > 0) {
              vdy = LoadTail<EIn>(d, dy + n, tail[k]);
              vx = LoadTail<EIn>(d, x + n, tail[k]);
            }
            tail_dy[k] = vdy;
            tail_xh[k] = hn::IfThenElseZero(tail_keep[k], hn::Mul(hn::Sub(vx, vm), vr));
          }
          if (swapped) {
            for (size_t k = 0; k < kVectors; k += 2) {
              SwapQuartersAt(tail_dy, k);
              SwapQuartersAt(tail_xh, k);
            }
          }
          for (size_t k = 0; k < kVectors; ++k) {
            step(col, k, tail_dy[k], tail_xh[k], seg_a[k], seg_axh[k], std::false_type(),
                 std::integral_constant<bool, kParams>());
          }
          if (kDx) fold(seg_a, seg_axh);
        }
        if (!kDx) continue;
        done[g] = RowPass1<TIn, TDx>{dy,
                                     x,
                                     dx,
                                     ahead_dy,
                                     ahead_x,
                                     mean,
                                     rstd,
                                     reduce_total(sum_a) * inv_n,
                                     reduce_total(sum_axh) * inv_n};
      }
      if (!kDx) continue;

      for (int64_t g = 0; g < rows; ++g) {
        // Pass 2: dx = rstd * (a - mean(a) - xhat * mean(a * xhat)).
        const RowPass1<TIn, TDx>& row = done[g];
        const TIn* const dy = row.dy;
        const TIn* const x = row.x;
        TDx* const dx = row.dx;
        const TIn* const ahead_dy = row.ahead_dy;
        const TIn* const ahead_x = row.ahead_x;
        float* const kept_a = kKeep ? kept + g * kept_stride : nullptr;
        float* const kept_xh = kKeep ? kept_a + kKeptColumns : nullptr;
        const VF vm = hn::Set(d, row.mean);
        const VF vr = hn::Set(d, row.rstd);
        const VF vc1 = hn::Set(d, row.c1);
        const VF vc2 = hn::Set(d, row.c2);
        auto dx_from = [&](VF va, VF xh) HWY_ATTR {
          return hn::Mul(vr, FusedNegMulAdd(d, xh, vc2, hn::Sub(va, vc1)));
        };
        auto dx_of = [&](VF vdy, VF vx, VF vw) HWY_ATTR {
          const VF xh = hn::Mul(hn::Sub(vx, vm), vr);
          return dx_from(hn::Mul(vdy, vw), xh);
        };
        auto row_pass2 = [&](auto stream) HWY_ATTR {
          constexpr bool kStream = decltype(stream)::value;
          // A block at a time, its pairs unrolled, so that the prefetch choice is made once a
          // block (made once a pair, its tests were 12 of the AVX2 loop's 49 instructions).
          const bool fetch_both = long_rows && !split_long_rows;
          const bool fetch_x = prefetch_rows || split_long_rows;
          for (int64_t col = 0; col < full_blocks * kBlock; col += kBlock) {
            if (fetch_both) {
              prefetch_block(ahead_dy + col);
              prefetch_block(ahead_x + col);
            } else if (fetch_x) {
              prefetch_block(ahead_x + col);
            }
            for (size_t k = 0; k < kVectors; k += 2) {
              const int64_t at = col + static_cast<int64_t>(k * lanes);
              VF lo, hi;
              if constexpr (kKeep) {
                lo = dx_from(hn::Load(d, kept_a + at), hn::Load(d, kept_xh + at));
                hi = dx_from(hn::Load(d, kept_a + at + lanes), hn::Load(d, kept_xh + at + lanes));
              } else {
                VF dy0, dy1, x0, x1;
                LoadPair<EIn>(d, dy + at, &dy0, &dy1);
                LoadPair<EIn>(d, x + at, &x0, &x1);
                const VF xh0 = hn::Mul(hn::Sub(x0, vm), vr);
                const VF xh1 = hn::Mul(hn::Sub(x1, vm), vr);
                lo = dx_from(hn::Mul(dy0, hn::Load(d, w + at)), xh0);
                hi = dx_from(hn::Mul(dy1, hn::Load(d, w + at + lanes)), xh1);
                if constexpr (kPartialsInPass2) {
                  add_partials(at, dy0, xh0);
                  add_partials(at + static_cast<int64_t>(lanes), dy1, xh1);
                }
              }
              StorePair<EDx, kStream, kSwapped>(d, lo, hi, native_bf16, dx + at);
            }
          }
        };
        // Streaming needs whole aligned stores of at least 16 bytes (StorePair's single store
        // for bfloat16 on AVX-512 and AVX2, 64 and 32 bytes, one store per vector otherwise).
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
        constexpr size_t kStoresPerPair = EDx == ElemType::kBFloat16 ? 1 : 2;
#else
        constexpr size_t kStoresPerPair = 2;
#endif
        const size_t store_bytes = 2 * lanes * sizeof(TDx) / kStoresPerPair;
        if (can_stream && store_bytes >= 16 && reinterpret_cast<uintptr_t>(dx) % store_bytes == 0) {
          row_pass2(std::true_type());
        } else {
          row_pass2(std::false_type());
        }
        if (tail_valid > 0) {
          // dx is elementwise given c1 and c2: whole vectors, then one vector ending at the row end
          // (it rewrites a few elements with the same values), all inside the row.
          int64_t at = full_blocks * kBlock;
          for (; at + static_cast<int64_t>(lanes) <= n; at += static_cast<int64_t>(lanes)) {
            StoreOne<EDx>(d,
                          dx_of(LoadF32<EIn>(d, dy + at), LoadF32<EIn>(d, x + at), tail_weight(at)),
                          native_bf16, dx + at);
          }
          if (at < n) {
            const int64_t back = n - static_cast<int64_t>(lanes);
            StoreOne<EDx>(
                d, dx_of(LoadF32<EIn>(d, dy + back), LoadF32<EIn>(d, x + back), tail_weight(back)),
                native_bf16, dx + back);
          }
        }
      }
    }
  };
  if (kept != nullptr) {
    run_rows(std::true_type());
  } else {
    run_rows(std::false_type());
  }
  if (can_stream) hwy::FlushStream();  // order the non-temporal stores before completion
}

// Whether ContiguousRows prefetches the rows ahead into L2 rather than L1: where the CPU asks for
// it (a.prefetch_l2, Zen 4; only the AVX-512 target, the one such CPUs run), for FLOAT rows and
// 16-bit rows over 2 KiB. Measured on Zen 4 (two threads, rows from memory, the two choices
// called in turn, medians of the ratio): FLOAT rows of 128 to 65536 columns 4-30 % faster into
// L2, (4445, 512) from L3 17 %; 16-bit rows over 2 KiB 7-14 % faster, rows of up to 2 KiB 3-17 %
// slower, so those stay with L1. Short rows (ShortRows) stay with L1 too (FLOAT (401408, 24) was
// 5 % slower into L2).
template <ElemType EIn>
bool RowsPrefetchIntoL2(const RowArgs& a) {
  constexpr int64_t kL1RowBytes = 2048;
  return a.prefetch_l2 &&
         (EIn == ElemType::kFloat32 || a.n * static_cast<int64_t>(sizeof(uint16_t)) > kL1RowBytes);
}

constexpr int kMaxGroup = 4;  // rows processed together (shares the partial-sum traffic)

// Numerics do not depend on the grouping: each row keeps its own sums, and the partials add the
// rows in row order exactly as one row at a time would.
template <ElemType EIn, ElemType EDx, bool kDx, bool kParams>
void Rows(const RowArgs& a, const RowPointers& p, int64_t row_begin, int64_t row_end, float* gw,
          float* gb) {
  if (a.rows_contiguous && a.n >= static_cast<int64_t>(hn::Lanes(DF()))) {
    // Pass 1 of ContiguousRows loads a pair of vectors at a time, except on targets with 16
    // vector registers for rows of up to 2 KiB when both the row sums and the parameter partials
    // are wanted: there, loading pairs ahead spilled the segment sums (paired runs on a Zen 3
    // core, one thread, rows in L2: BF16 rows of 1024 3-14 % and FLOAT rows of 1024 3-10 %
    // faster a vector at a time, rows of 128 and 384 within the noise; with dx alone pairs were
    // 11 % faster, and so were FLOAT rows of 8192 from L3, by 8-14 %). The choice is a template
    // argument: as a branch inside the kernel, rows of 128 and 384 were 8-14 % slower.
    constexpr bool kMaySplitPairs = HWY_TARGET != HWY_AVX3 && kDx && kParams;
    constexpr int64_t kPairLoadsAboveBytes = 2048;
    if (kMaySplitPairs &&
        a.n * static_cast<int64_t>(sizeof(typename Storage<EIn>::T)) <= kPairLoadsAboveBytes) {
      ContiguousRows<EIn, EDx, kDx, kParams, !kMaySplitPairs, false, false>(a, p, row_begin,
                                                                            row_end, gw, gb);
      return;
    }
    // FLOAT rows of at least kPartialsInPass2Columns add the full blocks' parameter partials in
    // pass 2, which loads the row again anyway (dx wanted; such rows are never kept): pass 1 then
    // only loads. The same operations on the same values (pass 2 computes xhat as pass 1 does),
    // and every column still adds the rows in row order: the same bits. Measured on Zen 4 (two
    // threads, rows from memory, the two choices called in turn, medians of the ratio): FLOAT
    // rows of 2048 to 65536 columns 6-13 % faster, rows of 768 to 1600 columns 5-14 % slower (and
    // FLOAT rows of 768 to 1024 in L2 14-20 %); BF16 rows of 2048 to 65536 columns between 6 %
    // faster and 5 % slower from run to run, so 16-bit rows keep them in pass 1. A template
    // argument: as a branch per block, shorter rows were 4-10 % slower in L2; as a third
    // instantiation of ContiguousRows' row loop, GCC stopped inlining the others, whose loops
    // then reloaded the captured pointers after every store (BF16 rows in L2 1.7x slower).
    constexpr bool kMayAddInPass2 = kDx && kParams && EIn == ElemType::kFloat32;
    constexpr int64_t kPartialsInPass2Columns = 2048;
    const bool in_pass2 = kMayAddInPass2 && a.n >= kPartialsInPass2Columns;
    if constexpr (HWY_TARGET == HWY_AVX3) {
      if (RowsPrefetchIntoL2<EIn>(a)) {
        if (in_pass2) {
          ContiguousRows<EIn, EDx, kDx, kParams, true, true, kMayAddInPass2>(a, p, row_begin,
                                                                             row_end, gw, gb);
        } else {
          ContiguousRows<EIn, EDx, kDx, kParams, true, true, false>(a, p, row_begin, row_end, gw,
                                                                    gb);
        }
        return;
      }
    }
    if (in_pass2) {
      ContiguousRows<EIn, EDx, kDx, kParams, true, false, kMayAddInPass2>(a, p, row_begin, row_end,
                                                                          gw, gb);
    } else {
      ContiguousRows<EIn, EDx, kDx, kParams, true, false, false>(a, p, row_begin, row_end, gw, gb);
    }
    return;
  }
  using TIn = typename Storage<EIn>::T;
  using TDx = typename Storage<EDx>::T;
  const DF d;
  constexpr size_t kMaxVectors = static_cast<size_t>(kBlock);
  constexpr size_t kVectors = static_cast<size_t>(kBlock) / kLanes;
  static_assert(kVectors <= kMaxVectors, "lanes");
  const size_t lanes = hn::Lanes(d);
  const int64_t n = a.n;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const int64_t full_blocks = n / kBlock;
  const float inv_n = 1.0f / static_cast<float>(n);
  const float* w = p.weight;
  const bool contiguous = a.rows_contiguous;
  // Groups of kMaxGroup rows while their dy and x stay in L2 until pass 2 reads them again,
  // single rows otherwise (and for the last rows of a chunk).
  const int64_t row_bytes = 2 * n * static_cast<int64_t>(sizeof(TIn));
  const bool grouped = kMaxGroup * row_bytes <= (int64_t{256} << 10);

  const TIn* dy_base = static_cast<const TIn*>(p.dy);
  const TIn* x_base = static_cast<const TIn*>(p.x);
  TDx* dx_base = static_cast<TDx*>(p.dx);
  const aclDataType mean_type = ToAclDataType(a.mean);
  const aclDataType rstd_type = ToAclDataType(a.rstd);

  // Staging for partial blocks and strided rows (raw elements, zero padded).
  HWY_ALIGN TIn sdy[kMaxGroup][kBlock];
  HWY_ALIGN TIn sx[kMaxGroup][kBlock];
  HWY_ALIGN TDx sdx[kBlock];
  int64_t dy_offsets[kBlock];
  int64_t x_offsets[kBlock];
  int64_t dx_offsets[kBlock];

  HWY_ALIGN float sum_a[kMaxGroup][kVectors * kLanes];
  HWY_ALIGN float sum_axh[kMaxGroup][kVectors * kLanes];

  const bool can_stream = kDx && a.stream_dx && lanes * sizeof(TDx) >= 16;

  const int64_t tail_valid = n - full_blocks * kBlock;
  cv::MaskArray<DF, kVectors> tail_keep;
  TailPermute tail[kVectors];
  MakeTailLanes(d, tail_valid, kVectors, tail_keep, tail);

  LayoutOdometer<3> lead(a.lead, false, row_begin);
  LayoutOdometer<2> stat(a.stat, false, row_begin);
  // One group of kG rows; kG is a compile-time constant so the per-row arrays live in registers.
  int64_t r0 = row_begin;
  auto process_group = [&](auto group_size) {
    constexpr int g = decltype(group_size)::value;
    const TIn* dy[kMaxGroup];
    const TIn* x[kMaxGroup];
    TDx* dx[kMaxGroup];
    float mu[kMaxGroup], rs[kMaxGroup];
    for (int j = 0; j < g; ++j, lead.Next(), stat.Next()) {
      mu[j] = LoadAsFloat(p.mean, mean_type, stat.offset(0));
      rs[j] = LoadAsFloat(p.rstd, rstd_type, stat.offset(1));
      dy[j] = dy_base + lead.offset(0);
      x[j] = x_base + lead.offset(1);
      dx[j] = kDx ? dx_base + lead.offset(2) : nullptr;
    }
    r0 += g;
    // The next group's rows: pass 2 (cache-resident work) prefetches them, so that memory keeps
    // streaming while this group's dx is computed.
    const TIn* next_dy[kMaxGroup];
    const TIn* next_x[kMaxGroup];
    const int next_g = contiguous ? static_cast<int>(std::min<int64_t>(g, row_end - r0)) : 0;
    if (next_g > 0) {
      LayoutOdometer<3> ahead = lead;
      for (int j = 0; j < next_g; ++j, ahead.Next()) {
        next_dy[j] = dy_base + ahead.offset(0);
        next_x[j] = x_base + ahead.offset(1);
      }
    }

    // Strided rows: the element offsets of one block (the same for every row of the group).
    auto walk = [&](LayoutOdometer<3>* trail, int64_t valid) {
      for (int64_t i = 0; i < valid; ++i, trail->Next()) {
        dy_offsets[i] = trail->offset(0);
        x_offsets[i] = trail->offset(1);
        dx_offsets[i] = trail->offset(2);
      }
    };
    // Gathers (strided rows) or copies (partial block) row j's block into the staging buffers.
    auto stage = [&](int j, int64_t col, int64_t valid) {
      if (contiguous) {
        std::memcpy(sdy[j], dy[j] + col, static_cast<size_t>(valid) * sizeof(TIn));
        std::memcpy(sx[j], x[j] + col, static_cast<size_t>(valid) * sizeof(TIn));
      } else {
        for (int64_t i = 0; i < valid; ++i) {
          sdy[j][i] = dy[j][dy_offsets[i]];
          sx[j][i] = x[j][x_offsets[i]];
        }
      }
      std::memset(sdy[j] + valid, 0, static_cast<size_t>(kBlock - valid) * sizeof(TIn));
      std::memset(sx[j] + valid, 0, static_cast<size_t>(kBlock - valid) * sizeof(TIn));
    };

    // Pass 1: row sums (for dx) and the partial parameter gradients.
    cv::VecArray2<DF, kMaxGroup, kVectors> seg_a, seg_axh;
    if (kDx) {
      for (int j = 0; j < g; ++j) {
        for (size_t k = 0; k < kVectors; ++k) {
          seg_a[j][k] = hn::Zero(d);
          seg_axh[j][k] = hn::Zero(d);
          hn::Store(hn::Zero(d), d, sum_a[j] + k * lanes);
          hn::Store(hn::Zero(d), d, sum_axh[j] + k * lanes);
        }
      }
    }
    cv::VecArray<DF, kMaxGroup> vmu, vrs;
    for (int j = 0; j < g; ++j) {
      vmu[j] = hn::Set(d, mu[j]);
      vrs[j] = hn::Set(d, rs[j]);
    }
    // One block of every row in the group; load(j, k) gives row j's vector k as float.
    auto pass1_block = [&](int64_t col, int64_t valid, auto load) {
      for (size_t k = 0; k < kVectors; ++k) {
        const size_t at = k * lanes;
        VF vw = hn::Zero(d), vgw = hn::Zero(d), vgb = hn::Zero(d);
        if (kDx) vw = hn::Load(d, w + col + at);
        if (kParams) {
          vgw = hn::Load(d, gw + col + at);
          vgb = hn::Load(d, gb + col + at);
        }
        for (int j = 0; j < g; ++j) {
          const VF vdy = load(j, k);
          VF xh = hn::Mul(hn::Sub(load(j + kMaxGroup, k), vmu[j]), vrs[j]);
          if (valid < kBlock) xh = hn::IfThenElseZero(tail_keep[k], xh);
          if (kDx) {
            const VF va = hn::Mul(vdy, vw);
            seg_a[j][k] = hn::Add(seg_a[j][k], va);
            seg_axh[j][k] = FusedMulAdd(d, va, xh, seg_axh[j][k]);
          }
          if (kParams) {
            vgw = FusedMulAdd(d, vdy, xh, vgw);
            vgb = hn::Add(vgb, vdy);
          }
        }
        if (kParams) {
          hn::Store(vgw, d, gw + col + at);
          hn::Store(vgb, d, gb + col + at);
        }
      }
    };
    {
      LayoutOdometer<3> trail(a.trail, false, 0);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t col = b * kBlock;
        const int64_t valid = std::min<int64_t>(kBlock, n - col);
        // load(j, k): j < kMaxGroup reads dy of row j, j >= kMaxGroup reads x of row j - kMaxGroup.
        if (contiguous && valid == kBlock) {
          pass1_block(col, valid, [&](int j, size_t k) {
            const TIn* base = j < kMaxGroup ? dy[j] : x[j - kMaxGroup];
            return LoadF32<EIn>(d, base + col + k * lanes);
          });
        } else if (contiguous && n >= static_cast<int64_t>(lanes)) {
          // Partial block of a row at least one vector long: no staging.
          pass1_block(col, valid, [&](int j, size_t k) {
            const TIn* base = j < kMaxGroup ? dy[j] : x[j - kMaxGroup];
            const int64_t left = valid - static_cast<int64_t>(k * lanes);
            if (left >= static_cast<int64_t>(lanes)) return LoadF32<EIn>(d, base + col + k * lanes);
            if (left <= 0) return hn::Zero(d);
            return LoadTail<EIn>(d, base + n, tail[k]);
          });
        } else {
          if (!contiguous) walk(&trail, valid);
          for (int j = 0; j < g; ++j) stage(j, col, valid);
          pass1_block(col, valid, [&](int j, size_t k) {
            const TIn* base = j < kMaxGroup ? sdy[j] : sx[j - kMaxGroup];
            return LoadF32<EIn>(d, base + k * lanes);
          });
        }
        if (kDx && ((b + 1) % kSegmentBlocks == 0 || b + 1 == blocks)) {
          for (int j = 0; j < g; ++j) {
            for (size_t k = 0; k < kVectors; ++k) {
              float* pa = sum_a[j] + k * lanes;
              float* pax = sum_axh[j] + k * lanes;
              hn::Store(hn::Add(hn::Load(d, pa), seg_a[j][k]), d, pa);
              hn::Store(hn::Add(hn::Load(d, pax), seg_axh[j][k]), d, pax);
              seg_a[j][k] = hn::Zero(d);
              seg_axh[j][k] = hn::Zero(d);
            }
          }
        }
      }
    }
    if (!kDx) return;

    // Pass 2, row by row: dx = rstd * (a - mean(a) - xhat * mean(a * xhat)); the rows are in
    // cache now.
    for (int j = 0; j < g; ++j) {
      cv::VecArray<DF, kVectors> acc;
      for (size_t k = 0; k < kVectors; ++k) acc[k] = hn::Load(d, sum_a[j] + k * lanes);
      const float c1 = ReduceCanonical(d, acc, kVectors) * inv_n;
      for (size_t k = 0; k < kVectors; ++k) acc[k] = hn::Load(d, sum_axh[j] + k * lanes);
      const float c2 = ReduceCanonical(d, acc, kVectors) * inv_n;
      const VF vc1 = hn::Set(d, c1);
      const VF vc2 = hn::Set(d, c2);
      const VF vm = vmu[j];
      const VF vr = vrs[j];
      auto pass2_block = [&](int64_t col, auto load_dy, auto load_x, auto store) {
        for (size_t k = 0; k < kVectors; ++k) {
          const size_t at = k * lanes;
          const VF xh = hn::Mul(hn::Sub(load_x(k), vm), vr);
          const VF va = hn::Mul(load_dy(k), hn::Load(d, w + col + at));
          store(k, hn::Mul(vr, FusedNegMulAdd(d, xh, vc2, hn::Sub(va, vc1))));
        }
      };
      // One vector of dx at column `at` (any alignment) from the given element pointers.
      auto pass2_vector = [&](int64_t at, const TIn* pdy, const TIn* px, TDx* pdx) {
        const VF xh = hn::Mul(hn::Sub(LoadF32<EIn>(d, px), vm), vr);
        const VF va = hn::Mul(LoadF32<EIn>(d, pdy), hn::LoadU(d, w + at));
        StoreF32<EDx>(d, hn::Mul(vr, FusedNegMulAdd(d, xh, vc2, hn::Sub(va, vc1))), pdx);
      };
      // Streaming needs whole stored vectors of at least 16 bytes, aligned.
      const bool stream_row =
          can_stream && (reinterpret_cast<uintptr_t>(dx[j]) % (lanes * sizeof(TDx))) == 0;
      LayoutOdometer<3> trail(a.trail, false, 0);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t col = b * kBlock;
        const int64_t valid = std::min<int64_t>(kBlock, n - col);
        if (j < next_g) {
          for (size_t line = 0; line < kBlock * sizeof(TIn); line += 64) {
            hwy::Prefetch(reinterpret_cast<const char*>(next_dy[j] + col) + line);
            hwy::Prefetch(reinterpret_cast<const char*>(next_x[j] + col) + line);
          }
        }
        if (contiguous && b < full_blocks && stream_row) {
          pass2_block(
              col, [&](size_t k) { return LoadF32<EIn>(d, dy[j] + col + k * lanes); },
              [&](size_t k) { return LoadF32<EIn>(d, x[j] + col + k * lanes); },
              [&](size_t k, VF v) { StreamF32<EDx>(d, v, dx[j] + col + k * lanes); });
        } else if (contiguous && b < full_blocks) {
          pass2_block(
              col, [&](size_t k) { return LoadF32<EIn>(d, dy[j] + col + k * lanes); },
              [&](size_t k) { return LoadF32<EIn>(d, x[j] + col + k * lanes); },
              [&](size_t k, VF v) { StoreF32<EDx>(d, v, dx[j] + col + k * lanes); });
        } else if (contiguous && n >= static_cast<int64_t>(lanes)) {
          // dx is elementwise given c1 and c2: whole vectors, then one vector ending at the row
          // end (it rewrites a few elements with the same values), all inside the row.
          int64_t at = col;
          for (; at + static_cast<int64_t>(lanes) <= n; at += static_cast<int64_t>(lanes)) {
            pass2_vector(at, dy[j] + at, x[j] + at, dx[j] + at);
          }
          if (at < n) {
            const int64_t back = n - static_cast<int64_t>(lanes);
            pass2_vector(back, dy[j] + back, x[j] + back, dx[j] + back);
          }
        } else {
          // A contiguous row's partial block is still staged from pass 1 (its last block).
          if (!contiguous) {
            walk(&trail, valid);
            stage(j, col, valid);
          }
          pass2_block(
              col, [&](size_t k) { return LoadF32<EIn>(d, sdy[j] + k * lanes); },
              [&](size_t k) { return LoadF32<EIn>(d, sx[j] + k * lanes); },
              [&](size_t k, VF v) { StoreF32<EDx>(d, v, sdx + k * lanes); });
          if (contiguous) {
            std::memcpy(dx[j] + col, sdx, static_cast<size_t>(valid) * sizeof(TDx));
          } else {
            for (int64_t i = 0; i < valid; ++i) dx[j][dx_offsets[i]] = sdx[i];
          }
        }
      }
    }
  };
  // process_group advances r0 (captured by reference).
  while (r0 < row_end) {  // NOLINT(bugprone-infinite-loop)
    const int64_t left = row_end - r0;
    if (grouped && left >= kMaxGroup) {
      process_group(std::integral_constant<int, kMaxGroup>());
    } else {
      process_group(std::integral_constant<int, 1>());
    }
  }
  if (can_stream) hwy::FlushStream();  // order the non-temporal stores before completion
}

template <ElemType EIn>
void DispatchOut(const RowArgs& a, const RowPointers& p, int64_t r0, int64_t r1, float* gw,
                 float* gb) {
  if (!a.want_dx) {
    Rows<EIn, ElemType::kFloat32, false, true>(a, p, r0, r1, gw, gb);
    return;
  }
  // The checker admits the three float types only; FLOAT is the default.
  switch (a.dx) {
    case ElemType::kFloat16:
      return a.want_params ? Rows<EIn, ElemType::kFloat16, true, true>(a, p, r0, r1, gw, gb)
                           : Rows<EIn, ElemType::kFloat16, true, false>(a, p, r0, r1, gw, gb);
    case ElemType::kBFloat16:
      return a.want_params ? Rows<EIn, ElemType::kBFloat16, true, true>(a, p, r0, r1, gw, gb)
                           : Rows<EIn, ElemType::kBFloat16, true, false>(a, p, r0, r1, gw, gb);
    default:
      return a.want_params ? Rows<EIn, ElemType::kFloat32, true, true>(a, p, r0, r1, gw, gb)
                           : Rows<EIn, ElemType::kFloat32, true, false>(a, p, r0, r1, gw, gb);
  }
}

void ProcessRowsImpl(const RowArgs& a, const RowPointers& p, int64_t r0, int64_t r1, float* gw,
                     float* gb) {
  switch (a.in) {
    case ElemType::kFloat16:
      return DispatchOut<ElemType::kFloat16>(a, p, r0, r1, gw, gb);
    case ElemType::kBFloat16:
      return DispatchOut<ElemType::kBFloat16>(a, p, r0, r1, gw, gb);
    default:
      return DispatchOut<ElemType::kFloat32>(a, p, r0, r1, gw, gb);
  }
}

// The order ContiguousRows uses (see kSwappedTarget): it is reached for contiguous rows of at
// least a vector, and has full blocks from kBlock elements on.
bool RowsSwapColumnsImpl(const RowArgs& a) {
  return HWY_TARGET == HWY_AVX2 && a.in == ElemType::kBFloat16 && a.rows_contiguous &&
         a.n >= kBlock;
}

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::layer_norm_backward::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::layer_norm_backward::cpu {

HWY_EXPORT(ProcessRowsImpl);
HWY_EXPORT(RowsSwapColumnsImpl);

bool RowsSwapColumns(const openaclnn::cpu::KernelTarget& target, const RowArgs& args) {
  return OPENACLNN_DISPATCH(RowsSwapColumnsImpl, target)(args);
}

void ProcessRows(const openaclnn::cpu::KernelTarget& target, const RowArgs& args,
                 const RowPointers& ptrs, int64_t row_begin, int64_t row_end, float* gw_part,
                 float* gb_part) {
  OPENACLNN_DISPATCH(ProcessRowsImpl, target)(args, ptrs, row_begin, row_end, gw_part, gb_part);
}

}  // namespace openaclnn::layer_norm_backward::cpu
#endif  // HWY_ONCE
