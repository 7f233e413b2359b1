// aclnnGeluBackward: the gradient of GELU (erf form), gradOutput and self broadcast (CANN's header
// of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_GELU_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_GELU_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor* gradOutput,
                                                        const aclTensor* self, aclTensor* gradInput,
                                                        uint64_t* workspaceSize,
                                                        aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGeluBackward(void* workspace, uint64_t workspaceSize,
                                        aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_GELU_BACKWARD_H_
