// aclnnMm: out = self @ mat2 for 2-D operands (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_MM_H_
#define OPENACLNN_ACLNNOP_ACLNN_MM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2,
                                              aclTensor* out, int8_t cubeMathType,
                                              uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnMm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_MM_H_
