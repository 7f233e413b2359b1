#pragma once
// The fp32 block math of the GELU and GLU plans, compiled for each SIMD target (the loops are plain
// C++ that the compiler vectorises under the target's instruction set) and called through
// OPENACLNN_DISPATCH with the plan's target. Every target runs the same IEEE operations per
// element (no FMA contraction: -ffp-contract=off), so the bits do not depend on the target.

#include <cstdint>

#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "ops/gelu/activation.h"

namespace openaclnn::activation::cpu {

// y0[i] (and y1[i] for GluBackward) from x0[i], x1[i], x2[i] for i < n, in the operator's kind.
void BatchF32(const openaclnn::cpu::KernelTarget& target, Kind kind, const float* x0,
              const float* x1, const float* x2, float* y0, float* y1, int n);

// y[i] = x[i] * table[bits[i]] for i < n, with x and y n contiguous elements of `type` (FLOAT,
// FLOAT16 or BFLOAT16; y may be x itself), x widened exactly and the product rounded once: the
// tabulated products of the GELU gradients and of GLU on unit-stride operands.
void TableProduct(const openaclnn::cpu::KernelTarget& target, ElemType type, const void* x,
                  const uint16_t* bits, const float* table, void* y, int n);

// GluBackward on n contiguous elements of `type` (FLOAT16 or BFLOAT16) in every run, with b's
// sigmoid from the table of GLU's gate: da = g s and db = da (a - a s), s = table[bits of b], the
// bits BatchF32 gives. da and db may be a's and b's own runs.
void GluGradTable(const openaclnn::cpu::KernelTarget& target, ElemType type, const void* g,
                  const void* a, const uint16_t* bits, const float* table, void* da, void* db,
                  int n);

}  // namespace openaclnn::activation::cpu
