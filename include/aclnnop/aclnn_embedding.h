// aclnnEmbedding: out[i..., :] = weight[indices[i...], :], a row gather from a 2-D table (CANN's
// header of the same name).
#ifndef OPENACLNN_ACLNNOP_ACLNN_EMBEDDING_H_
#define OPENACLNN_ACLNNOP_ACLNN_EMBEDDING_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor* weight,
                                                     const aclTensor* indices, const aclTensor* out,
                                                     uint64_t* workspaceSize,
                                                     aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnEmbedding(void* workspace, uint64_t workspaceSize,
                                     aclOpExecutor* executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_EMBEDDING_H_
