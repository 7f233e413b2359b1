#pragma once
// The element conversions of a sum whose result has another dtype than its input: CANN casts the
// input to the requested dtype before it reduces, so each element is first converted to the output
// dtype and then widened to the accumulator (fp32 for FLOAT/FLOAT16/BFLOAT16 outputs, double for
// DOUBLE, int64 for the integer types and BOOL). Shared by the engine and the float64 reference.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "api/dtype.h"
#include "api/elem_type.h"

namespace openaclnn {

// One element of `in_type` at `p`, as a double (exact for every type but INT64 beyond 2^53).
inline double LoadElementAsDouble(const void* p, ElemType in_type) {
  auto load = [p](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (in_type) {
    case ElemType::kFloat32:
      return load(float{});
    case ElemType::kFloat16:
      return HalfToFloat(load(uint16_t{}));
    case ElemType::kBFloat16:
      return BFloat16ToFloat(load(uint16_t{}));
    case ElemType::kFloat64:
      return load(double{});
    case ElemType::kInt8:
      return load(int8_t{});
    case ElemType::kUInt8:
      return load(uint8_t{});
    case ElemType::kInt16:
      return load(int16_t{});
    case ElemType::kInt32:
      return load(int32_t{});
    case ElemType::kInt64:
      return static_cast<double>(load(int64_t{}));
    case ElemType::kBool:
      return load(uint8_t{}) != 0 ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

// An integer element of `in_type` at `p` (integer and BOOL inputs only).
inline int64_t LoadIntegerElement(const void* p, ElemType in_type) {
  auto load = [p](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof(v));
    return static_cast<int64_t>(v);
  };
  switch (in_type) {
    case ElemType::kInt8:
      return load(int8_t{});
    case ElemType::kUInt8:
      return load(uint8_t{});
    case ElemType::kInt16:
      return load(int16_t{});
    case ElemType::kInt32:
      return load(int32_t{});
    case ElemType::kInt64:
      return load(int64_t{});
    case ElemType::kBool:
      return load(uint8_t{}) != 0 ? 1 : 0;
    default:
      return 0;
  }
}

// Decision: a floating value converted to an integer type truncates toward zero and saturates at
// the type's range; NaN gives 0 (CANN does not document its Cast on such values).
inline int64_t FloatingToInteger(double v, ElemType out_type) {
  if (std::isnan(v)) return 0;
  double lo = -9223372036854775808.0, hi = 9223372036854775807.0;
  switch (out_type) {
    case ElemType::kInt8:
      lo = -128, hi = 127;
      break;
    case ElemType::kUInt8:
      lo = 0, hi = 255;
      break;
    case ElemType::kInt16:
      lo = -32768, hi = 32767;
      break;
    case ElemType::kInt32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    default:
      break;
  }
  const double t = std::trunc(v);
  if (t <= lo) return static_cast<int64_t>(lo);
  if (t >= hi)
    return out_type == ElemType::kInt64 ? std::numeric_limits<int64_t>::max()
                                        : static_cast<int64_t>(hi);
  return static_cast<int64_t>(t);
}

// The element at `p` converted to the FLOAT, FLOAT16 or BFLOAT16 `out_type`, as float: integers
// and DOUBLE round to float first (then to the 16-bit type), 16-bit inputs widen exactly.
inline float ConvertElementToFloatOutput(const void* p, ElemType in_type, ElemType out_type) {
  float v;
  if (in_type == ElemType::kFloat32) {
    std::memcpy(&v, p, sizeof(v));
  } else if (in_type == ElemType::kInt64) {
    int64_t i;
    std::memcpy(&i, p, sizeof(i));
    v = static_cast<float>(i);
  } else {
    v = static_cast<float>(LoadElementAsDouble(p, in_type));
  }
  if (out_type == ElemType::kFloat16 && in_type != ElemType::kFloat16) return RoundThroughHalf(v);
  if (out_type == ElemType::kBFloat16 && in_type != ElemType::kBFloat16) {
    return RoundThroughBFloat16(v);
  }
  return v;
}

// The element at `p` converted to DOUBLE.
inline double ConvertElementToDoubleOutput(const void* p, ElemType in_type) {
  return LoadElementAsDouble(p, in_type);
}

// The element at `p` converted to the integer or BOOL `out_type`, as int64 before the final
// wrap-around (a BOOL output counts the non-zero elements; it is true when the count is not 0).
inline int64_t ConvertElementToIntegerOutput(const void* p, ElemType in_type, ElemType out_type) {
  if (out_type == ElemType::kBool) return LoadElementAsDouble(p, in_type) != 0.0 ? 1 : 0;
  if (IsFloating(in_type)) return FloatingToInteger(LoadElementAsDouble(p, in_type), out_type);
  return LoadIntegerElement(p, in_type);
}

// Stores an int64 sum into the integer or BOOL `out_type` (two's complement wrap-around, as the
// sum of the wrapped elements would give; BOOL: sum != 0).
inline void StoreIntegerSum(void* p, ElemType out_type, int64_t sum) {
  auto store = [p](auto v) { std::memcpy(p, &v, sizeof(v)); };
  switch (out_type) {
    case ElemType::kInt8:
      store(static_cast<int8_t>(static_cast<uint8_t>(sum)));
      break;
    case ElemType::kUInt8:
      store(static_cast<uint8_t>(sum));
      break;
    case ElemType::kInt16:
      store(static_cast<int16_t>(static_cast<uint16_t>(sum)));
      break;
    case ElemType::kInt32:
      store(static_cast<int32_t>(static_cast<uint32_t>(sum)));
      break;
    case ElemType::kInt64:
      store(sum);
      break;
    case ElemType::kBool:
      store(static_cast<uint8_t>(sum != 0 ? 1 : 0));
      break;
    default:
      break;
  }
}

// Stores a float sum into a FLOAT, FLOAT16 or BFLOAT16 output, rounding once.
inline void StoreFloatSum(void* p, ElemType out_type, float sum) {
  if (out_type == ElemType::kFloat32) {
    std::memcpy(p, &sum, sizeof(sum));
  } else {
    const uint16_t bits = out_type == ElemType::kFloat16 ? FloatToHalf(sum) : FloatToBFloat16(sum);
    std::memcpy(p, &bits, sizeof(bits));
  }
}

}  // namespace openaclnn
