// aclnnReduceSum: the sum of a tensor over a list of dims, in a chosen output dtype (CANN's header
// of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_REDUCE_SUM_H_
#define OPENACLNN_ACLNNOP_ACLNN_REDUCE_SUM_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims,
                                                     bool keepDims, aclDataType dtype,
                                                     aclTensor* out, uint64_t* workspaceSize,
                                                     aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnReduceSum(void* workspace, uint64_t workspaceSize,
                                     aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_REDUCE_SUM_H_
