#pragma once
// The element conversions of a sum whose result has another dtype than its input: CANN casts the
// input to the requested dtype before it reduces, so each element is first converted to the output
// dtype and then widened to the accumulator (fp32 for FLOAT/FLOAT16/BFLOAT16 outputs, double for
// DOUBLE, int64 for the integer types and BOOL). Shared by the engine and the float64 reference,
// on the library's element conversions (kernels/cpu/element_convert.h).

#include <cstdint>

#include "api/dtype.h"
#include "api/elem_type.h"
#include "kernels/cpu/element_convert.h"

namespace openaclnn {

// The element at `p` converted to the FLOAT, FLOAT16 or BFLOAT16 `out_type`, as float: integers
// and DOUBLE round to float first (then to the 16-bit type), 16-bit inputs widen exactly.
inline float ConvertElementToFloatOutput(const void* p, ElemType in_type, ElemType out_type) {
  const float v = cpu::LoadAsF32(in_type, p, 0);
  if (out_type == ElemType::kFloat16 && in_type != ElemType::kFloat16) return RoundThroughHalf(v);
  if (out_type == ElemType::kBFloat16 && in_type != ElemType::kBFloat16) {
    return RoundThroughBFloat16(v);
  }
  return v;
}

// The element at `p` converted to DOUBLE.
inline double ConvertElementToDoubleOutput(const void* p, ElemType in_type) {
  return cpu::LoadAsDouble(in_type, p, 0);
}

// The element at `p` converted to the integer or BOOL `out_type`, as int64 before the final
// wrap-around (a BOOL output counts the non-zero elements; it is true when the count is not 0).
inline int64_t ConvertElementToIntegerOutput(const void* p, ElemType in_type, ElemType out_type) {
  if (out_type == ElemType::kBool) return cpu::LoadAsDouble(in_type, p, 0) != 0.0 ? 1 : 0;
  if (IsFloating(in_type))
    return cpu::SaturateToInteger(out_type, cpu::LoadAsDouble(in_type, p, 0));
  return cpu::LoadAsInt64(in_type, p, 0);
}

// Stores an int64 sum into the integer or BOOL `out_type` (two's complement wrap-around, as the
// sum of the wrapped elements would give; BOOL: sum != 0).
inline void StoreIntegerSum(void* p, ElemType out_type, int64_t sum) {
  cpu::StoreInt64(out_type, p, 0, sum);
}

// Stores a float sum into a FLOAT, FLOAT16 or BFLOAT16 output, rounding once.
inline void StoreFloatSum(void* p, ElemType out_type, float sum) {
  cpu::StoreF32(out_type, p, 0, sum);
}

}  // namespace openaclnn
