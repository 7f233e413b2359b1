// aclnnGeluBackwardV2: the gradient of GELU, approximate "none" (erf) or "tanh" (CANN's header of
// the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_GELU_BACKWARD_V2_H_
#define OPENACLNN_ACLNNOP_ACLNN_GELU_BACKWARD_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeluBackwardV2GetWorkspaceSize(const aclTensor* gradOutput,
                                                          const aclTensor* self, char* approximate,
                                                          aclTensor* gradInput,
                                                          uint64_t* workspaceSize,
                                                          aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGeluBackwardV2(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_GELU_BACKWARD_V2_H_
