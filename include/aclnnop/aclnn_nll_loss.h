// aclnnNLLLoss: the negative log-likelihood loss of log-probabilities `self` ((N, C) or (C)) at
// class indices `target`, with class weights, ignoreIndex and reduction none / mean / sum, and the
// sum of the weights used (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_NLL_LOSS_H_
#define OPENACLNN_ACLNNOP_ACLNN_NLL_LOSS_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                                   const aclTensor* weight, int64_t reduction,
                                                   int64_t ignoreIndex, aclTensor* out,
                                                   aclTensor* totalWeightOut,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnNLLLoss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_NLL_LOSS_H_
