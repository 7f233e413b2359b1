#include "ops/gelu/cpu/activation_batch.h"

#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/gelu/cpu/activation_batch.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/convert-inl.h"  // NOLINT(build/include_order)
#include "kernels/cpu/exp-inl.h"      // NOLINT(build/include_order)

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

// Phi(x) = erfc(-x / sqrt 2) / 2 with e^(-x^2 / 2) (the Gaussian factor the gradient needs too):
// erfc(z) for z = |x| / sqrt 2 >= 0 by Abramowitz and Stegun 7.1.26, t e^(-z^2) P(t) with
// t = 1 / (1 + p z) and a degree-5 P, absolute error below 1.5e-7; on the negative side Phi is
// erfc / 2 itself (no 1 - erf cancellation), on the positive side 1 - erfc / 2.
HWY_INLINE float NormalCdf(float x, float* gauss) {
  const float z = (x < 0 ? -x : x) * static_cast<float>(kSqrtHalf);
  const float t = 1.f / (1.f + 0.3275911f * z);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  *gauss = ExpF(-z * z);
  const float half_erfc = 0.5f * (t * p * *gauss);
  return x < 0 ? half_erfc : 1.f - half_erfc;
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
      for (int i = 0; i < n; ++i) {
        float gauss;
        y0[i] = x0[i] * NormalCdf(x0[i], &gauss);
      }
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
        float gauss;
        const float cdf = NormalCdf(x, &gauss);
        y0[i] = x0[i] * (cdf + x * (static_cast<float>(kInvSqrt2Pi) * gauss));
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
      // a times the sigmoid (not a / (1 + e^-b)): a 16-bit b's table holds the sigmoid.
      for (int i = 0; i < n; ++i) y0[i] = x0[i] * (1.f / (1.f + ExpF(-x1[i])));
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

namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// lanes_at(d, i) on whole vectors of floats from i = 0, then lanes_at on one lane at a time for
// the rest of [0, n): every element goes through the same operations.
template <class F>
HWY_INLINE void VectorsThenLanes(int n, const F& lanes_at) {
  const hn::ScalableTag<float> d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  int i = 0;
  for (; i + lanes <= n; i += lanes) lanes_at(d, i);
  for (; i < n; ++i) lanes_at(hn::CappedTag<float, 1>(), i);
}

// The table entries that lanes i .. of the 16-bit values at `bits` index.
template <class D>
HWY_INLINE hn::Vec<D> Entries(D d, const float* table, const uint16_t* bits, int i) {
  const hn::RebindToSigned<D> di;
  return hn::GatherIndex(d, table, hn::BitCast(di, cv::LoadU16AsU32(d, bits + i)));
}

// y[i] = x[i] * table[bits[i]] for i < n, x and y of type E.
template <ElemType E>
void TableProduct(const void* x, const uint16_t* bits, const float* table, void* y, int n) {
  VectorsThenLanes(n, [&](auto d, int i) {
    const auto v = hn::Mul(cv::LoadFloatLanes<E>(d, x, i), Entries(d, table, bits, i));
    cv::StoreFloatLanes<E>(d, v, y, i);
  });
}

// GluBackward with s = table[bits[i]] (the sigmoid of b): da = g s, db = da (a - a s), the
// operations of BatchF32's kGluGrad, for i < n; g, a, da and db of type E.
template <ElemType E>
void GluGradTable(const void* g, const void* a, const uint16_t* bits, const float* table, void* da,
                  void* db, int n) {
  VectorsThenLanes(n, [&](auto d, int i) {
    const auto s = Entries(d, table, bits, i);
    const auto av = cv::LoadFloatLanes<E>(d, a, i);
    const auto dav = hn::Mul(cv::LoadFloatLanes<E>(d, g, i), s);
    const auto dbv = hn::Mul(dav, hn::Sub(av, hn::Mul(av, s)));
    cv::StoreFloatLanes<E>(d, dav, da, i);
    cv::StoreFloatLanes<E>(d, dbv, db, i);
  });
}

void GluGradTableImpl(ElemType type, const void* g, const void* a, const uint16_t* bits,
                      const float* table, void* da, void* db, int n) {
  if (type == ElemType::kFloat16) {
    return GluGradTable<ElemType::kFloat16>(g, a, bits, table, da, db, n);
  }
  GluGradTable<ElemType::kBFloat16>(g, a, bits, table, da, db, n);
}

void TableProductImpl(ElemType type, const void* x, const uint16_t* bits, const float* table,
                      void* y, int n) {
  switch (type) {
    case ElemType::kFloat16:
      return TableProduct<ElemType::kFloat16>(x, bits, table, y, n);
    case ElemType::kBFloat16:
      return TableProduct<ElemType::kBFloat16>(x, bits, table, y, n);
    default:
      return TableProduct<ElemType::kFloat32>(x, bits, table, y, n);
  }
}

}  // namespace openaclnn::activation::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::activation::cpu {

HWY_EXPORT(BatchF32Impl);
HWY_EXPORT(TableProductImpl);
HWY_EXPORT(GluGradTableImpl);

void GluGradTable(const openaclnn::cpu::KernelTarget& target, ElemType type, const void* g,
                  const void* a, const uint16_t* bits, const float* table, void* da, void* db,
                  int n) {
  OPENACLNN_DISPATCH(GluGradTableImpl, target)(type, g, a, bits, table, da, db, n);
}

void TableProduct(const openaclnn::cpu::KernelTarget& target, ElemType type, const void* x,
                  const uint16_t* bits, const float* table, void* y, int n) {
  OPENACLNN_DISPATCH(TableProductImpl, target)(type, x, bits, table, y, n);
}

void BatchF32(const openaclnn::cpu::KernelTarget& target, Kind kind, const float* x0,
              const float* x1, const float* x2, float* y0, float* y1, int n) {
  OPENACLNN_DISPATCH(BatchF32Impl, target)(kind, x0, x1, x2, y0, y1, n);
}

}  // namespace openaclnn::activation::cpu
#endif  // HWY_ONCE
