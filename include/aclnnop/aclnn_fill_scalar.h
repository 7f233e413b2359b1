// aclnnInplaceFillScalar: selfRef = value (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_FILL_SCALAR_H_
#define OPENACLNN_ACLNNOP_ACLNN_FILL_SCALAR_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor* selfRef,
                                                             const aclScalar* value,
                                                             uint64_t* workspaceSize,
                                                             aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnInplaceFillScalar(void* workspace, uint64_t workspaceSize,
                                             aclOpExecutor* executor, aclrtStream stream);
#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_FILL_SCALAR_H_
