#include "ops/softmax/cpu/row_kernels.h"

#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/softmax/cpu/row_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "hwy/contrib/math/math-inl.h"  // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
namespace openaclnn::softmax::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float RowMaxImpl(const float* a, int64_t n) {
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

// Elements per block whose lane sums are flushed into the double total.
constexpr int64_t kBlock = 256;

double RowExpSumImpl(float* a, int64_t n, float m, bool store) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vm = hn::Set(d, m);
  double total = 0.0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t end = b + kBlock < n ? b + kBlock : n;
    auto acc = hn::Zero(d);
    int64_t i = b;
    for (; i + lanes <= end; i += lanes) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, a + i), vm));
      if (store) hn::StoreU(e, d, a + i);
      acc = hn::Add(acc, e);
    }
    float tail = 0.0f;
    for (; i < end; ++i) {
      const float e = std::exp(a[i] - m);
      if (store) a[i] = e;
      tail += e;
    }
    total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, acc))) + static_cast<double>(tail);
  }
  return total;
}

void RowAffineImpl(float* a, int64_t n, float scale, float shift) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vs = hn::Set(d, scale), vt = hn::Set(d, shift);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::MulAdd(hn::LoadU(d, a + i), vs, vt), d, a + i);
  }
  for (; i < n; ++i) a[i] = std::fma(a[i], scale, shift);
}

void RowSubExpScaledImpl(float* a, const float* b, int64_t n, float s) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vs = hn::Set(d, s);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto e = hn::Exp(d, hn::LoadU(d, b + i));
    hn::StoreU(hn::NegMulAdd(e, vs, hn::LoadU(d, a + i)), d, a + i);
  }
  for (; i < n; ++i) a[i] = std::fma(-std::exp(b[i]), s, a[i]);
}

}  // namespace openaclnn::softmax::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::softmax::cpu {

HWY_EXPORT(RowMaxImpl);
HWY_EXPORT(RowExpSumImpl);
HWY_EXPORT(RowAffineImpl);
HWY_EXPORT(RowSubExpScaledImpl);

float RowMax(const openaclnn::cpu::KernelTarget& target, const float* a, int64_t n) {
  return OPENACLNN_DISPATCH(RowMaxImpl, target)(a, n);
}
double RowExpSum(const openaclnn::cpu::KernelTarget& target, float* a, int64_t n, float m,
                 bool store) {
  return OPENACLNN_DISPATCH(RowExpSumImpl, target)(a, n, m, store);
}
void RowAffine(const openaclnn::cpu::KernelTarget& target, float* a, int64_t n, float scale,
               float shift) {
  OPENACLNN_DISPATCH(RowAffineImpl, target)(a, n, scale, shift);
}
void RowSubExpScaled(const openaclnn::cpu::KernelTarget& target, float* a, const float* b,
                     int64_t n, float s) {
  OPENACLNN_DISPATCH(RowSubExpScaledImpl, target)(a, b, n, s);
}

}  // namespace openaclnn::softmax::cpu
#endif  // HWY_ONCE
