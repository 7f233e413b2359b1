/* The operator-compiler options CANN programs set at start-up (libacl_op_compiler). openaclnn
 * compiles nothing: the options are checked, recorded and read back, and change no result. */
#ifndef OPENACLNN_ACL_ACL_OP_COMPILER_H_
#define OPENACLNN_ACL_ACL_OP_COMPILER_H_

#include <stddef.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclCompileType { ACL_COMPILE_SYS, ACL_COMPILE_UNREGISTERED } aclopCompileType;

typedef enum {
  ACL_PRECISION_MODE = 0,
  ACL_AICORE_NUM = 1,
  ACL_AUTO_TUNE_MODE = 2,
  ACL_OP_SELECT_IMPL_MODE = 3,
  ACL_OPTYPELIST_FOR_IMPLMODE = 4,
  ACL_OP_DEBUG_LEVEL = 5,
  ACL_DEBUG_DIR = 6,
  ACL_OP_COMPILER_CACHE_MODE = 7,
  ACL_OP_COMPILER_CACHE_DIR = 8,
  ACL_OP_PERFORMANCE_MODE = 9,
  ACL_OP_JIT_COMPILE = 10,
  ACL_OP_DETERMINISTIC = 11,
  ACL_CUSTOMIZE_DTYPES = 12,
  ACL_OP_PRECISION_MODE = 13,
  ACL_ALLOW_HF32 = 14,
  ACL_PRECISION_MODE_V2 = 15,
  ACL_OP_DEBUG_OPTION = 16
} aclCompileOpt;

typedef enum aclOpCompileFlag {
  ACL_OPCOMPILE_DEFAULT = 0,
  ACL_OPCOMPILE_FUZZ = 1
} aclOpCompileFlag;

ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char* value);
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt);
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length);
ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(aclOpCompileFlag flag);

#ifdef __cplusplus
}
#endif

#endif  // OPENACLNN_ACL_ACL_OP_COMPILER_H_
