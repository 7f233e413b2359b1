// aclnn initialisation (CANN's aclnn_base.h).
#ifndef OPENACLNN_ACLNN_ACLNN_BASE_H_
#define OPENACLNN_ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInit(const char* configPath);
ACLNN_API aclnnStatus aclnnFinalize();

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACLNN_ACLNN_BASE_H_
