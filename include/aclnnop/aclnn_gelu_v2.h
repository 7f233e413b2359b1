// aclnnGeluV2: y = GELU(x), approximate 0 (erf form) or 1 (tanh form) (CANN's header of the same
// name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_GELU_V2_H_
#define OPENACLNN_ACLNNOP_ACLNN_GELU_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor* x, int64_t approximate,
                                                  aclTensor* y, uint64_t* workspaceSize,
                                                  aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGeluV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_GELU_V2_H_
