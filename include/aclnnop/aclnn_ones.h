// aclnnInplaceOne: selfRef = 1 (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_ONES_H_
#define OPENACLNN_ACLNNOP_ACLNN_ONES_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceOneGetWorkspaceSize(const aclTensor* selfRef,
                                                      uint64_t* workspaceSize,
                                                      aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceOne(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_ONES_H_
