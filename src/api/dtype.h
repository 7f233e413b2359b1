#pragma once
// Element types: sizes, names, promotion and the 16-bit float conversions.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "acl/acl_base.h"

namespace openaclnn {

// Bytes per element, 0 for types this library cannot address (sub-byte, string, undefined).
size_t DTypeSize(aclDataType dtype);
// CANN's spelling without the ACL_ prefix ("FLOAT", "BF16", ...), or "UNKNOWN(n)".
const char* DTypeName(aclDataType dtype);
// CANN's spelling of a format without the ACL_FORMAT_ prefix ("ND", "NCL", ...), or "other".
const char* FormatName(aclFormat format);
// FLOAT, FLOAT16 or BFLOAT16: the types both operators compute in.
inline bool IsComputeFloat(aclDataType dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16;
}
// Promotion of two floating types (spec section 1.7); only FLOAT, FLOAT16, BF16 and DOUBLE.
aclDataType PromoteFloatTypes(aclDataType a, aclDataType b);

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// bfloat16 <-> float. Rounding is to nearest, ties to even; NaN stays NaN (quiet), inf stays inf.
inline float BFloat16ToFloat(uint16_t h) { return BitsToFloat(static_cast<uint32_t>(h) << 16); }
inline uint16_t FloatToBFloat16(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// IEEE binary16 <-> float, round to nearest even, subnormals, NaN and infinity preserved.
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);

// Round a float to the nearest value representable in `dtype` (FLOAT16/BF16), as float.
inline float RoundThroughBFloat16(float f) { return BFloat16ToFloat(FloatToBFloat16(f)); }
inline float RoundThroughHalf(float f) { return HalfToFloat(FloatToHalf(f)); }

// HF32 as CANN's A2/A3 golden model defines it: keep 11 mantissa bits, rounding half away from
// zero in magnitude. Non-finite values pass unchanged.
inline float RoundToHf32(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7f800000u) == 0x7f800000u) return f;
  u = ((u >> 11) + 1u) >> 1 << 12;
  return BitsToFloat(u);
}

// Load element i of a FLOAT/FLOAT16/BF16 buffer as float; store with one rounding.
inline float LoadAsFloat(const void* base, aclDataType dtype, int64_t i) {
  switch (dtype) {
    case ACL_FLOAT16:
      return HalfToFloat(static_cast<const uint16_t*>(base)[i]);
    case ACL_BF16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(base)[i]);
    default:
      return static_cast<const float*>(base)[i];
  }
}
inline void StoreFromFloat(void* base, aclDataType dtype, int64_t i, float v) {
  switch (dtype) {
    case ACL_FLOAT16:
      static_cast<uint16_t*>(base)[i] = FloatToHalf(v);
      break;
    case ACL_BF16:
      static_cast<uint16_t*>(base)[i] = FloatToBFloat16(v);
      break;
    default:
      static_cast<float*>(base)[i] = v;
      break;
  }
}

}  // namespace openaclnn
