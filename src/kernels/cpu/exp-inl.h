// A fp32 e^x written so that the compiler vectorises loops over it under every SIMD target, and
// every element gets the same IEEE operations whether it lands in a vector or in a scalar tail
// (no FMA: the library builds with -ffp-contract=off), so the bits depend neither on the target
// nor on where a block ends. For the kernels that need e^x inside plain loops (GELU/GLU blocks,
// Softmax rows).
//
// Highway's per-target include guard: a kernel file includes this after "hwy/highway.h", once per
// target that foreach_target.h compiles.

#if defined(OPENACLNN_KERNELS_CPU_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_KERNELS_CPU_EXP_INL_H_
#undef OPENACLNN_KERNELS_CPU_EXP_INL_H_
#else
#define OPENACLNN_KERNELS_CPU_EXP_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
// No floating-point trap is ever observed by these kernels, so the compiler may if-convert the
// clamps below into vector blends (the same IEEE operations either way). GCC only: clang
// if-converts them without being told. Applies to the including file's code after this point.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
namespace openaclnn::simd {
namespace HWY_NAMESPACE {

// e^x for x in fp32: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two for an exact n ln2), a
// degree-6 Taylor-Horner polynomial for e^r (error below 1 ulp on that interval), 2^n from the
// exponent bits. x is clamped to [-87, 88]: below, the result is about 1.6e-38 instead of
// smaller (callers that need 0 there select it), above, 1.65e38 instead of inf.
HWY_INLINE float ExpF(float x) {
  x = x < -87.f ? -87.f : (x > 88.f ? 88.f : x);
  // Round to nearest by adding and removing 1.5 * 2^23 (vectorises without SSE4.1's round).
  const float n = (x * 1.44269504088896341f + 12582912.f) - 12582912.f;
  const float r = (x - n * 0.693145751953125f) - n * 1.428606765330187045e-6f;
  float p = 1.f / 720;
  p = p * r + 1.f / 120;
  p = p * r + 1.f / 24;
  p = p * r + 1.f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  // A NaN x stays NaN through p; its scale uses n = 0, so neither the conversion nor the shift is
  // undefined (x86 and Arm both gave a scale of 1 for NaN before: the same bits).
  const float n_finite = n == n ? n : 0.f;
  const int32_t bits = (static_cast<int32_t>(n_finite) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  return p * scale;
}

// e^x, and exactly 0 below -87 (where e^x < 1.7e-38): for the softmax family, where x = a - max
// <= 0 and -inf entries or -1e9 masks must give 0, as in the float64 reference.
HWY_INLINE float ExpOrZero(float x) {
  const float e = ExpF(x);
  return x < -87.f ? 0.f : e;
}

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
