// aclnnDiv, aclnnDivs, aclnnInplaceDiv, aclnnInplaceDivs: out = self / other (true division)
// (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_DIV_H_
#define OPENACLNN_ACLNNOP_ACLNN_DIV_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                               aclTensor* out, uint64_t* workspaceSize,
                                               aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                                aclTensor* out, uint64_t* workspaceSize,
                                                aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceDivGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other,
                                                      uint64_t* workspaceSize,
                                                      aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceDivsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                                       uint64_t* workspaceSize,
                                                       aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnDiv(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream);
ACLNN_API aclnnStatus aclnnDivs(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceDiv(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceDivs(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_DIV_H_
