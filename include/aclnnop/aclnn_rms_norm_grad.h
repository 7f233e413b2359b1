// aclnnRmsNormGrad: the gradients of RmsNorm with respect to x and gamma, from dy, x, the forward's
// rstd and gamma (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_
#define OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRmsNormGradGetWorkspaceSize(
    const aclTensor* dy, const aclTensor* x, const aclTensor* rstd, const aclTensor* gamma,
    const aclTensor* dxOut, const aclTensor* dgammaOut, uint64_t* workspaceSize,
    aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnRmsNormGrad(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_
