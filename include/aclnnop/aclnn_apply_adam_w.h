// aclnnApplyAdamW: one AdamW step (decoupled weight decay, optional AMSGrad and maximize) on
// varRef, mRef and vRef in place, with every hyperparameter in a one-element tensor and the bias
// corrections from beta1Power and beta2Power (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_APPLY_ADAM_W_H_
#define OPENACLNN_ACLNNOP_ACLNN_APPLY_ADAM_W_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnApplyAdamWGetWorkspaceSize(
    aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, const aclTensor* beta1Power,
    const aclTensor* beta2Power, const aclTensor* lr, const aclTensor* weightDecay,
    const aclTensor* beta1, const aclTensor* beta2, const aclTensor* eps, const aclTensor* grad,
    const aclTensor* maxGradNormOptional, bool amsgrad, bool maximize, uint64_t* workspaceSize,
    aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnApplyAdamW(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_APPLY_ADAM_W_H_
