#include "ops/softmax/cpu/row_kernels.h"

#include <cmath>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/softmax/cpu/row_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/convert-inl.h"  // NOLINT(build/include_order)
#include "kernels/cpu/exp-inl.h"      // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
namespace openaclnn::softmax::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

HWY_INLINE float RowMax(const float* a, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto m = hn::Set(d, -INFINITY);
  bool nan = false;
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, a + i);
    nan |= !hn::AllFalse(d, hn::IsNaN(v));
    m = hn::Max(m, v);
  }
  float r = hn::GetLane(hn::MaxOfLanes(d, m));
  for (; i < n; ++i) {
    nan |= std::isnan(a[i]);
    r = a[i] > r ? a[i] : r;
  }
  return nan ? NAN : r;
}

// The partial sums (kExpSumBlock, kExpSumPartials in row_kernels.h) do not depend on the vector
// width; with the exponential below this gives the same bits on every SIMD target.
constexpr int64_t kBlock = kExpSumBlock;
constexpr int64_t kPartials = kExpSumPartials;

using simd::HWY_NAMESPACE::ExpOrZero;

// Sum of e^(x[i] - m); with kStore, out[i] = e^(x[i] - m) (out may be x).
template <bool kStore>
HWY_INLINE double ExpSum(const float* x, float* out, int64_t n, float m) {
  double total = 0.0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t end = b + kBlock < n ? b + kBlock : n;
    float acc[kPartials] = {};
    int64_t i = b;
    for (; i + kPartials <= end; i += kPartials) {
      for (int64_t j = 0; j < kPartials; ++j) {
        const float e = ExpOrZero(x[i + j] - m);
        if (kStore) out[i + j] = e;
        acc[j] += e;
      }
    }
    for (int64_t j = 0; i + j < end; ++j) {
      const float e = ExpOrZero(x[i + j] - m);
      if (kStore) out[i + j] = e;
      acc[j] += e;
    }
    for (int64_t half = kPartials / 2; half >= 1; half /= 2) {
      for (int64_t j = 0; j < half; ++j) acc[j] += acc[j + half];
    }
    total += static_cast<double>(acc[0]);
  }
  return total;
}

// out[i] = x[i] * scale + shift (out may be x).
HWY_INLINE void Affine(const float* x, float* out, int64_t n, float scale, float shift) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vs = hn::Set(d, scale), vt = hn::Set(d, shift);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), vs, vt), d, out + i);
  }
  for (; i < n; ++i) out[i] = std::fma(x[i], scale, shift);
}

// Sum of a[i] * b[i] (kProduct) or of a[i] in the engine's scalar order (kScalarSumLanes partials
// over the whole groups of each kScalarSumBlock block, the rest into partial 0, the partials added
// in order, block sums in double). The products are rounded before the adds (no FMA).
using SumLanes = float __attribute__((vector_size(kScalarSumLanes * sizeof(float))));

template <bool kProduct>
HWY_INLINE float ScalarOrderSum(const float* a, const float* b, int64_t n) {
  double total = 0.0;
  for (int64_t start = 0; start < n; start += kScalarSumBlock) {
    const int64_t end = start + kScalarSumBlock < n ? start + kScalarSumBlock : n;
    // The partials as one GCC/Clang vector of kScalarSumLanes floats (lane-wise IEEE operations,
    // the same bits as an array): GCC's own vectorisation of the array loop under AVX-512 runs it
    // about four times slower.
    SumLanes lanes = {};
    int64_t i = start;
    for (; i + kScalarSumLanes <= end; i += kScalarSumLanes) {
      SumLanes va;
      std::memcpy(&va, a + i, sizeof(va));
      if constexpr (kProduct) {
        SumLanes vb;
        std::memcpy(&vb, b + i, sizeof(vb));
        va = va * vb;
      }
      lanes += va;
    }
    for (; i < end; ++i) lanes[0] += kProduct ? a[i] * b[i] : a[i];
    float block = 0.f;
    for (int l = 0; l < kScalarSumLanes; ++l) block += lanes[l];
    total += static_cast<double>(block);
  }
  return static_cast<float>(total);
}

// kOutIsX: out and x are one buffer, read and written through one pointer (with two, the
// compiler's overlap check sends the exact alias to its scalar loops).
template <bool kOutIsX>
void RunRowFor(Kind kind, int64_t n, const float* x_in, const float* y, float* out) {
  const float* x = kOutIsX ? out : x_in;
  switch (kind) {
    case Kind::kSoftmax: {
      const float m = RowMax(x, n);
      const float s = static_cast<float>(ExpSum<true>(x, out, n, m));
      Affine(out, out, n, 1.0f / s, 0.0f);
      break;
    }
    case Kind::kLogSoftmax: {
      const float m = RowMax(x, n);
      const float log_sum = std::log(static_cast<float>(ExpSum<false>(x, nullptr, n, m)));
      // (x - max) first: exact for x near max, so equal values give exactly -log(n).
      Affine(x, out, n, 1.0f, -m);
      Affine(out, out, n, 1.0f, -log_sum);
      break;
    }
    case Kind::kSoftmaxBackward: {
      // out = y * (g - sum(g * y)), g = x the gradient.
      const float s = ScalarOrderSum<true>(x, y, n);
      for (int64_t i = 0; i < n; ++i) out[i] = y[i] * (x[i] - s);
      break;
    }
    case Kind::kLogSoftmaxBackward: {
      // out = g - e^y * sum(g): the product and the difference rounded separately (no FMA).
      const float s = ScalarOrderSum<false>(x, nullptr, n);
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] - ExpOrZero(y[i]) * s;
      break;
    }
  }
}

void RunRowImpl(Kind kind, int64_t n, const float* x, const float* y, float* out) {
  if (x == out) {
    RunRowFor<true>(kind, n, x, y, out);
  } else {
    RunRowFor<false>(kind, n, x, y, out);
  }
}

// The row is computed in place in a (two buffers of n floats stay in the L1 cache longer).
void RunRowConvertedImpl(Kind kind, int64_t n, const ConvertedRow& row, float* a, float* b) {
  cv::LoadFloatRunOf(row.x_type, row.x, n, a);
  if (row.y != nullptr) cv::LoadFloatRunOf(row.y_type, row.y, n, b);
  RunRowFor<true>(kind, n, a, b, a);
  cv::StoreFloatRunOf(row.out_type, a, n, row.out);
}

}  // namespace openaclnn::softmax::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::softmax::cpu {

HWY_EXPORT(RunRowImpl);
HWY_EXPORT(RunRowConvertedImpl);

void RunRow(const openaclnn::cpu::KernelTarget& target, Kind kind, int64_t n, const float* x,
            const float* y, float* out) {
  OPENACLNN_DISPATCH(RunRowImpl, target)(kind, n, x, y, out);
}

void RunRowConverted(const openaclnn::cpu::KernelTarget& target, Kind kind, int64_t n,
                     const ConvertedRow& row, float* a, float* b) {
  OPENACLNN_DISPATCH(RunRowConvertedImpl, target)(kind, n, row, a, b);
}

}  // namespace openaclnn::softmax::cpu
#endif  // HWY_ONCE
