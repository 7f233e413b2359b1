// aclnnInplaceCopy: selfRef = src, broadcast to selfRef's shape and converted to its dtype (CANN's
// header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_COPY_H_
#define OPENACLNN_ACLNNOP_ACLNN_COPY_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor* selfRef, const aclTensor* src,
                                                       uint64_t* workspaceSize,
                                                       aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceCopy(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_COPY_H_
