#include "api/dtype.h"

#include <cstdio>

namespace openaclnn {

size_t DTypeSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    case ACL_COMPLEX32:
      return 4;
    default:
      return 0;
  }
}

const char* DTypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_DT_UNDEFINED:
      return "UNDEFINED";
    case ACL_FLOAT:
      return "FLOAT";
    case ACL_FLOAT16:
      return "FLOAT16";
    case ACL_INT8:
      return "INT8";
    case ACL_INT32:
      return "INT32";
    case ACL_UINT8:
      return "UINT8";
    case ACL_INT16:
      return "INT16";
    case ACL_UINT16:
      return "UINT16";
    case ACL_UINT32:
      return "UINT32";
    case ACL_INT64:
      return "INT64";
    case ACL_UINT64:
      return "UINT64";
    case ACL_DOUBLE:
      return "DOUBLE";
    case ACL_BOOL:
      return "BOOL";
    case ACL_STRING:
      return "STRING";
    case ACL_COMPLEX64:
      return "COMPLEX64";
    case ACL_COMPLEX128:
      return "COMPLEX128";
    case ACL_BF16:
      return "BFLOAT16";
    case ACL_INT4:
      return "INT4";
    case ACL_UINT1:
      return "UINT1";
    case ACL_COMPLEX32:
      return "COMPLEX32";
    case ACL_HIFLOAT8:
      return "HIFLOAT8";
    case ACL_FLOAT8_E5M2:
      return "FLOAT8_E5M2";
    case ACL_FLOAT8_E4M3FN:
      return "FLOAT8_E4M3FN";
    case ACL_FLOAT8_E8M0:
      return "FLOAT8_E8M0";
    case ACL_FLOAT6_E3M2:
      return "FLOAT6_E3M2";
    case ACL_FLOAT6_E2M3:
      return "FLOAT6_E2M3";
    case ACL_FLOAT4_E2M1:
      return "FLOAT4_E2M1";
    case ACL_FLOAT4_E1M2:
      return "FLOAT4_E1M2";
  }
  static thread_local char unknown[32];
  std::snprintf(unknown, sizeof(unknown), "UNKNOWN(%d)", static_cast<int>(dtype));
  return unknown;
}

const char* FormatName(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_UNDEFINED:
      return "UNDEFINED";
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NC1HWC0:
      return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z:
      return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04:
      return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN:
      return "HWCN";
    case ACL_FORMAT_NDHWC:
      return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ:
      return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW:
      return "NCDHW";
    case ACL_FORMAT_NDC1HWC0:
      return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D:
      return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC:
      return "NC";
    case ACL_FORMAT_NCL:
      return "NCL";
    default:
      return "other";
  }
}

aclDataType PromoteFloatTypes(aclDataType a, aclDataType b) {
  if (a == b) return a;
  if (a == ACL_DOUBLE || b == ACL_DOUBLE) return ACL_DOUBLE;
  // FLOAT with anything, and FLOAT16 with BF16, give FLOAT.
  return ACL_FLOAT;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) {  // inf or NaN, payload kept
    return BitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    if (mantissa == 0) return BitsToFloat(sign);
    // Subnormal: value = mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) {  // NaN: keep it quiet and keep the top payload bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Result is subnormal or zero: scale so that one half-subnormal ULP is 1.0 and let the float
    // unit round to nearest even.
    const float scaled = BitsToFloat(abs) * 16777216.0f;  // 2^24
    const uint32_t q = static_cast<uint32_t>(scaled);
    const float remainder = scaled - static_cast<float>(q);
    uint32_t r = q;
    if (remainder > 0.5f || (remainder == 0.5f && (q & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias the exponent, round the 13 dropped bits to nearest even.
  uint32_t v = abs - 0x38000000u;  // exponent 127 -> 15
  v += 0xfffu + ((v >> 13) & 1u);
  return static_cast<uint16_t>(sign | (v >> 13));
}

}  // namespace openaclnn
