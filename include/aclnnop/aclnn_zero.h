// aclnnInplaceZero: selfRef = 0 (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_ZERO_H_
#define OPENACLNN_ACLNNOP_ACLNN_ZERO_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize,
                                                       aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceZero(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_ZERO_H_
