#pragma once
// Contiguous runs of FLOAT, FLOAT16 or BFLOAT16 elements to and from fp32 buffers, with the kit's
// vector conversions (kernels/cpu/convert-inl.h: exact widening, one rounding to nearest even, the
// scalar conversions' bits) on the SIMD target a plan holds. For operators that stage rows or
// blocks in fp32 (GELU/GLU blocks, RmsNorm rows).

#include <cstdint>

#include "api/elem_type.h"
#include "backend/cpu/isa.h"

namespace openaclnn::cpu {

// n contiguous elements of `type` at p, widened to float into dst.
void LoadFloatRun(const KernelTarget& target, ElemType type, const void* p, int64_t n, float* dst);
// n floats from src, each rounded once into n contiguous elements of `type` at p.
void StoreFloatRun(const KernelTarget& target, ElemType type, const float* src, int64_t n, void* p);

}  // namespace openaclnn::cpu
