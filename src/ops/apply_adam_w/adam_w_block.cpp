#include "ops/apply_adam_w/adam_w_block.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/apply_adam_w/adam_w_block.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/convert-inl.h"  // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
namespace openaclnn::apply_adam_w::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// Lanes i .. of the five operands, all of element type E, widened exactly, updated in fp32 and
// rounded once on the store.
template <ElemType E, bool kAmsgrad, class D>
HWY_INLINE void UpdateLanes(D d, const BlockScalars& s, int64_t i, const void* grad, void* var,
                            void* m, void* v, void* vmax) {
  const auto g = hn::Mul(hn::Set(d, s.sign), cv::LoadFloatLanes<E>(d, grad, i));
  const auto x0 = cv::LoadFloatLanes<E>(d, var, i);
  const auto mi = hn::Add(hn::Mul(hn::Set(d, s.beta1), cv::LoadFloatLanes<E>(d, m, i)),
                          hn::Mul(hn::Set(d, s.one_minus_beta1), g));
  const auto vi = hn::Add(hn::Mul(hn::Set(d, s.beta2), cv::LoadFloatLanes<E>(d, v, i)),
                          hn::Mul(hn::Mul(hn::Set(d, s.one_minus_beta2), g), g));
  auto vm = vi;
  if (kAmsgrad) {
    const auto old = cv::LoadFloatLanes<E>(d, vmax, i);
    vm = hn::IfThenElse(hn::Lt(old, vi), vi, old);
    cv::StoreFloatLanes<E>(d, vm, vmax, i);
  }
  const auto denom = hn::Add(hn::Sqrt(vm), hn::Set(d, s.scaled_eps));
  const auto x = hn::Sub(hn::Mul(x0, hn::Set(d, s.decay)),
                         hn::Mul(hn::Set(d, s.scaled_step), hn::Div(mi, denom)));
  cv::StoreFloatLanes<E>(d, x, var, i);
  cv::StoreFloatLanes<E>(d, mi, m, i);
  cv::StoreFloatLanes<E>(d, vi, v, i);
}

// Elements begin .. begin + n - 1: whole vectors, then one lane at a time (the same operations).
template <ElemType E, bool kAmsgrad>
void Update(const BlockScalars& s, int64_t begin, int64_t n, const void* grad, void* var, void* m,
            void* v, void* vmax) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const int64_t end = begin + n;
  int64_t i = begin;
  for (; i + lanes <= end; i += lanes) {
    UpdateLanes<E, kAmsgrad>(df, s, i, grad, var, m, v, vmax);
  }
  const hn::CappedTag<float, 1> d1;
  for (; i < end; ++i) UpdateLanes<E, kAmsgrad>(d1, s, i, grad, var, m, v, vmax);
}

template <ElemType E>
void UpdateTyped(const BlockScalars& s, bool amsgrad, int64_t begin, int64_t n, const void* grad,
                 void* var, void* m, void* v, void* vmax) {
  if (amsgrad) return Update<E, true>(s, begin, n, grad, var, m, v, vmax);
  Update<E, false>(s, begin, n, grad, var, m, v, vmax);
}

void UpdateRunImpl(ElemType type, const BlockScalars& s, bool amsgrad, int64_t begin, int64_t n,
                   const void* grad, void* var, void* m, void* v, void* vmax) {
  if (type == ElemType::kFloat16) {
    return UpdateTyped<ElemType::kFloat16>(s, amsgrad, begin, n, grad, var, m, v, vmax);
  }
  if (type == ElemType::kBFloat16) {
    return UpdateTyped<ElemType::kBFloat16>(s, amsgrad, begin, n, grad, var, m, v, vmax);
  }
  UpdateTyped<ElemType::kFloat32>(s, amsgrad, begin, n, grad, var, m, v, vmax);
}

}  // namespace openaclnn::apply_adam_w::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::apply_adam_w::cpu {

HWY_EXPORT(UpdateRunImpl);

void UpdateBlock(const openaclnn::cpu::KernelTarget& target, const BlockScalars& s, bool amsgrad,
                 int64_t n, const float* grad, float* var, float* m, float* v, float* vmax) {
  OPENACLNN_DISPATCH(UpdateRunImpl, target)
  (ElemType::kFloat32, s, amsgrad, 0, n, grad, var, m, v, vmax);
}

void UpdateRun(const openaclnn::cpu::KernelTarget& target, ElemType type, const BlockScalars& s,
               bool amsgrad, int64_t begin, int64_t n, const void* grad, void* var, void* m,
               void* v, void* vmax) {
  OPENACLNN_DISPATCH(UpdateRunImpl, target)(type, s, amsgrad, begin, n, grad, var, m, v, vmax);
}

}  // namespace openaclnn::apply_adam_w::cpu
#endif  // HWY_ONCE
