#pragma once
// Parameter validation of aclnnInplaceZero, aclnnInplaceOne and aclnnInplaceFillScalar in CANN's
// order: nullptr (161001), then selfRef's dtype, the value's dtype and its conversion to selfRef's
// (FillScalar), selfRef's rank (161002).

#include "aclnn/acl_meta.h"
#include "api/pointwise.h"

namespace openaclnn::fill {

// value: the scalar to write; nullptr for Zero (0) and One (1), given by `constant`.
Status CheckFill(const aclTensor* self_ref, const aclScalar* value, bool has_value_param,
                 int64_t constant, const char* op_key, pointwise::Problem* problem);

}  // namespace openaclnn::fill
