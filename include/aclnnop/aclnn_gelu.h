// aclnnGelu: out = GELU(self), CANN's tanh form (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_GELU_H_
#define OPENACLNN_ACLNNOP_ACLNN_GELU_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor* self, aclTensor* out,
                                                uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGelu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_GELU_H_
