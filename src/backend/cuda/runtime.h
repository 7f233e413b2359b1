#pragma once
// The CUDA runtime calls the device-neutral runtime (src/runtime) needs, behind an interface with
// no CUDA types, so that code compiles with or without the CUDA backend. Without it (or without a
// driver or GPU) DeviceCount() is 0 and nothing else is called.

#include <cstddef>

#include "runtime/rt_status.h"

namespace openaclnn::cuda {

// True when the library was built with the CUDA backend.
bool Built();
// GPUs the CUDA runtime reports; 0 without the backend, a driver or a GPU.
int DeviceCount();
// Why DeviceCount() is 0 ("" when it is not).
const char* UnavailableReason();

// Makes GPU `device` current for the calling thread.
RtStatus SetDevice(int device);
RtStatus Malloc(void** ptr, size_t bytes);
RtStatus Free(void* ptr);
// Page-locked host memory.
RtStatus MallocHost(void** ptr, size_t bytes);
RtStatus FreeHost(void* ptr);
// Copies between any host and device addresses (unified addressing decides the direction).
RtStatus Memcpy(void* dst, const void* src, size_t count);
RtStatus MemcpyAsync(void* dst, const void* src, size_t count, void* stream);
RtStatus Memset(void* ptr, int value, size_t count);
RtStatus MemsetAsync(void* ptr, int value, size_t count, void* stream);
// A non-blocking stream on the calling thread's current GPU.
RtStatus CreateStream(void** stream);
RtStatus DestroyStream(void* stream);
// Waits for the stream; returns the first error its work raised.
RtStatus SynchronizeStream(void* stream);
// What aclrtGetDeviceInfo and aclrtGetMemInfo report of a GPU.
struct GpuInfo {
  int multiprocessors = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int l2_cache_bytes = 0;
  size_t total_memory = 0;
};
RtStatus GetGpuInfo(int device, GpuInfo* info);
// Free and total memory of the calling thread's current GPU.
RtStatus MemGetInfo(size_t* free, size_t* total);
// The GPU whose memory holds `ptr` (device or managed memory), or -1 for host memory.
int DeviceOfPointer(const void* ptr);

}  // namespace openaclnn::cuda
