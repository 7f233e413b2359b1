#include "api/tensor_desc.h"

#include <climits>
#include <cstdint>

#include "api/dtype.h"
#include "backend/cuda/runtime.h"
#include "runtime/device.h"
#include "runtime/memory.h"
#include "runtime/meta.h"

namespace openaclnn {
namespace {

std::string DimsString(const int64_t* dims, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

}  // namespace

int64_t TensorDesc::Numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] <= 0) return 0;
    if (__builtin_mul_overflow(n, dims[i], &n)) return INT64_MAX;
  }
  return n;
}

bool TensorDesc::IsContiguous() const {
  int64_t expected = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (dims[i] == 0) return true;
    if (dims[i] != 1 && strides[i] != expected) return false;
    expected *= dims[i];
  }
  return true;
}

std::string TensorDesc::ShapeString() const { return DimsString(dims.data(), rank); }

void* TensorDesc::First(void* storage_base) const {
  return static_cast<unsigned char*>(storage_base) +
         offset * static_cast<int64_t>(DTypeSize(dtype));
}
const void* TensorDesc::First(const void* storage_base) const {
  return static_cast<const unsigned char*>(storage_base) +
         offset * static_cast<int64_t>(DTypeSize(dtype));
}

void DescribeTensor(const aclTensor& tensor, TensorDesc* desc) {
  desc->dtype = tensor.dtype;
  desc->format = tensor.format;
  desc->rank = static_cast<int>(tensor.view_dims.size());
  for (int i = 0; i < desc->rank && i < kMaxRank; ++i) {
    desc->dims[i] = tensor.view_dims[i];
    desc->strides[i] = tensor.strides[i];
  }
  desc->offset = tensor.offset;
}

std::string DimsString(const std::vector<int64_t>& dims) {
  return DimsString(dims.data(), dims.size());
}

int64_t SaturatingProduct(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) {
    if (dims[i] <= 0) return 0;
    if (__builtin_mul_overflow(p, dims[i], &p)) return INT64_MAX;
  }
  return p;
}

Status CheckComputeFloat(const aclTensor& tensor, const char* param) {
  if (IsComputeFloat(tensor.dtype)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be FLOAT, FLOAT16 or BFLOAT16, got %s",
                     param, DTypeName(tensor.dtype));
}

std::string ShapeString(const aclTensor& tensor) {
  return DimsString(tensor.view_dims.data(), tensor.view_dims.size());
}

int64_t Numel(const aclTensor& tensor) {
  return SaturatingProduct(tensor.view_dims, 0, tensor.view_dims.size());
}

Status CheckResidence(const void* data, const char* param) {
  if (data == nullptr || PlanningDeviceKind() != DeviceKind::kCuda) return Status::Ok();
  const int32_t device = CurrentDevice() < 0 ? 0 : CurrentDevice();
  const int holder = cuda::DeviceOfPointer(data);
  if (holder == device) return Status::Ok();
  if (holder < 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s is in host memory, but the current device is GPU %d: it must be device "
                       "memory (aclrtMalloc)",
                       param, static_cast<int>(device));
  }
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s is in the memory of GPU %d, but the current device is GPU %d", param,
                     holder, static_cast<int>(device));
}

namespace {

// The extent check on raw view metadata, shared by aclTensor and TensorDesc.
Status CheckExtent(aclDataType dtype, size_t rank, const int64_t* dims, const int64_t* strides,
                   int64_t offset, const void* data, const char* param) {
  auto shape = [&] { return DimsString(dims, rank); };
  const size_t element_size = DTypeSize(dtype);
  if (element_size == 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype %s has no byte size", param,
                       DTypeName(dtype));
  }
  int64_t numel = 1;
  bool empty = false;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t d = dims[i];
    if (d < 0) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dim %zu must be >= 0, got %lld (shape %s)",
                         param, i, static_cast<long long>(d), shape().c_str());
    }
    if (d == 0) empty = true;
    if (!empty && __builtin_mul_overflow(numel, d, &numel)) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s element count overflows int64 (shape %s)",
                         param, shape().c_str());
    }
  }
  if (empty) return Status::Ok();
  if (numel > kMaxViewElements) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s has %lld elements, more than the %lld (2^40) a tensor may have on this "
                       "device (shape %s)",
                       param, static_cast<long long>(numel),
                       static_cast<long long>(kMaxViewElements), shape().c_str());
  }
  // Lowest and highest element index the view touches.
  int64_t low = offset;
  int64_t high = offset;
  for (size_t i = 0; i < rank; ++i) {
    int64_t reach = 0;
    if (__builtin_mul_overflow(dims[i] - 1, strides[i], &reach) ||
        __builtin_add_overflow(reach >= 0 ? high : low, reach, reach >= 0 ? &high : &low)) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s strides reach beyond int64 element indices (shape %s)", param,
                         shape().c_str());
    }
  }
  if (low < 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s view reaches before the start of its storage: lowest element index is "
                       "%lld (offset %lld, shape %s)",
                       param, static_cast<long long>(low), static_cast<long long>(offset),
                       shape().c_str());
  }
  uint64_t end_bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(high) + 1, element_size, &end_bytes) ||
      end_bytes > static_cast<uint64_t>(INT64_MAX)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s byte size overflows size_t (shape %s)", param,
                       shape().c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckResidence(data, param));
  AllocationBlock block;
  if (data != nullptr && FindAllocation(data, &block)) {
    const uint64_t available = block.size - (reinterpret_cast<uintptr_t>(data) - block.base);
    if (end_bytes > available) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s view needs %llu bytes from its address but its aclrtMalloc block has "
                         "%llu (shape %s, offset %lld)",
                         param, static_cast<unsigned long long>(end_bytes),
                         static_cast<unsigned long long>(available), shape().c_str(),
                         static_cast<long long>(offset));
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckTensorExtent(const aclTensor& tensor, const char* param) {
  return CheckExtent(tensor.dtype, tensor.view_dims.size(), tensor.view_dims.data(),
                     tensor.strides.data(), tensor.offset, tensor.data, param);
}

Status CheckTensorExtent(const TensorDesc& desc, const void* data, const char* param) {
  return CheckExtent(desc.dtype, static_cast<size_t>(desc.rank), desc.dims.data(),
                     desc.strides.data(), desc.offset, data, param);
}

Status CheckMaxRank(const aclTensor& tensor, const char* param) {
  const int rank = static_cast<int>(tensor.view_dims.size());
  if (rank <= kMaxRank) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s rank must be at most %d, got %d (shape %s)",
                     param, kMaxRank, rank, ShapeString(tensor).c_str());
}

Status CheckDtypeListed(bool ok, const char* param, const char* list, aclDataType got) {
  if (ok) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be one of %s, got %s", param, list,
                     DTypeName(got));
}

}  // namespace openaclnn
