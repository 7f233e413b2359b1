#pragma once
// The library's one element-type vocabulary below the API boundary. The API speaks aclDataType;
// plans, kernels (CPU and CUDA) and the engines speak ElemType, a dense enum that g++ and nvcc
// both compile, so kernels can index tables and switch on it without the ACL headers.

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "api/host_device.h"

namespace openaclnn {

enum class ElemType : uint8_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kBFloat16 = 2,
  kFloat64 = 3,
  kInt8 = 4,
  kUInt8 = 5,
  kInt16 = 6,
  kInt32 = 7,
  kInt64 = 8,
  kBool = 9,
  kInvalid = 10,  // a dtype no kernel of this library addresses
};
constexpr int kElemTypeCount = 10;

// Bytes per element (0 for kInvalid).
OPENACLNN_HOST_DEVICE constexpr size_t ElemSize(ElemType t) {
  switch (t) {
    case ElemType::kFloat32:
    case ElemType::kInt32:
      return 4;
    case ElemType::kFloat16:
    case ElemType::kBFloat16:
    case ElemType::kInt16:
      return 2;
    case ElemType::kInt8:
    case ElemType::kUInt8:
    case ElemType::kBool:
      return 1;
    case ElemType::kFloat64:
    case ElemType::kInt64:
      return 8;
    default:
      return 0;
  }
}

OPENACLNN_HOST_DEVICE constexpr bool IsFloating(ElemType t) {
  return t == ElemType::kFloat32 || t == ElemType::kFloat16 || t == ElemType::kBFloat16 ||
         t == ElemType::kFloat64;
}
OPENACLNN_HOST_DEVICE constexpr bool IsIntegral(ElemType t) {
  return t == ElemType::kInt8 || t == ElemType::kUInt8 || t == ElemType::kInt16 ||
         t == ElemType::kInt32 || t == ElemType::kInt64;
}

constexpr ElemType ToElemType(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return ElemType::kFloat32;
    case ACL_FLOAT16:
      return ElemType::kFloat16;
    case ACL_BF16:
      return ElemType::kBFloat16;
    case ACL_DOUBLE:
      return ElemType::kFloat64;
    case ACL_INT8:
      return ElemType::kInt8;
    case ACL_UINT8:
      return ElemType::kUInt8;
    case ACL_INT16:
      return ElemType::kInt16;
    case ACL_INT32:
      return ElemType::kInt32;
    case ACL_INT64:
      return ElemType::kInt64;
    case ACL_BOOL:
      return ElemType::kBool;
    default:
      return ElemType::kInvalid;
  }
}

constexpr aclDataType ToAclDataType(ElemType t) {
  switch (t) {
    case ElemType::kFloat32:
      return ACL_FLOAT;
    case ElemType::kFloat16:
      return ACL_FLOAT16;
    case ElemType::kBFloat16:
      return ACL_BF16;
    case ElemType::kFloat64:
      return ACL_DOUBLE;
    case ElemType::kInt8:
      return ACL_INT8;
    case ElemType::kUInt8:
      return ACL_UINT8;
    case ElemType::kInt16:
      return ACL_INT16;
    case ElemType::kInt32:
      return ACL_INT32;
    case ElemType::kInt64:
      return ACL_INT64;
    case ElemType::kBool:
      return ACL_BOOL;
    default:
      return ACL_DT_UNDEFINED;
  }
}

}  // namespace openaclnn
