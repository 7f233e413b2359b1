#pragma once
// Element access and conversion between every dtype the kernels address: the library's one set of
// conversion rules, used by the pointwise engine (Copy, Cast, mixed-dtype arithmetic), the
// reduction engine (ReduceSum's conversion to the output dtype) and their float64 references.
//
// Element conversions (shared with the float64 reference, so both agree on every dtype):
// - float -> integer: NaN to 0, otherwise truncation toward zero, saturated to the type's range;
// - anything -> BOOL: nonzero (NaN included) is true;
// - int64 -> narrower integer: two's complement wrap;
// - -> FLOAT16 / BFLOAT16: through fp32, rounded to nearest even once from the fp32 value.

#include <cstdint>

#include "api/elem_type.h"

namespace openaclnn::cpu {

// double -> float, rounded to nearest even, with overflow to infinity (a plain cast of a value
// beyond float's range is undefined behaviour in C++).
inline float NarrowToFloat(double v) {
  constexpr double kOverflow = 0x1.ffffffp127;  // FLT_MAX + half its ulp: rounds to infinity
  if (v >= kOverflow) return __builtin_inff();
  if (v <= -kOverflow) return -__builtin_inff();
  return static_cast<float>(v);
}

// Element access and conversion (the rules above).
double LoadAsDouble(ElemType t, const void* base, int64_t i);
int64_t LoadAsInt64(ElemType t, const void* base, int64_t i);
float LoadAsF32(ElemType t, const void* base, int64_t i);
void StoreDouble(ElemType t, void* base, int64_t i, double v);
void StoreF32(ElemType t, void* base, int64_t i, float v);
void StoreInt64(ElemType t, void* base, int64_t i, int64_t v);
// v wrapped to the width of integer type t (t == kBool: v != 0).
int64_t WrapToType(ElemType t, int64_t v);
// Converts element i of `in` (type from) to element j of `out` (type to), by the rules above;
// same-type copies are exact bit copies.
void ConvertElement(ElemType from, const void* in, int64_t i, ElemType to, void* out, int64_t j);
// float -> integer type t by the rules above (NaN 0, truncation, saturation), as int64.
int64_t SaturateToInteger(ElemType t, double v);

}  // namespace openaclnn::cpu
