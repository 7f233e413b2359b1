#include "ops/dropout/cpu/keep_bits.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/dropout/cpu/keep_bits.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::dropout::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void ApplyKeepBitsImpl(const uint8_t* mask, float scale, float* buf, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vscale = hn::Set(d, scale);
  int64_t i = 0;
  if (lanes % 8 == 0) {
    // A vector's mask bits start on a byte.
    for (; i + lanes <= n; i += lanes) {
      const auto keep = hn::LoadMaskBits(d, mask + i / 8);
      hn::StoreU(hn::IfThenElseZero(keep, hn::Mul(hn::LoadU(d, buf + i), vscale)), d, buf + i);
    }
  } else if (8 % lanes == 0) {
    // Several vectors per mask byte: its bits shifted down to the vector's first element.
    for (; i + lanes <= n; i += lanes) {
      const uint8_t bits[8] = {static_cast<uint8_t>(mask[i / 8] >> (i % 8))};
      const auto keep = hn::LoadMaskBits(d, bits);
      hn::StoreU(hn::IfThenElseZero(keep, hn::Mul(hn::LoadU(d, buf + i), vscale)), d, buf + i);
    }
  }
  for (; i < n; ++i) buf[i] = KeepOrZero(buf[i], scale, mask[i / 8] >> (i % 8));
}

}  // namespace openaclnn::dropout::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::dropout::cpu {

HWY_EXPORT(ApplyKeepBitsImpl);

void ApplyKeepBits(const openaclnn::cpu::KernelTarget& target, const uint8_t* mask, float scale,
                   float* buf, int64_t n) {
  OPENACLNN_DISPATCH(ApplyKeepBitsImpl, target)(mask, scale, buf, n);
}

}  // namespace openaclnn::dropout::cpu
#endif  // HWY_ONCE
