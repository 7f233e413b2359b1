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

Status Fail(int code, const char* what, cudaError_t error) {
  return ErrorStatus(code, "%s failed: %s (%s)", what, cudaGetErrorString(error),
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

Status SetDevice(int device) {
  const cudaError_t e = cudaSetDevice(device);
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_INVALID_DEVICEID, "cudaSetDevice", e);
}

Status Malloc(void** ptr, size_t bytes) {
  const cudaError_t e = cudaMalloc(ptr, bytes);
  if (e == cudaSuccess) return Status::Ok();
  (void)cudaGetLastError();
  *ptr = nullptr;
  return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cudaMalloc", e);
}

Status Free(void* ptr) {
  const cudaError_t e = cudaFree(ptr);
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_MEMORY_FREE, "cudaFree", e);
}

Status MallocHost(void** ptr, size_t bytes) {
  const cudaError_t e = cudaMallocHost(ptr, bytes);
  if (e == cudaSuccess) return Status::Ok();
  (void)cudaGetLastError();
  *ptr = nullptr;
  return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cudaMallocHost", e);
}

Status FreeHost(void* ptr) {
  const cudaError_t e = cudaFreeHost(ptr);
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_MEMORY_FREE, "cudaFreeHost", e);
}

Status Memcpy(void* dst, const void* src, size_t count) {
  const cudaError_t e = cudaMemcpy(dst, src, count, cudaMemcpyDefault);
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemcpy", e);
}

Status MemcpyAsync(void* dst, const void* src, size_t count, void* stream) {
  const cudaError_t e =
      cudaMemcpyAsync(dst, src, count, cudaMemcpyDefault, static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemcpyAsync", e);
}

Status Memset(void* ptr, int value, size_t count) {
  const cudaError_t e = cudaMemset(ptr, value, count);
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemset", e);
}

Status MemsetAsync(void* ptr, int value, size_t count, void* stream) {
  const cudaError_t e = cudaMemsetAsync(ptr, value, count, static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemsetAsync", e);
}

Status CreateStream(void** stream) {
  cudaStream_t s = nullptr;
  const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e != cudaSuccess) return Fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cudaStreamCreate", e);
  *stream = s;
  return Status::Ok();
}

Status DestroyStream(void* stream) {
  const cudaError_t e = cudaStreamDestroy(static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? Status::Ok()
                          : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaStreamDestroy", e);
}

Status SynchronizeStream(void* stream) {
  const cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  return e == cudaSuccess ? Status::Ok()
                          : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "work on the CUDA stream", e);
}

Status GetGpuInfo(int device, GpuInfo* info) {
  cudaDeviceProp prop{};
  const cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) return Fail(ACL_ERROR_RT_INVALID_DEVICEID, "cudaGetDeviceProperties", e);
  info->multiprocessors = prop.multiProcessorCount;
  info->warp_size = prop.warpSize;
  info->max_threads_per_block = prop.maxThreadsPerBlock;
  info->l2_cache_bytes = prop.l2CacheSize;
  info->total_memory = prop.totalGlobalMem;
  return Status::Ok();
}

Status MemGetInfo(size_t* free, size_t* total) {
  const cudaError_t e = cudaMemGetInfo(free, total);
  return e == cudaSuccess ? Status::Ok() : Fail(ACL_ERROR_RT_INTERNAL_ERROR, "cudaMemGetInfo", e);
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
Status NotBuilt() {
  return ErrorStatus(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "openaclnn was built without CUDA");
}
}  // namespace

bool Built() { return false; }
int DeviceCount() { return 0; }
const char* UnavailableReason() { return "openaclnn was built without the CUDA backend"; }
Status SetDevice(int) { return NotBuilt(); }
Status Malloc(void** ptr, size_t) {
  *ptr = nullptr;
  return NotBuilt();
}
Status Free(void*) { return NotBuilt(); }
Status MallocHost(void** ptr, size_t) {
  *ptr = nullptr;
  return NotBuilt();
}
Status FreeHost(void*) { return NotBuilt(); }
Status Memcpy(void*, const void*, size_t) { return NotBuilt(); }
Status MemcpyAsync(void*, const void*, size_t, void*) { return NotBuilt(); }
Status Memset(void*, int, size_t) { return NotBuilt(); }
Status MemsetAsync(void*, int, size_t, void*) { return NotBuilt(); }
Status CreateStream(void** stream) {
  *stream = nullptr;
  return NotBuilt();
}
Status DestroyStream(void*) { return NotBuilt(); }
Status SynchronizeStream(void*) { return NotBuilt(); }
Status GetGpuInfo(int, GpuInfo*) { return NotBuilt(); }
Status MemGetInfo(size_t*, size_t*) { return NotBuilt(); }
int DeviceOfPointer(const void*) { return -1; }

#endif

}  // namespace openaclnn::cuda
