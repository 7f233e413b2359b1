// Device and host memory, with the allocation table. On the CPU device "device" memory is aligned
// host memory; on a CUDA device it comes from cudaMalloc (and host memory from cudaMallocHost, so
// copies from it run asynchronously).

#include "runtime/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "acl/acl_rt.h"
#include "backend/cuda/runtime.h"
#include "runtime/device.h"
#include "runtime/error.h"
#include "runtime/stream.h"

namespace openaclnn {
namespace {

constexpr size_t kDeviceAlignment = 64;

struct Table {
  std::mutex mutex;
  std::map<uintptr_t, AllocationBlock> device_blocks;  // keyed by base address
  std::map<uintptr_t, size_t> host_blocks;
};

Table& TheTable() {
  static Table* table = new Table;
  return *table;
}

aclError Fail(aclError code, const std::string& message) {
  SetRecentError(message);
  return code;
}

std::string Hex(const void* p) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%p", p);
  return buffer;
}

// Allocation size as CANN's A2/A3 runtime reserves it: a multiple of 32 bytes plus 32, then a
// multiple of the alignment. False on overflow.
bool PaddedSize(size_t size, size_t* padded) {
  if (size > SIZE_MAX - 32 - 32 - kDeviceAlignment) return false;
  size_t n = (size + 31) / 32 * 32 + 32;
  n = (n + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  *padded = n;
  return true;
}

// The CPU device's memory is the machine's: a request larger than physical memory cannot succeed
// and is refused before it reaches the allocator.
size_t DeviceMemoryBytes() {
  static const size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return SIZE_MAX;
    return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
  }();
  return bytes;
}

// The policies that ask for huge pages (CANN's device memory comes in 2 MiB or 1 GiB pages for
// them): ACL_MEM_MALLOC_HUGE_FIRST, _HUGE_ONLY, _HUGE1G_ONLY and their P2P forms. The high bits
// (ACL_MEM_TYPE_*, ACL_MEM_ACCESS_*) do not change it.
bool WantsHugePages(aclrtMemMallocPolicy policy) {
  const unsigned page_kind = static_cast<unsigned>(policy) & 0xFFu;
  return page_kind != ACL_MEM_MALLOC_NORMAL_ONLY && page_kind != ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
}

void* AllocateAligned(size_t size, bool huge_pages) {
  size_t padded = 0;
  if (size > DeviceMemoryBytes() || !PaddedSize(size, &padded)) return nullptr;
  // Blocks of at least a huge page, where the policy asks for huge pages, start on a 2 MiB
  // boundary and are marked for transparent huge pages (a hint; on kernels that run THP in
  // madvise mode, the default on Debian, nothing else gives them). Streaming kernels read such
  // blocks with far fewer TLB misses.
  constexpr size_t kHugePage = size_t{2} << 20;
  if (huge_pages && padded >= kHugePage) {
    void* p = nullptr;
    if (posix_memalign(&p, kHugePage, padded) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, padded / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
    return p;
  }
  return std::aligned_alloc(kDeviceAlignment, padded);
}

// For a range that starts inside a device block, checks it ends inside that block too.
aclError CheckRange(const char* api, const char* what, const void* p, size_t count) {
  AllocationBlock block;
  if (count == 0 || !FindAllocation(p, &block)) return ACL_SUCCESS;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  if (count > block.size - (start - block.base)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                std::string(api) + ": " + what + " range of " + std::to_string(count) +
                    " bytes at " + Hex(p) + " runs past the end of its aclrtMalloc block (" +
                    std::to_string(block.size - (start - block.base)) + " bytes left)");
  }
  return ACL_SUCCESS;
}

aclError CheckCopy(const char* api, void* dst, size_t destMax, const void* src, size_t count,
                   aclrtMemcpyKind kind) {
  if (count > destMax) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": count (" + std::to_string(count) +
                                             ") must not exceed destMax (" +
                                             std::to_string(destMax) + ")");
  }
  if (static_cast<int>(kind) < ACL_MEMCPY_HOST_TO_HOST ||
      static_cast<int>(kind) > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": kind " +
                                             std::to_string(static_cast<int>(kind)) +
                                             " is not an aclrtMemcpyKind (0 to 7)");
  }
  if (count > 0 && (dst == nullptr || src == nullptr)) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " +
                                             (dst == nullptr ? "dst" : "src") +
                                             " must not be nullptr when count > 0");
  }
  aclError e = CheckRange(api, "destination", dst, count);
  if (e != ACL_SUCCESS) return e;
  return CheckRange(api, "source", src, count);
}

aclError CheckSet(const char* api, void* devPtr, size_t maxCount, size_t count) {
  if (count > maxCount) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": count (" + std::to_string(count) +
                                             ") must not exceed maxCount (" +
                                             std::to_string(maxCount) + ")");
  }
  if (count > 0 && devPtr == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr must not be nullptr");
  }
  return CheckRange(api, "destination", devPtr, count);
}

bool OnCuda() { return ProcessDeviceKind() == DeviceKind::kCuda; }

aclError FailStatus(const char* api, const RtStatus& status) {
  return Fail(status.code(), std::string(api) + ": " + status.message());
}

// The current GPU's CUDA stream behind an aclrtStream, for the asynchronous copies.
aclError ResolveCudaStream(const char* api, aclrtStream handle, Stream** stream) {
  const aclError e = ResolveStream(handle, stream);
  if (e != ACL_SUCCESS) return e;
  if (CudaStreamOf(*stream) == nullptr) {
    return Fail(ACL_ERROR_RT_STREAM_CONTEXT,
                std::string(api) + ": the stream does not belong to a CUDA device");
  }
  return ACL_SUCCESS;
}

}  // namespace

bool FindAllocation(const void* address, AllocationBlock* block) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  Table& table = TheTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.device_blocks.upper_bound(a);
  if (it == table.device_blocks.begin()) return false;
  --it;
  const AllocationBlock& b = it->second;
  if (a - b.base >= b.size) return false;
  *block = b;
  return true;
}

}  // namespace openaclnn

using openaclnn::Fail;

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is null");
  if (size == 0) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size must be greater than 0, got 0");
  }
  void* p = nullptr;
  if (openaclnn::OnCuda()) {
    if (openaclnn::CurrentDevice() < 0) {
      return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                  "aclrtMalloc: this thread has no current GPU: call aclrtSetDevice first");
    }
    const openaclnn::RtStatus st = openaclnn::cuda::Malloc(&p, size);
    if (!st.ok()) {
      *devPtr = nullptr;
      return openaclnn::FailStatus("aclrtMalloc", st);
    }
  } else {
    p = openaclnn::AllocateAligned(size, openaclnn::WantsHugePages(policy));
  }
  if (p == nullptr) {
    *devPtr = nullptr;
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                "aclrtMalloc: could not allocate " + std::to_string(size) +
                    " bytes (the device has " + std::to_string(openaclnn::DeviceMemoryBytes()) +
                    ")");
  }
  openaclnn::Table& table = openaclnn::TheTable();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    const int32_t device = openaclnn::CurrentDevice();
    table.device_blocks[reinterpret_cast<uintptr_t>(p)] =
        openaclnn::AllocationBlock{reinterpret_cast<uintptr_t>(p), size, device < 0 ? 0 : device};
  }
  *devPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFree(void* devPtr) {
  if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is null");
  openaclnn::Table& table = openaclnn::TheTable();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    auto it = table.device_blocks.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == table.device_blocks.end()) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: " + openaclnn::Hex(devPtr) +
                                               " is not the start of a live aclrtMalloc block");
    }
    table.device_blocks.erase(it);
  }
  if (openaclnn::OnCuda()) {
    const openaclnn::RtStatus st = openaclnn::cuda::Free(devPtr);
    if (!st.ok()) return openaclnn::FailStatus("aclrtFree", st);
    return ACL_SUCCESS;
  }
  std::free(devPtr);
  return ACL_SUCCESS;
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  if (hostPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is null");
  if (size == 0) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size must be greater than 0, got 0");
  }
  void* p = nullptr;
  if (openaclnn::OnCuda()) {
    const openaclnn::RtStatus st = openaclnn::cuda::MallocHost(&p, size);
    if (!st.ok()) {
      *hostPtr = nullptr;
      return openaclnn::FailStatus("aclrtMallocHost", st);
    }
  } else {
    p = openaclnn::AllocateAligned(size, false);
  }
  if (p == nullptr) {
    *hostPtr = nullptr;
    return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                "aclrtMallocHost: could not allocate " + std::to_string(size) + " bytes");
  }
  openaclnn::Table& table = openaclnn::TheTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.host_blocks[reinterpret_cast<uintptr_t>(p)] = size;
  *hostPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void* hostPtr) {
  if (hostPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is null");
  openaclnn::Table& table = openaclnn::TheTable();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    if (table.host_blocks.erase(reinterpret_cast<uintptr_t>(hostPtr)) == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: " + openaclnn::Hex(hostPtr) +
                                               " is not the start of a live aclrtMallocHost block");
    }
  }
  if (openaclnn::OnCuda()) {
    const openaclnn::RtStatus st = openaclnn::cuda::FreeHost(hostPtr);
    return st.ok() ? ACL_SUCCESS : openaclnn::FailStatus("aclrtFreeHost", st);
  }
  std::free(hostPtr);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  const aclError e = openaclnn::CheckCopy("aclrtMemcpy", dst, destMax, src, count, kind);
  if (e != ACL_SUCCESS) return e;
  if (count > 0 && openaclnn::OnCuda()) {
    const openaclnn::RtStatus st = openaclnn::cuda::Memcpy(dst, src, count);
    return st.ok() ? ACL_SUCCESS : openaclnn::FailStatus("aclrtMemcpy", st);
  }
  if (count > 0) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  aclError e = openaclnn::CheckCopy("aclrtMemcpyAsync", dst, destMax, src, count, kind);
  if (e != ACL_SUCCESS) return e;
  if (openaclnn::OnCuda()) {
    openaclnn::Stream* s = nullptr;
    e = openaclnn::ResolveCudaStream("aclrtMemcpyAsync", stream, &s);
    if (e != ACL_SUCCESS || count == 0) return e;
    const openaclnn::RtStatus st =
        openaclnn::cuda::MemcpyAsync(dst, src, count, openaclnn::CudaStreamOf(s));
    return st.ok() ? ACL_SUCCESS : openaclnn::FailStatus("aclrtMemcpyAsync", st);
  }
  openaclnn::Stream* s = nullptr;
  e = openaclnn::ResolveStream(stream, &s);
  if (e != ACL_SUCCESS) return e;
  openaclnn::EnqueueTask(s, [dst, src, count] {
    if (count > 0) std::memmove(dst, src, count);
    return openaclnn::RtStatus::Ok();
  });
  return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  const aclError e = openaclnn::CheckSet("aclrtMemset", devPtr, maxCount, count);
  if (e != ACL_SUCCESS) return e;
  if (count > 0 && openaclnn::OnCuda()) {
    const openaclnn::RtStatus st = openaclnn::cuda::Memset(devPtr, value, count);
    return st.ok() ? ACL_SUCCESS : openaclnn::FailStatus("aclrtMemset", st);
  }
  if (count > 0) std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  aclError e = openaclnn::CheckSet("aclrtMemsetAsync", devPtr, maxCount, count);
  if (e != ACL_SUCCESS) return e;
  if (openaclnn::OnCuda()) {
    openaclnn::Stream* s = nullptr;
    e = openaclnn::ResolveCudaStream("aclrtMemsetAsync", stream, &s);
    if (e != ACL_SUCCESS || count == 0) return e;
    const openaclnn::RtStatus st =
        openaclnn::cuda::MemsetAsync(devPtr, value, count, openaclnn::CudaStreamOf(s));
    return st.ok() ? ACL_SUCCESS : openaclnn::FailStatus("aclrtMemsetAsync", st);
  }
  openaclnn::Stream* s = nullptr;
  e = openaclnn::ResolveStream(stream, &s);
  if (e != ACL_SUCCESS) return e;
  openaclnn::EnqueueTask(s, [devPtr, value, count] {
    if (count > 0) std::memset(devPtr, value, count);
    return openaclnn::RtStatus::Ok();
  });
  return ACL_SUCCESS;
}

}  // extern "C"
