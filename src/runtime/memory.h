#pragma once
// The allocation table: every block aclrtMalloc handed out.

#include <cstddef>
#include <cstdint>

namespace openaclnn {

struct AllocationBlock {
  uintptr_t base = 0;
  size_t size = 0;
  int32_t device = 0;
};

// Finds the aclrtMalloc block that contains `address`; false for any other memory.
bool FindAllocation(const void* address, AllocationBlock* block);

}  // namespace openaclnn
