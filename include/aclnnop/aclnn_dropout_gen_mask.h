// aclnnDropoutGenMask, aclnnDropoutGenMaskV2 and aclnnDropoutGenMaskV2Tensor: the bit mask of a
// dropout with drop probability prob from a (seed, offset) pair (CANN's header of the same name;
// the Philox rule is in docs/ops/dropout.md).
#ifndef OPENACLNN_ACLNNOP_ACLNN_DROPOUT_GEN_MASK_H_
#define OPENACLNN_ACLNNOP_ACLNN_DROPOUT_GEN_MASK_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDropoutGenMaskGetWorkspaceSize(const aclIntArray* shape, double prob,
                                                          int64_t seed, int64_t offset,
                                                          aclTensor* out, uint64_t* workspaceSize,
                                                          aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnDropoutGenMask(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnDropoutGenMaskV2GetWorkspaceSize(const aclIntArray* shape, double prob,
                                                            int64_t seed, int64_t offset,
                                                            aclDataType probDataType,
                                                            aclTensor* out, uint64_t* workspaceSize,
                                                            aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnDropoutGenMaskV2(void* workspace, uint64_t workspaceSize,
                                            aclOpExecutor* executor, aclrtStream stream);

// The seed is seedTensor's INT64 element and the offset offsetTensor's INT64 element plus
// `offset`, both read from device memory at launch.
ACLNN_API aclnnStatus aclnnDropoutGenMaskV2TensorGetWorkspaceSize(
    const aclIntArray* shape, double prob, const aclTensor* seedTensor,
    const aclTensor* offsetTensor, int64_t offset, aclDataType probDataType, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);
ACLNN_API aclnnStatus aclnnDropoutGenMaskV2Tensor(void* workspace, uint64_t workspaceSize,
                                                  aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_DROPOUT_GEN_MASK_H_
