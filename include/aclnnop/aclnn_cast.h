// aclnnCast: out = self converted to dtype (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_CAST_H_
#define OPENACLNN_ACLNNOP_ACLNN_CAST_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor* self, const aclDataType dtype,
                                                aclTensor* out, uint64_t* workspaceSize,
                                                aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnCast(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_CAST_H_
