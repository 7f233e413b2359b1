// aclnnConvTbc: fairseq's temporal convolution in (Time, Batch, Channel) layout. CANN's header of
// this name also declares aclnnConvolution and aclnnConvDepthwise2d, which openaclnn does not
// provide.
#ifndef OPENACLNN_ACLNNOP_ACLNN_CONVOLUTION_H_
#define OPENACLNN_ACLNNOP_ACLNN_CONVOLUTION_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConvTbcGetWorkspaceSize(const aclTensor* self, const aclTensor* weight,
                                                   const aclTensor* bias, const int64_t pad,
                                                   aclTensor* output, int8_t cubeMathType,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnConvTbc(void* workspace, const uint64_t workspaceSize,
                                   aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNNOP_ACLNN_CONVOLUTION_H_
