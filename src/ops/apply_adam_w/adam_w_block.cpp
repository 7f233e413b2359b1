#include "ops/apply_adam_w/adam_w_block.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/apply_adam_w/adam_w_block.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::apply_adam_w::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, bool kAmsgrad>
HWY_INLINE void UpdateLanes(D d, const BlockScalars& s, int64_t i, const float* grad, float* var,
                            float* m, float* v, float* vmax) {
  const auto g = hn::Mul(hn::Set(d, s.sign), hn::LoadU(d, grad + i));
  const auto mi = hn::Add(hn::Mul(hn::Set(d, s.beta1), hn::LoadU(d, m + i)),
                          hn::Mul(hn::Set(d, s.one_minus_beta1), g));
  const auto vi = hn::Add(hn::Mul(hn::Set(d, s.beta2), hn::LoadU(d, v + i)),
                          hn::Mul(hn::Mul(hn::Set(d, s.one_minus_beta2), g), g));
  auto vm = vi;
  if (kAmsgrad) {
    const auto old = hn::LoadU(d, vmax + i);
    vm = hn::IfThenElse(hn::Lt(old, vi), vi, old);
    hn::StoreU(vm, d, vmax + i);
  }
  const auto denom = hn::Add(hn::Div(hn::Sqrt(vm), hn::Set(d, s.bc2_sqrt)), hn::Set(d, s.eps));
  const auto x = hn::Sub(hn::Mul(hn::LoadU(d, var + i), hn::Set(d, s.decay)),
                         hn::Mul(hn::Set(d, s.step_size), hn::Div(mi, denom)));
  hn::StoreU(x, d, var + i);
  hn::StoreU(mi, d, m + i);
  hn::StoreU(vi, d, v + i);
}

template <bool kAmsgrad>
void Update(const BlockScalars& s, int64_t n, const float* grad, float* var, float* m, float* v,
            float* vmax) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    UpdateLanes<decltype(df), kAmsgrad>(df, s, i, grad, var, m, v, vmax);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) UpdateLanes<decltype(d1), kAmsgrad>(d1, s, i, grad, var, m, v, vmax);
}

void UpdateBlockImpl(const BlockScalars& s, bool amsgrad, int64_t n, const float* grad, float* var,
                     float* m, float* v, float* vmax) {
  if (amsgrad) return Update<true>(s, n, grad, var, m, v, vmax);
  Update<false>(s, n, grad, var, m, v, vmax);
}

}  // namespace openaclnn::apply_adam_w::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::apply_adam_w::cpu {

HWY_EXPORT(UpdateBlockImpl);

void UpdateBlock(const openaclnn::cpu::KernelTarget& target, const BlockScalars& s, bool amsgrad,
                 int64_t n, const float* grad, float* var, float* m, float* v, float* vmax) {
  OPENACLNN_DISPATCH(UpdateBlockImpl, target)(s, amsgrad, n, grad, var, m, v, vmax);
}

}  // namespace openaclnn::apply_adam_w::cpu
#endif  // HWY_ONCE
