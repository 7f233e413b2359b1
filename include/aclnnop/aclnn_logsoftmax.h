// aclnnLogSoftmax: x - max - log(sum(exp(x - max))) along one dim (CANN's header of the same name);
// src/ops/softmax implements it.
#ifndef OPENACLNN_ACLNNOP_ACLNN_LOGSOFTMAX_H_
#define OPENACLNN_ACLNNOP_ACLNN_LOGSOFTMAX_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim,
                                                      aclTensor* out, uint64_t* workspaceSize,
                                                      aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnLogSoftmax(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_LOGSOFTMAX_H_
