#pragma once
// Parameter validation of aclnnInplaceCopy in CANN's order: nullptr (161001), then selfRef's and
// src's ranks, src broadcasting to selfRef's shape, and both dtypes (161002). Any supported dtype
// converts to any other (docs/ops/pointwise.md).

#include "aclnn/acl_meta.h"
#include "api/pointwise.h"

namespace openaclnn::copy {

Status CheckInplaceCopy(const aclTensor* self_ref, const aclTensor* src,
                        pointwise::Problem* problem);

}  // namespace openaclnn::copy
