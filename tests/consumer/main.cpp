// Links through find_package(openaclnn) and makes one runtime round trip.
#include <cstdio>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  void* p = nullptr;
  if (aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
  int64_t dims[2] = {2, 8};
  aclTensor* t = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, p);
  int64_t offset = -1;
  const bool ok = t != nullptr && aclGetViewOffset(t, &offset) == 0 && offset == 0;
  aclDestroyTensor(t);
  aclrtFree(p);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("find_package consumer: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
