#include "ops/gelu/cpu/activation_batch.h"

#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/gelu/cpu/activation_batch.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/exp-inl.h"  // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
// No floating-point trap is ever observed here, so the compiler may if-convert the selects below
// into vector blends (the results are the same IEEE operations either way). GCC only: clang
// if-converts them without being told.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
namespace openaclnn::activation::cpu::HWY_NAMESPACE {
using ::openaclnn::simd::HWY_NAMESPACE::ExpF;

// The fp32 batch path: branch-free exp and erfc written so that the compiler vectorises the loops
// over a block (libm's scalar calls would dominate the time). Every element is computed by the
// same operations whether it lands in a vector or in the scalar tail, so the bits do not depend
// on the block boundaries.

// erfc(z) for z >= 0 with a relative error of about 1.2e-7 (plus fp32 rounding): the Chebyshev
// fit of Numerical Recipes (Press et al., "erfcc"), t e^(-z^2 + P(t)) with t = 1 / (1 + z/2).
HWY_INLINE float ErfcPositive(float z) {
  const float t = 1.f / (1.f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  return t * ExpF(-z * z + p);
}

// Phi(x) = erfc(-x / sqrt 2) / 2, accurate relative to its value on both sides.
HWY_INLINE float NormalCdf(float x) {
  const float z = x * static_cast<float>(kSqrtHalf);
  const float e = ErfcPositive(z < 0 ? -z : z);
  return z < 0 ? 0.5f * e : 1.f - 0.5f * e;
}

// tanh(u) = sign(u) (1 - 2 / (e^(2|u|) + 1)); near 0 its absolute error is about 1e-7, which
// the callers only add to 1.
HWY_INLINE float TanhF(float u) {
  const float a = u < 0 ? -u : u;
  const float t = 1.f - 2.f / (ExpF(2.f * a) + 1.f);
  return u < 0 ? -t : t;
}

void BatchF32Impl(Kind kind, const float* x0, const float* x1, const float* x2, float* y0,
                  float* y1, int n) {
  const float k = static_cast<float>(kSqrt2OverPi), c = static_cast<float>(kTanhCubic);
  switch (kind) {
    case Kind::kGeluErf:
      for (int i = 0; i < n; ++i) y0[i] = x0[i] * NormalCdf(x0[i]);
      break;
    case Kind::kGeluTanh:
      for (int i = 0; i < n; ++i) {
        const float x = x0[i];
        y0[i] = 0.5f * x * (1.f + TanhF(k * (x + c * x * x * x)));
      }
      break;
    case Kind::kGeluGradErf:
      for (int i = 0; i < n; ++i) {
        const float x = x1[i];
        const float pdf = static_cast<float>(kInvSqrt2Pi) * ExpF(-0.5f * x * x);
        y0[i] = x0[i] * (NormalCdf(x) + x * pdf);
      }
      break;
    case Kind::kGeluGradTanh:
      for (int i = 0; i < n; ++i) {
        const float x = x1[i], x2v = x * x;
        const float t = TanhF(k * (x + c * x2v * x));
        const float d = k * (1.f + 3.f * c * x2v);
        y0[i] = x0[i] * (0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * d);
      }
      break;
    case Kind::kGlu:
      for (int i = 0; i < n; ++i) y0[i] = x0[i] / (1.f + ExpF(-x1[i]));
      break;
    case Kind::kGluGrad:
      for (int i = 0; i < n; ++i) {
        const float a = x1[i], s = 1.f / (1.f + ExpF(-x2[i]));
        const float da = x0[i] * s;
        y0[i] = da;
        y1[i] = da * (a - a * s);
      }
      break;
  }
}

}  // namespace openaclnn::activation::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::activation::cpu {

HWY_EXPORT(BatchF32Impl);

void BatchF32(const openaclnn::cpu::KernelTarget& target, Kind kind, const float* x0,
              const float* x1, const float* x2, float* y0, float* y1, int n) {
  OPENACLNN_DISPATCH(BatchF32Impl, target)(kind, x0, x1, x2, y0, y1, n);
}

}  // namespace openaclnn::activation::cpu
#endif  // HWY_ONCE
