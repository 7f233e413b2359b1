/* The header CANN samples include: the whole runtime surface openaclnn provides. */
#ifndef OPENACLNN_ACL_ACL_H_
#define OPENACLNN_ACL_ACL_H_

#include "acl/acl_rt.h"

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 0
#define ACL_PATCH_VERSION 0

#endif  // OPENACLNN_ACL_ACL_H_
