// aclnnDropoutDoMask: out = self / (1 - prob) where the mask bit is 1, 0 where it is 0 (CANN's
// header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_DROPOUT_DO_MASK_H_
#define OPENACLNN_ACLNNOP_ACLNN_DROPOUT_DO_MASK_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDropoutDoMaskGetWorkspaceSize(const aclTensor* self,
                                                         const aclTensor* mask, double prob,
                                                         aclTensor* out, uint64_t* workspaceSize,
                                                         aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnDropoutDoMask(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_DROPOUT_DO_MASK_H_
