// aclnnEmbeddingDenseBackward: the gradient of aclnnEmbedding's table, out[w, :] = sum of the grad
// rows whose index is w (optionally divided by how often w occurs; row paddingIdx left zero)
// (CANN's header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_EMBEDDING_DENSE_BACKWARD_H_
#define OPENACLNN_ACLNNOP_ACLNN_EMBEDDING_DENSE_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(
    const aclTensor* grad, const aclTensor* indices, uint64_t numWeights, uint64_t paddingIdx,
    bool scaleGradByFreq, const aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnEmbeddingDenseBackward(void* workspace, uint64_t workspaceSize,
                                                  aclOpExecutor* executor,
                                                  const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_EMBEDDING_DENSE_BACKWARD_H_
