// What the device is, for adapters that choose operators and sizes by it: aclrtGetSocName,
// aclrtGetMemInfo and aclrtGetDeviceInfo. The CPU device reports the process's CPUs and the
// machine's memory; a GPU reports what the CUDA runtime says of it.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "acl/acl_rt.h"
#include "backend/cpu/thread_pool.h"
#include "backend/cuda/runtime.h"
#include "runtime/device.h"
#include "runtime/error.h"

namespace openaclnn {
namespace {

// The SoC name adapters see. CANN's adapters map names to products; "Ascend910B1" (an Atlas A2
// training part, where the aclnn operators of ops-nn are all available) makes them take their
// aclnn paths.
constexpr const char* kDefaultSocName = "Ascend910B1";

// MemTotal and MemAvailable of /proc/meminfo in bytes; false when unreadable.
bool HostMemory(size_t* free, size_t* total) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  bool have_total = false;
  bool have_free = false;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemTotal:") {
      *total = static_cast<size_t>(kib * 1024);
      have_total = true;
    } else if (key == "MemAvailable:") {
      *free = static_cast<size_t>(kib * 1024);
      have_free = true;
    }
  }
  if (have_total && have_free) return true;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long available = sysconf(_SC_AVPHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || available < 0 || page <= 0) return false;
  *total = static_cast<size_t>(pages) * static_cast<size_t>(page);
  *free = static_cast<size_t>(available) * static_cast<size_t>(page);
  return true;
}

int64_t CpuL2Bytes() {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 ? l2 : 0;
}

aclError Fail(aclError code, const std::string& message) {
  SetRecentError(message);
  return code;
}

}  // namespace
}  // namespace openaclnn

extern "C" {

const char* aclrtGetSocName(void) {
  static const std::string* name = [] {
    const char* env = std::getenv("OPENACLNN_SOC_NAME");
    return new std::string(env != nullptr && env[0] != '\0' ? env : openaclnn::kDefaultSocName);
  }();
  return name->c_str();
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  using openaclnn::Fail;
  if (free == nullptr || total == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free and total must not be nullptr");
  }
  if (static_cast<int>(attr) < ACL_DDR_MEM || static_cast<int>(attr) > ACL_HBM_MEM_P2P_HUGE1G) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                "aclrtGetMemInfo: attr must be an aclrtMemAttr (0..11), "
                "got " +
                    std::to_string(static_cast<int>(attr)));
  }
  const int32_t device = openaclnn::CurrentDevice();
  if (device < 0) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtGetMemInfo: this thread has no current device: call aclrtSetDevice first");
  }
  if (openaclnn::KindOfDevice(device) == openaclnn::DeviceKind::kCuda) {
    const openaclnn::RtStatus status = openaclnn::cuda::MemGetInfo(free, total);
    if (!status.ok()) return Fail(status.code(), "aclrtGetMemInfo: " + status.message());
    return ACL_SUCCESS;
  }
  // Every memory kind of the CPU device is the host's memory.
  if (!openaclnn::HostMemory(free, total)) {
    return Fail(ACL_ERROR_RT_INTERNAL_ERROR,
                "aclrtGetMemInfo: neither /proc/meminfo nor sysconf tells the host's memory");
  }
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value) {
  using openaclnn::Fail;
  if (value == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceInfo: value must not be nullptr");
  }
  const int32_t count = openaclnn::DeviceCount();
  if (deviceId >= static_cast<uint32_t>(count)) {
    return Fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtGetDeviceInfo: deviceId must be in [0, " +
                                                   std::to_string(count) + "), got " +
                                                   std::to_string(deviceId));
  }
  const int32_t device = static_cast<int32_t>(deviceId);
  const std::string unsupported = "aclrtGetDeviceInfo: attr " +
                                  std::to_string(static_cast<int>(attr)) +
                                  " has no meaning on this device; answered here: 1, 101, 102, "
                                  "201, 301, 302 (and 202, 209 on a GPU)";
  if (openaclnn::KindOfDevice(device) == openaclnn::DeviceKind::kCuda) {
    openaclnn::cuda::GpuInfo info;
    const openaclnn::RtStatus status = openaclnn::cuda::GetGpuInfo(device, &info);
    if (!status.ok()) return Fail(status.code(), "aclrtGetDeviceInfo: " + status.message());
    switch (attr) {
      case ACL_DEV_ATTR_AICPU_CORE_NUM:
        *value = openaclnn::cpu::NumThreads();
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_AICORE_CORE_NUM:
      case ACL_DEV_ATTR_CUBE_CORE_NUM:
      case ACL_DEV_ATTR_VECTOR_CORE_NUM:
        *value = info.multiprocessors;
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_WARP_SIZE:
        *value = info.warp_size;
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
        *value = info.max_threads_per_block;
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        *value = static_cast<int64_t>(info.total_memory);
        return ACL_SUCCESS;
      case ACL_DEV_ATTR_L2_CACHE_SIZE:
        *value = info.l2_cache_bytes;
        return ACL_SUCCESS;
      default:
        return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, unsupported);
    }
  }
  switch (attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM:
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
    case ACL_DEV_ATTR_VECTOR_CORE_NUM:
      *value = openaclnn::cpu::NumThreads();  // the CPUs the operators use
      return ACL_SUCCESS;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: {
      size_t free = 0;
      size_t total = 0;
      if (!openaclnn::HostMemory(&free, &total)) {
        return Fail(ACL_ERROR_RT_INTERNAL_ERROR,
                    "aclrtGetDeviceInfo: the host's memory is unknown");
      }
      *value = static_cast<int64_t>(total);
      return ACL_SUCCESS;
    }
    case ACL_DEV_ATTR_L2_CACHE_SIZE:
      *value = openaclnn::CpuL2Bytes();
      return ACL_SUCCESS;
    default:
      return Fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, unsupported);
  }
}

}  // extern "C"
