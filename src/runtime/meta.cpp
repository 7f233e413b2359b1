// aclTensor, arrays, scalars and lists (acl_meta.h).

#include "runtime/meta.h"

#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "aclnn/opdev/op_errno.h"
#include "api/dtype.h"
#include "runtime/error.h"

namespace openaclnn {
namespace {

aclnnStatus Fail(aclnnStatus code, const std::string& message) {
  SetRecentError(message);
  return code;
}

// Fills `tensor` from aclCreateTensor's arguments; false (with a message) when they are unusable.
bool FillTensor(aclTensor* tensor, const char* api, const int64_t* viewDims, uint64_t viewDimsNum,
                aclDataType dataType, const int64_t* stride, int64_t offset, aclFormat format,
                const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  if (viewDims == nullptr && viewDimsNum > 0) {
    SetRecentError(std::string(api) + ": viewDims is nullptr but viewDimsNum is " +
                   std::to_string(viewDimsNum));
    return false;
  }
  if (storageDims == nullptr && storageDimsNum > 0) {
    SetRecentError(std::string(api) + ": storageDims is nullptr but storageDimsNum is " +
                   std::to_string(storageDimsNum));
    return false;
  }
  tensor->view_dims.assign(viewDims, viewDims + viewDimsNum);
  if (stride != nullptr) {
    tensor->strides.assign(stride, stride + viewDimsNum);
  } else {
    // Contiguous row-major strides; wrap-around on absurd sizes is caught by the operators'
    // extent checks, which see the same dims.
    tensor->strides.assign(viewDimsNum, 1);
    for (uint64_t i = viewDimsNum; i > 1; --i) {
      const uint64_t d = static_cast<uint64_t>(viewDims[i - 1] > 1 ? viewDims[i - 1] : 1);
      tensor->strides[i - 2] =
          static_cast<int64_t>(static_cast<uint64_t>(tensor->strides[i - 1]) * d);
    }
  }
  tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  tensor->offset = offset;
  tensor->dtype = dataType;
  tensor->format = format;
  tensor->data = tensorData;
  return true;
}

template <class T>
aclnnStatus CopyOut(const std::vector<T>& values, T** out, uint64_t* count, const char* api) {
  T* copy = new (std::nothrow) T[values.empty() ? 1 : values.size()];
  if (copy == nullptr) return Fail(ACLNN_ERR_INNER, std::string(api) + ": out of host memory");
  for (size_t i = 0; i < values.size(); ++i) copy[i] = values[i];
  *out = copy;  // the caller releases it with delete[]
  *count = values.size();
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace openaclnn

using openaclnn::Fail;

extern "C" {

size_t aclDataTypeSize(aclDataType dataType) { return openaclnn::DTypeSize(dataType); }

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  try {
    auto tensor = std::make_unique<aclTensor>();
    if (!openaclnn::FillTensor(tensor.get(), "aclCreateTensor", viewDims, viewDimsNum, dataType,
                               stride, offset, format, storageDims, storageDimsNum, tensorData)) {
      return nullptr;
    }
    return tensor.release();
  } catch (const std::exception&) {
    openaclnn::SetRecentError("aclCreateTensor: out of host memory for the tensor's dims");
    return nullptr;
  }
}

aclnnStatus aclInitTensor(aclTensor* tensor, const int64_t* viewDims, uint64_t viewDimsNum,
                          aclDataType dataType, const int64_t* stride, int64_t offset,
                          aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                          void* tensorData) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor: tensor is nullptr");
  try {
    aclTensor fresh;
    if (!openaclnn::FillTensor(&fresh, "aclInitTensor", viewDims, viewDimsNum, dataType, stride,
                               offset, format, storageDims, storageDimsNum, tensorData)) {
      return ACLNN_ERR_PARAM_NULLPTR;
    }
    *tensor = std::move(fresh);
  } catch (const std::exception&) {
    return Fail(ACLNN_ERR_INNER, "aclInitTensor: out of host memory for the tensor's dims");
  }
  return ACLNN_SUCCESS;
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  if (value == nullptr) {
    openaclnn::SetRecentError("aclCreateScalar: value is nullptr");
    return nullptr;
  }
  const size_t size = openaclnn::DTypeSize(dataType);
  if (size == 0 || size > sizeof(aclScalar::value)) {
    openaclnn::SetRecentError(std::string("aclCreateScalar: dataType ") +
                              openaclnn::DTypeName(dataType) + " has no scalar representation");
    return nullptr;
  }
  auto* scalar = new (std::nothrow) aclScalar;
  if (scalar == nullptr) return nullptr;
  scalar->dtype = dataType;
  std::memcpy(scalar->value, value, size);
  return scalar;
}

#define OPENACLNN_ARRAY_CREATE(Type, Elem, name)                                                 \
  Type* name(const Elem* value, uint64_t size) {                                                 \
    if (value == nullptr && size > 0) {                                                          \
      openaclnn::SetRecentError(#name ": value is nullptr but size is " + std::to_string(size)); \
      return nullptr;                                                                            \
    }                                                                                            \
    try {                                                                                        \
      auto array = std::make_unique<Type>();                                                     \
      array->values.assign(value, value + size);                                                 \
      return array.release();                                                                    \
    } catch (const std::exception&) {                                                            \
      openaclnn::SetRecentError(#name ": out of host memory");                                   \
      return nullptr;                                                                            \
    }                                                                                            \
  }

OPENACLNN_ARRAY_CREATE(aclIntArray, int64_t, aclCreateIntArray)
OPENACLNN_ARRAY_CREATE(aclFloatArray, float, aclCreateFloatArray)
OPENACLNN_ARRAY_CREATE(aclBoolArray, bool, aclCreateBoolArray)
#undef OPENACLNN_ARRAY_CREATE

aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    openaclnn::SetRecentError("aclCreateTensorList: value is nullptr but size is " +
                              std::to_string(size));
    return nullptr;
  }
  try {
    auto list = std::make_unique<aclTensorList>();
    list->tensors.assign(value, value + size);
    return list.release();
  } catch (const std::exception&) {
    openaclnn::SetRecentError("aclCreateTensorList: out of host memory");
    return nullptr;
  }
}

aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    openaclnn::SetRecentError("aclCreateScalarList: value is nullptr but size is " +
                              std::to_string(size));
    return nullptr;
  }
  try {
    auto list = std::make_unique<aclScalarList>();
    list->scalars.assign(value, value + size);
    return list.release();
  } catch (const std::exception&) {
    openaclnn::SetRecentError("aclCreateScalarList: out of host memory");
    return nullptr;
  }
}

// Destroying nullptr is allowed and returns 0, as CANN does.
aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  delete scalar;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}
// A tensor list owns its tensors, as in CANN; a scalar list owns its scalars.
aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  if (array != nullptr) {
    for (const aclTensor* t : array->tensors) delete t;
  }
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  if (array != nullptr) {
    for (const aclScalar* s : array->scalars) delete s;
  }
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  if (tensor == nullptr || viewDims == nullptr || viewDimsNum == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "aclGetViewShape: tensor, viewDims and viewDimsNum must "
                "not be nullptr");
  }
  return openaclnn::CopyOut(tensor->view_dims, viewDims, viewDimsNum, "aclGetViewShape");
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  if (tensor == nullptr || storageDims == nullptr || storageDimsNum == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "aclGetStorageShape: tensor, storageDims and "
                "storageDimsNum must not be nullptr");
  }
  return openaclnn::CopyOut(tensor->storage_dims, storageDims, storageDimsNum,
                            "aclGetStorageShape");
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  if (tensor == nullptr || stridesValue == nullptr || stridesNum == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "aclGetViewStrides: tensor, stridesValue and stridesNum "
                "must not be nullptr");
  }
  return openaclnn::CopyOut(tensor->strides, stridesValue, stridesNum, "aclGetViewStrides");
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (tensor == nullptr || offset == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: tensor and offset must not be nullptr");
  }
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (tensor == nullptr || format == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: tensor and format must not be nullptr");
  }
  *format = tensor->format;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (tensor == nullptr || dataType == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: tensor and dataType must not be nullptr");
  }
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}

#define OPENACLNN_SIZE_GETTER(name, Type, member)                                    \
  aclnnStatus name(const Type* array, uint64_t* size) {                              \
    if (array == nullptr || size == nullptr) {                                       \
      return Fail(ACLNN_ERR_PARAM_NULLPTR, #name ": arguments must not be nullptr"); \
    }                                                                                \
    *size = array->member.size();                                                    \
    return ACLNN_SUCCESS;                                                            \
  }

OPENACLNN_SIZE_GETTER(aclGetIntArraySize, aclIntArray, values)
OPENACLNN_SIZE_GETTER(aclGetFloatArraySize, aclFloatArray, values)
OPENACLNN_SIZE_GETTER(aclGetBoolArraySize, aclBoolArray, values)
OPENACLNN_SIZE_GETTER(aclGetTensorListSize, aclTensorList, tensors)
OPENACLNN_SIZE_GETTER(aclGetScalarListSize, aclScalarList, scalars)
#undef OPENACLNN_SIZE_GETTER

aclnnStatus aclSetRawTensorAddr(aclTensor* tensor, void* addr) {
  if (tensor == nullptr || addr == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "aclSetRawTensorAddr: tensor and addr must not be nullptr");
  }
  tensor->data = addr;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor* tensor, void** addr) {
  if (tensor == nullptr || addr == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR,
                "aclGetRawTensorAddr: tensor and addr must not be nullptr");
  }
  *addr = tensor->data;
  return ACLNN_SUCCESS;
}

}  // extern "C"
