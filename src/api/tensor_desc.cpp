#include "api/tensor_desc.h"

#include <climits>
#include <cstdint>

#include "api/dtype.h"
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
  for (int i = 0; i < rank; ++i) n *= dims[i];
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

std::string ShapeString(const aclTensor& tensor) {
  return DimsString(tensor.view_dims.data(), tensor.view_dims.size());
}

int64_t Numel(const aclTensor& tensor) {
  int64_t n = 1;
  for (int64_t d : tensor.view_dims) {
    if (d <= 0) return 0;
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  }
  return n;
}

Status CheckTensorExtent(const aclTensor& tensor, const char* param) {
  const size_t element_size = DTypeSize(tensor.dtype);
  if (element_size == 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype %s has no byte size", param,
                       DTypeName(tensor.dtype));
  }
  int64_t numel = 1;
  bool empty = false;
  for (size_t i = 0; i < tensor.view_dims.size(); ++i) {
    const int64_t d = tensor.view_dims[i];
    if (d < 0) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dim %zu must be >= 0, got %lld (shape %s)",
                         param, i, static_cast<long long>(d), ShapeString(tensor).c_str());
    }
    if (d == 0) empty = true;
    if (!empty && __builtin_mul_overflow(numel, d, &numel)) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s element count overflows int64 (shape %s)",
                         param, ShapeString(tensor).c_str());
    }
  }
  if (empty) return Status::Ok();
  // Lowest and highest element index the view touches.
  int64_t low = tensor.offset;
  int64_t high = tensor.offset;
  for (size_t i = 0; i < tensor.view_dims.size(); ++i) {
    int64_t reach = 0;
    if (__builtin_mul_overflow(tensor.view_dims[i] - 1, tensor.strides[i], &reach) ||
        __builtin_add_overflow(reach >= 0 ? high : low, reach, reach >= 0 ? &high : &low)) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s strides reach beyond int64 element indices (shape %s)", param,
                         ShapeString(tensor).c_str());
    }
  }
  if (low < 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s view reaches before the start of its storage: lowest element index is "
                       "%lld (offset %lld, shape %s)",
                       param, static_cast<long long>(low), static_cast<long long>(tensor.offset),
                       ShapeString(tensor).c_str());
  }
  uint64_t end_bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(high) + 1, element_size, &end_bytes) ||
      end_bytes > static_cast<uint64_t>(INT64_MAX)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s byte size overflows size_t (shape %s)", param,
                       ShapeString(tensor).c_str());
  }
  AllocationBlock block;
  if (tensor.data != nullptr && FindAllocation(tensor.data, &block)) {
    const uint64_t available = block.size - (reinterpret_cast<uintptr_t>(tensor.data) - block.base);
    if (end_bytes > available) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s view needs %llu bytes from its address but its aclrtMalloc block has "
                         "%llu (shape %s, offset %lld)",
                         param, static_cast<unsigned long long>(end_bytes),
                         static_cast<unsigned long long>(available), ShapeString(tensor).c_str(),
                         static_cast<long long>(tensor.offset));
    }
  }
  return Status::Ok();
}

}  // namespace openaclnn
