#pragma once
// A validated, frozen copy of an aclTensor's metadata, as plans keep it. Kernels receive the
// storage address separately (it can be rebound on repeatable executors).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "api/layout.h"
#include "api/status.h"

struct aclTensor;

namespace openaclnn {

constexpr int kMaxRank = 8;
static_assert(kMaxRank <= kMaxLayoutRank, "every view must fit the layout module");

struct TensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  int rank = 0;
  std::array<int64_t, kMaxRank> dims{};
  std::array<int64_t, kMaxRank> strides{};  // in elements
  int64_t offset = 0;                       // in elements

  int64_t Numel() const;  // 0 if any dim is <= 0, INT64_MAX on overflow
  bool IsContiguous() const;
  // "[2, 3, 4]"
  std::string ShapeString() const;
  // Address of the first view element given the storage base.
  void* First(void* storage_base) const;
  const void* First(const void* storage_base) const;
};

// The layout functions of api/layout.h for one frozen view.
inline int64_t ElementOffset(const TensorDesc& d, int64_t linear) {
  return ElementOffset(d.rank, d.dims.data(), d.strides.data(), linear);
}
inline bool TrailingContiguous(const TensorDesc& d, int from) {
  return TrailingContiguous(d.rank, d.dims.data(), d.strides.data(), from);
}
inline bool CertainlyDisjoint(const TensorDesc& d) {
  return CertainlyDisjoint(d.rank, d.dims.data(), d.strides.data());
}
// The view's dims, collapsed (one stride set).
inline MultiStrided<1> CollapsedView(const TensorDesc& d) {
  const int64_t* strides[1] = {d.strides.data()};
  return Collapse<1>(d.dims.data(), 0, d.rank, strides);
}

// Copies the metadata of `tensor` (rank <= kMaxRank, checked by the caller) into `desc`.
void DescribeTensor(const aclTensor& tensor, TensorDesc* desc);

// "[2, 3, 4]".
std::string DimsString(const std::vector<int64_t>& dims);
// Product of dims[from, to): 0 if any is <= 0, INT64_MAX on overflow.
int64_t SaturatingProduct(const std::vector<int64_t>& dims, size_t from, size_t to);
// 161002 naming `param` unless the tensor is FLOAT, FLOAT16 or BFLOAT16.
Status CheckComputeFloat(const aclTensor& tensor, const char* param);

// "[2, 3, 4]" for any aclTensor view.
std::string ShapeString(const aclTensor& tensor);
// 161002 naming `param` unless the tensor has at most kMaxRank dims.
Status CheckMaxRank(const aclTensor& tensor, const char* param);
// 161002 naming `param`, the accepted `list` ("FLOAT, FLOAT16, BFLOAT16") and `got`, unless `ok`.
Status CheckDtypeListed(bool ok, const char* param, const char* list, aclDataType got);
int64_t Numel(const aclTensor& tensor);  // product of view dims (saturating at INT64_MAX)

// The most elements a non-empty tensor view may have: 2^40 (2 TiB at 16 bits) is beyond the
// memory of every device this library drives, and the bound keeps every workspace size an operator
// derives from view dims far from 64-bit overflow, even for views that repeat elements (stride 0).
inline constexpr int64_t kMaxViewElements = int64_t{1} << 40;

// On a CUDA device: 161002 naming `param` unless `data` (when not null) is memory of the current
// GPU. On the CPU device any address is accepted.
Status CheckResidence(const void* data, const char* param);

// Checks the tensor's addressable bytes: element count at most kMaxViewElements, byte extent
// within int64/size_t, and, when the storage address lies inside a block from aclrtMalloc, every
// view element inside that block. Plain host memory is accepted on the CPU device. Returns 161002
// naming `param` otherwise.
Status CheckTensorExtent(const aclTensor& tensor, const char* param);
// The same check for a frozen view whose storage starts at `data`.
Status CheckTensorExtent(const TensorDesc& desc, const void* data, const char* param);

}  // namespace openaclnn
