// The CUDA runtime shim (see runtime.h). Compiled by the host compiler; without the CUDA backend
// every entry reports that no GPU is available.

#include "backend/cuda/runtime.h"

#include "acl/error_codes/rt_error_codes.h"

#if OPENACLNN_WITH_CUDA
#include <cuda_runtime.h>

#include <mutex>
#include <string>
#endif

namespace openaclnn::cuda {

#if OPENACLNN_WITH_CUDA

namespace {

RtStatus Fail(int code, const char* what, cudaError_t error) {
  return RtErrorStatus(code, "%s failed: %s (%s)", what, cudaGetErrorString(error),
                       cudaGetErrorName(error));
}

struct Probe {
  int count = 0;
  std::string reason;
};

const Probe& TheProbe() {
  static const Probe probe = [] {
    Probe p;
    const cudaError_t e = cudaGetDeviceCount(&p.count);
    if (e != cudaSuccess) {
      p.count = 0;
      p.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
      (void)cudaGetLastError();  // leave no sticky error behind
    } else if (p.count == 0) {
      p.reason = "the CUDA runtime reports no GPU";
    }
    return p;
  }();
  return probe;
}

}  // namespace

bool Built() { return true; }
int DeviceCount() { return TheProbe().count; }
const char* UnavailableReason() { return TheProbe().reason.c_str(); }

RtStatus SetDevice(int device) {
  const cudaError_t e = cudaSetDevice(device);
  return e == cudaSuccess ? RtStatus::Ok()
                          : Fail(ACL_ERROR_RT_INVALID_DEVICEID, "cudaSetDevice", e);
}

RtStatus Malloc(void** ptr, size_t bytes) {
  const cudaError_t e = cudaMalloc(ptr, bytes);
  if (e == cudaSuccess) return RtStatus::Ok();
  (void)cudaGetLastError();
  *ptr = nullptr;
  return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cudaMalloc", e);
}

RtStatus Free(void* ptr) {
  const cudaError_t e = cudaFree(ptr);
  return e == cudaSuccess ? RtStatus::Ok() : Fail(ACL_ERROR_RT_MEMORY_FREE, "cudaFree", e);
}

RtStatus MallocHost(void** ptr, size_t bytes) {
  const cudaError_t e = cudaMallocHost(ptr, bytes);
  if (e == cudaSuccess) return RtStatus::Ok();
  (void)cudaGetLastError();
  *ptr = nullptr;
  return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cudaMallocHost", e);
}

RtStatus FreeHost(void* ptr) {
  const cudaError_t e = cudaFreeHost(ptr);
  return e == cudaSuccess ? RtStatus::Ok() : Fail(ACL_ERROR_RT_MEMORY_FREE, "cudaFreeHost", e);
}

RtStatus Memcpy(void* dst, const void* src, size_t count) {
  const cudaError_t e = cudaMemcpy(dst, src, count, cudaMemcpyDefault);
  return e == cudaSuccess ? RtStatus::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemcpy", e);
}

RtStatus MemcpyAsync(void* dst, const void* src, size_t count, void* stream) {
  const cudaError_t e =
      cudaMemcpyAsync(dst, src, count, cudaMemcpyDefault, static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? RtStatus::Ok()
                          : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemcpyAsync", e);
}

RtStatus Memset(void* ptr, int value, size_t count) {
  const cudaError_t e = cudaMemset(ptr, value, count);
  return e == cudaSuccess ? RtStatus::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemset", e);
}

RtStatus MemsetAsync(void* ptr, int value, size_t count, void* stream) {
  const cudaError_t e = cudaMemsetAsync(ptr, value, count, static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? RtStatus::Ok()
                          : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemsetAsync", e);
}

RtStatus CreateStream(void** stream) {
  cudaStream_t s = nullptr;
  const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e != cudaSuccess) return Fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cudaStreamCreate", e);
  *stream = s;
  return RtStatus::Ok();
}

RtStatus DestroyStream(void* stream) {
  const cudaError_t e = cudaStreamDestroy(static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? RtStatus::Ok()
                          : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaStreamDestroy", e);
}

RtStatus SynchronizeStream(void* stream) {
  const cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? RtStatus::Ok()
                          : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "work on the CUDA stream", e);
}

RtStatus GetGpuInfo(int device, GpuInfo* info) {
  cudaDeviceProp prop{};
  const cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) return Fail(ACL_ERROR_RT_INVALID_DEVICEID, "cudaGetDeviceProperties", e);
  info->multiprocessors = prop.multiProcessorCount;
  info->warp_size = prop.warpSize;
  info->max_threads_per_block = prop.maxThreadsPerBlock;
  info->l2_cache_bytes = prop.l2CacheSize;
  info->total_memory = prop.totalGlobalMem;
  return RtStatus::Ok();
}

RtStatus MemGetInfo(size_t* free, size_t* total) {
  const cudaError_t e = cudaMemGetInfo(free, total);
  return e == cudaSuccess ? RtStatus::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemGetInfo", e);
}

int DeviceOfPointer(const void* ptr) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  if (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged) {
    return attributes.device;
  }
  return -1;
}

#else  // no CUDA backend

namespace {
RtStatus NotBuilt() {
  return RtErrorStatus(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "openaclnn was built without CUDA");
}
}  // namespace

bool Built() { return false; }
int DeviceCount() { return 0; }
const char* UnavailableReason() { return "openaclnn was built without the CUDA backend"; }
RtStatus SetDevice(int) { return NotBuilt(); }
RtStatus Malloc(void** ptr, size_t) {
  *ptr = nullptr;
  return NotBuilt();
}
RtStatus Free(void*) { return NotBuilt(); }
RtStatus MallocHost(void** ptr, size_t) {
  *ptr = nullptr;
  return NotBuilt();
}
RtStatus FreeHost(void*) { return NotBuilt(); }
RtStatus Memcpy(void*, const void*, size_t) { return NotBuilt(); }
RtStatus MemcpyAsync(void*, const void*, size_t, void*) { return NotBuilt(); }
RtStatus Memset(void*, int, size_t) { return NotBuilt(); }
RtStatus MemsetAsync(void*, int, size_t, void*) { return NotBuilt(); }
RtStatus CreateStream(void** stream) {
  *stream = nullptr;
  return NotBuilt();
}
RtStatus DestroyStream(void*) { return NotBuilt(); }
RtStatus SynchronizeStream(void*) { return NotBuilt(); }
RtStatus GetGpuInfo(int, GpuInfo*) { return NotBuilt(); }
RtStatus MemGetInfo(size_t*, size_t*) { return NotBuilt(); }
int DeviceOfPointer(const void*) { return -1; }

#endif

}  // namespace openaclnn::cuda
