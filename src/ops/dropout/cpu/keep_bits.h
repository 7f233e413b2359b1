#pragma once
// DoMask's per-element step on a block of fp32 values, in SIMD on the plan's target.

#include <cstdint>
#include <cstring>

#include "backend/cpu/isa.h"

namespace openaclnn::dropout::cpu {

// One element: x * scale rounded once to fp32 when keep_bit is 1, else +0 whatever x holds (NaN
// and infinity included): an AND of the product's bits with all ones or all zeros, no branch on
// the random mask bit.
inline float KeepOrZero(float x, float scale, uint32_t keep_bit) {
  const float product = x * scale;
  uint32_t bits = 0;
  std::memcpy(&bits, &product, sizeof(bits));
  bits &= 0u - (keep_bit & 1u);
  float out = 0.0f;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}

// buf[i] = buf[i] * scale where bit i of the mask is set (bit i % 8 of byte i / 8, the mask layout
// of aclnnDropoutGenMaskV2), else +0 whatever buf[i] holds (NaN and infinity included), for
// i < n, in place. The product is rounded once in fp32: the same bits on every target.
void ApplyKeepBits(const openaclnn::cpu::KernelTarget& target, const uint8_t* mask, float scale,
                   float* buf, int64_t n);

}  // namespace openaclnn::dropout::cpu
