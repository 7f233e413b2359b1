#pragma once
// Parameter validation of the four softmax GetWorkspaceSize functions, in CANN's order: null
// pointers (161001), dtypes, dim range, shapes, then the extent of every view; every failure
// 161002 with a message naming the parameter, the expected and the actual value.

#include "aclnn/acl_meta.h"
#include "api/status.h"
#include "ops/softmax/problem.h"

namespace openaclnn::softmax {

Status CheckForward(Kind kind, const aclTensor* self, int64_t dim, const aclTensor* out,
                    Problem* problem);
Status CheckBackward(Kind kind, const aclTensor* grad_output, const aclTensor* output, int64_t dim,
                     const aclTensor* out, Problem* problem);

}  // namespace openaclnn::softmax
