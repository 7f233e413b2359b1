// aclnnGlu: out = a * sigmoid(b), a and b the halves of self along dim (CANN's header of the same
// name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_GLU_H_
#define OPENACLNN_ACLNNOP_ACLNN_GLU_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGluGetWorkspaceSize(const aclTensor* self, int64_t dim,
                                               const aclTensor* out, uint64_t* workspaceSize,
                                               aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGlu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_GLU_H_
