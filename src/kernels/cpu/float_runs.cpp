#include "kernels/cpu/float_runs.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/float_runs.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/convert-inl.h"  // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

void LoadFloatRunImpl(ElemType type, const void* p, int64_t n, float* dst) {
  cv::LoadFloatRunOf(type, p, n, dst);
}

void StoreFloatRunImpl(ElemType type, const float* src, int64_t n, void* p) {
  cv::StoreFloatRunOf(type, src, n, p);
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
