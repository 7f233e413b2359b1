#pragma once
// Parameter validation of aclnnConvTbcGetWorkspaceSize in the order of the forward spec B.6, with
// decisions E5 to E8.

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "api/status.h"
#include "ops/conv_tbc/problem.h"

namespace openaclnn::conv_tbc_forward {

// Returns 161001 / 161002 with a message naming the parameter, the expected and the actual value;
// on success fills `problem`.
Status CheckArguments(const aclTensor* self, const aclTensor* weight, const aclTensor* bias,
                      int64_t pad, const aclTensor* out, int8_t cube_math_type, Problem* problem);

}  // namespace openaclnn::conv_tbc_forward
