#pragma once
// Parameter validation of aclnnReduceSumGetWorkspaceSize, in CANN's order: null pointers (161001),
// the dtypes of self and out, the dtype argument and its match with out, self's rank, the dims
// list, then (for a non-empty self) out's shape; every failure 161002 with a message naming the
// parameter, the expected and the actual value.

#include "aclnn/acl_meta.h"
#include "api/status.h"
#include "ops/reduce_sum/problem.h"

namespace openaclnn::reduce_sum {

Status CheckArguments(const aclTensor* self, const aclIntArray* dims, bool keep_dims,
                      aclDataType dtype, const aclTensor* out, Problem* problem);

}  // namespace openaclnn::reduce_sum
