#pragma once
// Parameter validation of aclnnLayerNormBackwardGetWorkspaceSize, in the order of spec 6.4.

#include "aclnn/acl_meta.h"
#include "api/status.h"
#include "ops/layer_norm_backward/problem.h"

namespace openaclnn::layer_norm_backward {

// Checks steps 2 to 6 of spec 6.4 (plus decision D4: the trailing dims of input must equal
// normalizedShape, all of them) and the extent of every tensor that will be read or written.
// Returns 161001 / 161002 with a message naming the parameter, the expected and the actual value;
// on success fills `problem`.
Status CheckArguments(const aclTensor* grad_out, const aclTensor* input,
                      const aclIntArray* normalized_shape, const aclTensor* mean,
                      const aclTensor* rstd, const aclTensor* weight, const aclTensor* bias,
                      const aclBoolArray* output_mask, const aclTensor* grad_input,
                      const aclTensor* grad_weight, const aclTensor* grad_bias, Problem* problem);

}  // namespace openaclnn::layer_norm_backward
