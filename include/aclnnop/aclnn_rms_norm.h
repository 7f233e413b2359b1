// aclnnRmsNorm: y = x * rstd * gamma with rstd = 1 / sqrt(mean(x^2) + epsilon) over the trailing
// dims that gamma covers (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_H_
#define OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma,
                                                   double epsilon, const aclTensor* yOut,
                                                   const aclTensor* rstdOut,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnRmsNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_RMS_NORM_H_
