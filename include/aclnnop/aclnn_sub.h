// aclnnSub, aclnnSubs, aclnnInplaceSub, aclnnInplaceSubs: out = self - alpha * other (CANN's header
// of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_SUB_H_
#define OPENACLNN_ACLNNOP_ACLNN_SUB_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                               const aclScalar* alpha, aclTensor* out,
                                               uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnSub(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream);
ACLNN_API aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                                const aclScalar* alpha, aclTensor* out,
                                                uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnSubs(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other,
                                                      const aclScalar* alpha,
                                                      uint64_t* workspaceSize,
                                                      aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceSub(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                                       const aclScalar* alpha,
                                                       uint64_t* workspaceSize,
                                                       aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceSubs(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_SUB_H_
