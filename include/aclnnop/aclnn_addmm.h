// aclnnAddmm / aclnnInplaceAddmm: out = beta * self + alpha * (mat1 @ mat2) (CANN's header of the
// same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_ADDMM_H_
#define OPENACLNN_ACLNNOP_ACLNN_ADDMM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat1,
                                                 const aclTensor* mat2, const aclScalar* beta,
                                                 const aclScalar* alpha, aclTensor* out,
                                                 int8_t cubeMathType, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(
    const aclTensor* selfRef, const aclTensor* mat1, const aclTensor* mat2, const aclScalar* beta,
    const aclScalar* alpha, int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnAddmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceAddmm(void* workspace, uint64_t workspaceSize,
                                        aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_ADDMM_H_
