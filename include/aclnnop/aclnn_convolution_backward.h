// aclnnConvTbcBackward: gradients of fairseq's temporal convolution in (Time, Batch, Channel)
// layout (declared in CANN's aclnn_convolution_backward.h).
#ifndef OPENACLNN_ACLNNOP_ACLNN_CONVOLUTION_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_CONVOLUTION_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConvTbcBackwardGetWorkspaceSize(
    const aclTensor* self, const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
    int64_t pad, int8_t cubeMathType, aclTensor* gradInput, aclTensor* gradWeight,
    aclTensor* gradBias, uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnConvTbcBackward(void* workspace, uint64_t workspaceSize,
                                           aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_CONVOLUTION_BACKWARD_H_
