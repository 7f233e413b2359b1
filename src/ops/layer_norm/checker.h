#pragma once
// Parameter validation of the three LayerNorm forward phase-1 functions, in the order of the
// forward spec A.5 with decisions E1 to E3.

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "api/status.h"
#include "ops/layer_norm/problem.h"

namespace openaclnn::layer_norm {

// Checks steps 2 to 7 of spec A.5 and the extent of every tensor that will be read or written.
// Returns 161001 / 161002 with a message naming the parameter, the expected and the actual value;
// on success fills `problem`. impl_mode is 0 for aclnnLayerNorm and aclnnFastLayerNorm.
Status CheckArguments(const aclTensor* input, const aclIntArray* normalized_shape,
                      const aclTensor* weight, const aclTensor* bias, double eps,
                      const aclTensor* out, const aclTensor* mean, const aclTensor* rstd,
                      int32_t impl_mode, Problem* problem);

}  // namespace openaclnn::layer_norm
