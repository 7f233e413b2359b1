#pragma once
// nnopbase's thread-local memory hooks, which framework adapters resolve with dlsym on
// libopapi.so and call around each two-phase call (CANN has no public header for them).

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY int InitHugeMemThreadLocal(void* arg, bool sync);
ACL_FUNC_VISIBILITY void UnInitHugeMemThreadLocal(void* arg, bool sync);
ACL_FUNC_VISIBILITY void ReleaseHugeMem(void* arg, bool sync);

#ifdef __cplusplus
}
#endif
