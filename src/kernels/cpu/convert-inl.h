// Vector conversions between float and the 16-bit storage formats, for the Highway kernels of
// every operator. Each reproduces the scalar conversion of api/dtype.h bit for bit on every input
// (tests/ops/conv_tbc_backward/rows_test.cpp checks all 65536 16-bit patterns and many float
// patterns on every target), so a vector body and its scalar tail always agree.
//
// Highway's per-target include guard: a kernel file includes this after "hwy/highway.h", once per
// target that foreach_target.h compiles.

#if defined(OPENACLNN_KERNELS_CPU_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_KERNELS_CPU_CONVERT_INL_H_
#undef OPENACLNN_KERNELS_CPU_CONVERT_INL_H_
#else
#define OPENACLNN_KERNELS_CPU_CONVERT_INL_H_
#endif

#include <cstdint>

#include "api/elem_type.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes of 16-bit storage widened to 32-bit lanes, and back (every lane holds a value below 2^16,
// so the saturating demotion is exact).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> LoadU16AsU32(DF, const uint16_t* p) {
  const hn::RebindToUnsigned<DF> du;
  const hn::Rebind<uint16_t, DF> du16;
  return hn::PromoteTo(du, hn::LoadU(du16, p));
}

template <class DF>
HWY_INLINE void StoreU32AsU16(DF, hn::Vec<hn::RebindToUnsigned<DF>> bits, uint16_t* p) {
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint16_t, DF> du16;
  hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di, bits)), du16, p);
}

// binary16 bits -> float, exact: sign | rebased exponent | mantissa, where the exact multiply by
// 2^112 rebases normals and turns subnormals into the right float normals; infinity and NaN keep
// their payload (a signalling NaN stays signalling, as in HalfToFloat).
template <class DF>
HWY_INLINE hn::Vec<DF> HalfBitsToF32(DF df, hn::Vec<hn::RebindToUnsigned<DF>> h) {
  const hn::RebindToUnsigned<DF> du;
  const auto magnitude = hn::ShiftLeft<13>(hn::And(h, hn::Set(du, 0x7fffu)));
  const auto finite = hn::Mul(hn::BitCast(df, magnitude), hn::Set(df, 0x1.0p112f));
  const auto special = hn::Eq(hn::And(h, hn::Set(du, 0x7c00u)), hn::Set(du, 0x7c00u));
  const auto inf_nan =
      hn::Or(hn::And(magnitude, hn::Set(du, 0x007fe000u)), hn::Set(du, 0x7f800000u));
  const auto value = hn::IfThenElse(special, inf_nan, hn::BitCast(du, finite));
  return hn::BitCast(df, hn::Or(value, hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)))));
}

// float -> binary16 bits, round to nearest even: NaN quiet with its top payload bits, overflow to
// infinity, subnormal results rounded by the float unit (|v| * 2^24 rounded to an integer),
// normal results rebased and rounded at bit 13.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F32ToHalfBits(DF df, hn::Vec<DF> f) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto u = hn::BitCast(du, f);
  const auto sign = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 0x8000u));
  const auto abs = hn::And(u, hn::Set(du, 0x7fffffffu));
  const auto abs_i = hn::BitCast(di, abs);  // non-negative: signed compares are safe
  auto v = hn::Sub(abs, hn::Set(du, 0x38000000u));
  v = hn::Add(v, hn::Add(hn::Set(du, 0xfffu), hn::And(hn::ShiftRight<13>(v), hn::Set(du, 1u))));
  auto r = hn::ShiftRight<13>(v);
  const auto scaled = hn::Mul(hn::BitCast(df, abs), hn::Set(df, 16777216.0f));
  const auto sub = hn::BitCast(du, hn::ConvertTo(di, hn::Round(scaled)));
  r = hn::IfThenElse(hn::RebindMask(du, hn::Lt(abs_i, hn::Set(di, 0x38800000))), sub, r);
  r = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x477fefff))),
                     hn::Set(du, 0x7c00u), r);
  const auto nan =
      hn::Or(hn::Set(du, 0x7e00u), hn::And(hn::ShiftRight<13>(abs), hn::Set(du, 0x3ffu)));
  r = hn::IfThenElse(hn::RebindMask(du, hn::Gt(abs_i, hn::Set(di, 0x7f800000))), nan, r);
  return hn::Or(r, sign);
}

// The integer conversions below on 16-bit lanes, called out of line by the F16C paths for the
// rare vectors holding a NaN, so that the loops using those paths stay small.
template <class DF>
HWY_NOINLINE hn::Vec<DF> HalvesToF32ByInteger(DF df, hn::Vec<hn::Rebind<uint16_t, DF>> h) {
  return HalfBitsToF32(df, hn::PromoteTo(hn::RebindToUnsigned<DF>(), h));
}
template <class DF>
HWY_NOINLINE hn::Vec<hn::Rebind<uint16_t, DF>> F32ToHalvesByInteger(DF df, hn::Vec<DF> f) {
  const hn::RebindToSigned<DF> di;
  return hn::DemoteTo(hn::Rebind<uint16_t, DF>(), hn::BitCast(di, F32ToHalfBits(df, f)));
}

// binary16 lanes -> float, exact: HalfBitsToF32's values. Where the target has F16C (AVX2 and
// AVX-512 with full vectors), one conversion instruction, whose result is the same for every
// input but a signalling NaN (which it may quieten): a vector holding a NaN takes HalfBitsToF32.
template <class DF>
HWY_INLINE hn::Vec<DF> HalvesToF32(DF df, hn::Vec<hn::Rebind<uint16_t, DF>> h) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (hn::MaxLanes(DF()) == 16) {
    const __m512 f = _mm512_cvtph_ps(h.raw);
    if (_mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q) == 0) return hn::Vec<DF>{f};
    return HalvesToF32ByInteger(df, h);
  }
#elif HWY_TARGET == HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  if constexpr (hn::MaxLanes(DF()) == 8) {
    const __m256 f = _mm256_cvtph_ps(h.raw);
    if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) == 0) return hn::Vec<DF>{f};
    return HalvesToF32ByInteger(df, h);
  }
#endif
  return HalfBitsToF32(df, hn::PromoteTo(hn::RebindToUnsigned<DF>(), h));
}

// float -> binary16 lanes: F32ToHalfBits' bits. With F16C, one conversion rounding to nearest
// even, the same bits for every input but NaN: a vector holding a NaN takes F32ToHalfBits.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F32ToHalves(DF df, hn::Vec<DF> f) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (hn::MaxLanes(DF()) == 16) {
    if (_mm512_cmp_ps_mask(f.raw, f.raw, _CMP_UNORD_Q) == 0) {
      return hn::Vec<hn::Rebind<uint16_t, DF>>{_mm512_cvtps_ph(f.raw, _MM_FROUND_TO_NEAREST_INT)};
    }
    return F32ToHalvesByInteger(df, f);
  }
#elif HWY_TARGET == HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  if constexpr (hn::MaxLanes(DF()) == 8) {
    if (_mm256_movemask_ps(_mm256_cmp_ps(f.raw, f.raw, _CMP_UNORD_Q)) == 0) {
      return hn::Vec<hn::Rebind<uint16_t, DF>>{_mm256_cvtps_ph(f.raw, _MM_FROUND_TO_NEAREST_INT)};
    }
    return F32ToHalvesByInteger(df, f);
  }
#endif
  const hn::RebindToSigned<DF> di;
  return hn::DemoteTo(hn::Rebind<uint16_t, DF>(), hn::BitCast(di, F32ToHalfBits(df, f)));
}

// bfloat16 bits -> float: exact.
template <class DF>
HWY_INLINE hn::Vec<DF> Bf16BitsToF32(DF df, hn::Vec<hn::RebindToUnsigned<DF>> h) {
  return hn::BitCast(df, hn::ShiftLeft<16>(h));
}

// float -> bfloat16 bits, round to nearest even; NaN made quiet (| 0x40 after the shift).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F32ToBf16Bits(DF, hn::Vec<DF> f) {
  const hn::RebindToUnsigned<DF> du;
  const auto u = hn::BitCast(du, f);
  const auto rounded = hn::ShiftRight<16>(
      hn::Add(u, hn::Add(hn::Set(du, 0x7fffu), hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u)))));
  const auto nan = hn::Or(hn::ShiftRight<16>(u), hn::Set(du, 0x40u));
  return hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(f)), nan, rounded);
}

// Lanes i .. i + Lanes(df) - 1 of a FLOAT, FLOAT16 or BFLOAT16 buffer, widened exactly to float.
template <::openaclnn::ElemType E, class DF>
HWY_INLINE hn::Vec<DF> LoadFloatLanes(DF df, const void* p, int64_t i = 0) {
  using ::openaclnn::ElemType;
  if constexpr (E == ElemType::kFloat32) {
    return hn::LoadU(df, static_cast<const float*>(p) + i);
  } else if constexpr (E == ElemType::kFloat16) {
    return HalvesToF32(df,
                       hn::LoadU(hn::Rebind<uint16_t, DF>(), static_cast<const uint16_t*>(p) + i));
  } else {
    return Bf16BitsToF32(df, LoadU16AsU32(df, static_cast<const uint16_t*>(p) + i));
  }
}

// Stores float lanes into lanes i .. of a FLOAT, FLOAT16 or BFLOAT16 buffer, each rounded once
// (the scalar conversions' bits).
template <::openaclnn::ElemType E, class DF>
HWY_INLINE void StoreFloatLanes(DF df, hn::Vec<DF> v, void* p, int64_t i = 0) {
  using ::openaclnn::ElemType;
  if constexpr (E == ElemType::kFloat32) {
    hn::StoreU(v, df, static_cast<float*>(p) + i);
  } else if constexpr (E == ElemType::kFloat16) {
    hn::StoreU(F32ToHalves(df, v), hn::Rebind<uint16_t, DF>(), static_cast<uint16_t*>(p) + i);
  } else {
    StoreU32AsU16(df, F32ToBf16Bits(df, v), static_cast<uint16_t*>(p) + i);
  }
}

// n contiguous elements of a FLOAT, FLOAT16 or BFLOAT16 buffer widened to float (whole vectors,
// then one element at a time through a vector of one lane's worth: the same conversion).
template <::openaclnn::ElemType E>
HWY_INLINE void LoadFloatRunLanes(const void* p, int64_t n, float* dst) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(LoadFloatLanes<E>(df, p, i), df, dst + i);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) hn::StoreU(LoadFloatLanes<E>(d1, p, i), d1, dst + i);
}

// n floats stored into a FLOAT, FLOAT16 or BFLOAT16 buffer, each rounded once.
template <::openaclnn::ElemType E>
HWY_INLINE void StoreFloatRunLanes(const float* src, int64_t n, void* p) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) StoreFloatLanes<E>(df, hn::LoadU(df, src + i), p, i);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) StoreFloatLanes<E>(d1, hn::LoadU(d1, src + i), p, i);
}

// The same for a type chosen at run time (kFloat32, kFloat16 or kBFloat16).
HWY_INLINE void LoadFloatRunOf(::openaclnn::ElemType type, const void* p, int64_t n, float* dst) {
  using ::openaclnn::ElemType;
  if (type == ElemType::kFloat16) return LoadFloatRunLanes<ElemType::kFloat16>(p, n, dst);
  if (type == ElemType::kBFloat16) return LoadFloatRunLanes<ElemType::kBFloat16>(p, n, dst);
  LoadFloatRunLanes<ElemType::kFloat32>(p, n, dst);
}

HWY_INLINE void StoreFloatRunOf(::openaclnn::ElemType type, const float* src, int64_t n, void* p) {
  using ::openaclnn::ElemType;
  if (type == ElemType::kFloat16) return StoreFloatRunLanes<ElemType::kFloat16>(src, n, p);
  if (type == ElemType::kBFloat16) return StoreFloatRunLanes<ElemType::kBFloat16>(src, n, p);
  StoreFloatRunLanes<ElemType::kFloat32>(src, n, p);
}

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
