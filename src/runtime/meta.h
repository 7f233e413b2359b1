#pragma once
// The concrete types behind acl_meta.h's opaque handles.

#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;  // one per view dim, in elements
  std::vector<int64_t> storage_dims;
  int64_t offset = 0;  // in elements
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  void* data = nullptr;  // start of storage
};

struct aclScalar {
  aclDataType dtype = ACL_DT_UNDEFINED;
  alignas(16) unsigned char value[16] = {};
};

struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};
struct aclTensorList {
  std::vector<const aclTensor*> tensors;
};
struct aclScalarList {
  std::vector<const aclScalar*> scalars;
};
