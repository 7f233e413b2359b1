// The entry points framework adapters (torch_npu's operator plugin, MindSpore, torchair) resolve
// with dlsym on the handle of libopapi.so besides the aclnn functions: nnopbase's thread-local
// memory hooks, which they call around each two-phase call.
//
// In CANN these switch the calling thread to a large pre-reserved arena for the executors phase 1
// builds, and ReleaseHugeMem gives that arena back. openaclnn builds its executors on the heap and
// releases them at phase 2 (single-use) or aclDestroyAclOpExecutor (repeatable), so there is no
// arena to switch to: Init returns 0 (success) and the other two do nothing, in any order and any
// number of times, on any thread.
//
// The executor-cache hooks of torch_npu (InitPTACacheThreadLocal, SetPTAHashKey, CanUsePTACache,
// PTAGetExecCache, UnInitPTACacheThreadLocal) are deliberately not exported: adapters look them
// up and, finding none, run phase 1 on every call (docs/compat.md).

#include "runtime/adapter_hooks.h"

extern "C" {

ACL_FUNC_VISIBILITY int InitHugeMemThreadLocal(void* arg, bool sync) {
  (void)arg;
  (void)sync;
  return 0;
}

ACL_FUNC_VISIBILITY void UnInitHugeMemThreadLocal(void* arg, bool sync) {
  (void)arg;
  (void)sync;
}

ACL_FUNC_VISIBILITY void ReleaseHugeMem(void* arg, bool sync) {
  (void)arg;
  (void)sync;
}

}  // extern "C"
