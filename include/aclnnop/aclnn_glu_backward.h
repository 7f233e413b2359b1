// aclnnGluBackward: the gradient of GLU, both halves written into out (self's shape) (CANN's header
// of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_GLU_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_GLU_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGluBackwardGetWorkspaceSize(const aclTensor* gradOut,
                                                       const aclTensor* self, int64_t dim,
                                                       const aclTensor* out,
                                                       uint64_t* workspaceSize,
                                                       aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGluBackward(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_GLU_BACKWARD_H_
