// aclnnMul, aclnnMuls, aclnnInplaceMul, aclnnInplaceMuls: out = self * other (CANN's header of the
// same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_MUL_H_
#define OPENACLNN_ACLNNOP_ACLNN_MUL_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                                aclTensor* out, uint64_t* workspaceSize,
                                                aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                               aclTensor* out, uint64_t* workspaceSize,
                                               aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                                       uint64_t* workspaceSize,
                                                       aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other,
                                                      uint64_t* workspaceSize,
                                                      aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnMuls(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream);
ACLNN_API aclnnStatus aclnnMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceMuls(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceMul(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_MUL_H_
