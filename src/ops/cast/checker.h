#pragma once
// Parameter validation of aclnnCast in CANN's order: nullptr (161001), then self's dtype, the
// shapes, the dtype argument and out's dtype (which must be that dtype), ranks (161002).

#include "aclnn/acl_meta.h"
#include "api/pointwise.h"

namespace openaclnn::cast {

Status CheckCast(const aclTensor* self, aclDataType dtype, const aclTensor* out,
                 pointwise::Problem* problem);

}  // namespace openaclnn::cast
