// aclnnApplyAdamWV2: one AdamW step (decoupled weight decay, optional AMSGrad and maximize) on
// varRef, mRef, vRef and maxGradNormOptionalRef in place, with the step count in a tensor (CANN's
// header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_APPLY_ADAM_W_V2_H_
#define OPENACLNN_ACLNNOP_ACLNN_APPLY_ADAM_W_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnApplyAdamWV2GetWorkspaceSize(
    aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, aclTensor* maxGradNormOptionalRef,
    const aclTensor* grad, const aclTensor* step, float lr, float beta1, float beta2,
    float weightDecay, float eps, bool amsgrad, bool maximize, uint64_t* workspaceSize,
    aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnApplyAdamWV2(void* workspace, uint64_t workspaceSize,
                                        aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_APPLY_ADAM_W_V2_H_
