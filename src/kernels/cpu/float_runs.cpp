#include "kernels/cpu/float_runs.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/float_runs.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/convert-inl.h"  // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// n contiguous elements of a FLOAT, FLOAT16 or BFLOAT16 buffer widened to float (whole vectors,
// then one element at a time through a vector of one lane's worth: the same conversion).
template <ElemType E>
void LoadRun(const void* p, int64_t n, float* dst) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(cv::LoadFloatLanes<E>(df, p, i), df, dst + i);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) hn::StoreU(cv::LoadFloatLanes<E>(d1, p, i), d1, dst + i);
}

template <ElemType E>
void StoreRun(const float* src, int64_t n, void* p) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) cv::StoreFloatLanes<E>(df, hn::LoadU(df, src + i), p, i);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) cv::StoreFloatLanes<E>(d1, hn::LoadU(d1, src + i), p, i);
}

void LoadFloatRunImpl(ElemType type, const void* p, int64_t n, float* dst) {
  if (type == ElemType::kFloat16) return LoadRun<ElemType::kFloat16>(p, n, dst);
  if (type == ElemType::kBFloat16) return LoadRun<ElemType::kBFloat16>(p, n, dst);
  LoadRun<ElemType::kFloat32>(p, n, dst);
}

void StoreFloatRunImpl(ElemType type, const float* src, int64_t n, void* p) {
  if (type == ElemType::kFloat16) return StoreRun<ElemType::kFloat16>(src, n, p);
  if (type == ElemType::kBFloat16) return StoreRun<ElemType::kBFloat16>(src, n, p);
  StoreRun<ElemType::kFloat32>(src, n, p);
}

}  // namespace openaclnn::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(LoadFloatRunImpl);
HWY_EXPORT(StoreFloatRunImpl);

void LoadFloatRun(const KernelTarget& target, ElemType type, const void* p, int64_t n, float* dst) {
  OPENACLNN_DISPATCH(LoadFloatRunImpl, target)(type, p, n, dst);
}

void StoreFloatRun(const KernelTarget& target, ElemType type, const float* src, int64_t n,
                   void* p) {
  OPENACLNN_DISPATCH(StoreFloatRunImpl, target)(type, src, n, p);
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE
