#pragma once
// The AdamW update of one block of fp32 buffers, with Highway on the SIMD target a plan holds.
// Every target (and the one-lane tail) performs the same IEEE operations in the same order, with no
// fused multiply-add, so the bits do not depend on the target.

#include <cstdint>

#include "api/elem_type.h"
#include "backend/cpu/isa.h"

namespace openaclnn::apply_adam_w::cpu {

struct BlockScalars {
  float sign = 1;  // -1 with maximize
  float beta1 = 0, one_minus_beta1 = 1, beta2 = 0, one_minus_beta2 = 1;
  // AdamW's step_size * m / (sqrt(vm) / bc2_sqrt + eps) with numerator and denominator multiplied
  // by bc2_sqrt (one division a lane instead of two, the update's bound): step_size * bc2_sqrt and
  // eps * bc2_sqrt, each rounded once from double.
  float decay = 1, scaled_step = 0, scaled_eps = 0;
};

// For i < n: g = sign * grad; m = beta1 m + (1 - beta1) g; v = beta2 v + ((1 - beta2) g) g;
// vm = amsgrad ? (vmax = (vmax < v ? v : vmax)) : v;
// var = var * decay - scaled_step * (m / (sqrt(vm) + scaled_eps)). vmax may be null without
// amsgrad.
void UpdateBlock(const openaclnn::cpu::KernelTarget& target, const BlockScalars& s, bool amsgrad,
                 int64_t n, const float* grad, float* var, float* m, float* v, float* vmax);

// The same update on elements begin .. begin + n - 1 of five contiguous operands that all hold
// `type` (FLOAT, FLOAT16 or BFLOAT16), widened exactly and rounded once on the store, without
// fp32 buffers. vmax may be null without amsgrad.
void UpdateRun(const openaclnn::cpu::KernelTarget& target, ElemType type, const BlockScalars& s,
               bool amsgrad, int64_t begin, int64_t n, const void* grad, void* var, void* m,
               void* v, void* vmax);

}  // namespace openaclnn::apply_adam_w::cpu
