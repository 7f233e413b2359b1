#pragma once
// Argument checks of aclnnConvTbcBackwardGetWorkspaceSize in CANN's order (spec 5.3, with
// decision D3: an empty self is accepted).

#include <cstdint>

#include "api/status.h"
#include "ops/conv_tbc_backward/problem.h"

struct aclTensor;

namespace openaclnn::conv_tbc {

// Checks, in order: nulls (161001); dtypes, formats, ranks and shapes, pad, cubeMathType (161002);
// then that every tensor read or written lies inside its storage (161002). On success fills
// `problem` (deterministic mode included).
Status CheckAndDescribe(const aclTensor* self, const aclTensor* input, const aclTensor* weight,
                        const aclTensor* bias, int64_t pad, int8_t cube_math_type,
                        const aclTensor* grad_input, const aclTensor* grad_weight,
                        const aclTensor* grad_bias, Problem* problem);

}  // namespace openaclnn::conv_tbc
