// aclnnSoftmaxBackward: out = output * (gradOutput - sum(gradOutput * output)) along dim (CANN's
// header of the same name); src/ops/softmax implements it.
#ifndef OPENACLNN_ACLNNOP_ACLNN_SOFTMAX_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_SOFTMAX_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor* gradOutput,
                                                           const aclTensor* output, int64_t dim,
                                                           aclTensor* out, uint64_t* workspaceSize,
                                                           aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnSoftmaxBackward(void* workspace, uint64_t workspaceSize,
                                           aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_SOFTMAX_BACKWARD_H_
