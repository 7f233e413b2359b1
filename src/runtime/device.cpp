// Devices, their default contexts, initialisation and the system options.

#include "runtime/device.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "acl/acl_rt.h"
#include "aclnn/aclnn_base.h"
#include "backend/cuda/runtime.h"
#include "runtime/error.h"
#include "runtime/stream_impl.h"
#include "runtime/sysparam.h"

namespace openaclnn {
namespace {

constexpr int kNumOptions = 4;

// A device's default context: what aclrtSetDevice creates and aclrtResetDevice releases.
struct Context {
  int32_t device = 0;
  int references = 0;  // aclrtSetDevice calls not yet matched by aclrtResetDevice
  Stream* default_stream = nullptr;
  bool option_set[kNumOptions] = {};
  int64_t option_value[kNumOptions] = {};
};

struct Runtime {
  std::mutex mutex;
  std::map<int32_t, std::unique_ptr<Context>> contexts;
  int init_references = 0;
  int aclnn_references = 0;
  bool process_option_set[kNumOptions] = {};
  int64_t process_option[kNumOptions] = {};
};

Runtime& TheRuntime() {
  static Runtime* runtime = new Runtime;  // never destroyed: worker threads may outlive main
  return *runtime;
}

thread_local int32_t t_current_device = -1;

void ReleaseContextLocked(Runtime& rt, int32_t device) {
  auto it = rt.contexts.find(device);
  if (it == rt.contexts.end()) return;
  Stream* stream = it->second->default_stream;
  rt.contexts.erase(it);
  if (stream != nullptr) DestroyRegisteredStream(stream);
}

bool ValidContextOption(int opt) { return opt >= 0 && opt <= 2; }
bool ValidProcessOption(int opt) { return opt >= 0 && opt < kNumOptions; }

aclError Fail(aclError code, const std::string& message) {
  SetRecentError(message);
  return code;
}

}  // namespace

const char* DeviceKindName(DeviceKind kind) { return kind == DeviceKind::kCuda ? "CUDA" : "CPU"; }

// OPENACLNN_DEVICE: the GPUs are opt-in until a GPU run has validated the CUDA backend on the
// user's machine. "cuda" asks for the GPUs (none visible when the backend or a GPU is missing),
// "auto" takes the GPUs when there are any and the CPU otherwise; unset, "cpu" or anything else
// gives the CPU device, so a machine with a GPU never silently runs GPU code nobody asked for.
DeviceKind ProcessDeviceKind() {
  static const DeviceKind kind = [] {
    const char* env = std::getenv("OPENACLNN_DEVICE");
    if (env != nullptr && std::strcmp(env, "cuda") == 0) return DeviceKind::kCuda;
    if (env != nullptr && std::strcmp(env, "auto") == 0 && cuda::DeviceCount() > 0) {
      return DeviceKind::kCuda;
    }
    return DeviceKind::kCpu;
  }();
  return kind;
}

int32_t DeviceCount() { return ProcessDeviceKind() == DeviceKind::kCuda ? cuda::DeviceCount() : 1; }
DeviceKind KindOfDevice(int32_t) { return ProcessDeviceKind(); }
DeviceKind PlanningDeviceKind() { return ProcessDeviceKind(); }
int32_t CurrentDevice() {
  if (t_current_device < 0) return -1;
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return rt.contexts.count(t_current_device) != 0 ? t_current_device : -1;
}

Stream* CurrentDefaultStream() {
  if (t_current_device < 0) return nullptr;
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto it = rt.contexts.find(t_current_device);
  return it == rt.contexts.end() ? nullptr : it->second->default_stream;
}

bool SetContextOption(int opt, int64_t value) {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto it = t_current_device < 0 ? rt.contexts.end() : rt.contexts.find(t_current_device);
  if (it == rt.contexts.end()) return false;
  it->second->option_set[opt] = true;
  it->second->option_value[opt] = value;
  // As CANN's runtime does, the context setting also lands in the process-wide table, which is
  // what operators read in phase 1.
  rt.process_option_set[opt] = true;
  rt.process_option[opt] = value;
  return true;
}

int GetContextOption(int opt, int64_t* value) {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto it = t_current_device < 0 ? rt.contexts.end() : rt.contexts.find(t_current_device);
  if (it == rt.contexts.end()) return -1;
  if (!it->second->option_set[opt]) return 0;
  *value = it->second->option_value[opt];
  return 1;
}

void ReleaseAllDevices() {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  while (!rt.contexts.empty()) ReleaseContextLocked(rt, rt.contexts.begin()->first);
}

int64_t DeterministicMode() {
  Runtime& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  return rt.process_option[ACL_OPT_DETERMINISTIC];
}

}  // namespace openaclnn

using openaclnn::Fail;
using openaclnn::TheRuntime;

extern "C" {

aclError aclInit(const char* configPath) {
  (void)configPath;  // dump and profiling options have no meaning here
  auto& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  ++rt.init_references;
  return ACL_SUCCESS;
}

aclError aclFinalizeReference(uint64_t* refCount) {
  auto& rt = TheRuntime();
  bool release = false;
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    if (rt.init_references == 0) {
      if (refCount != nullptr) *refCount = 0;
      return Fail(ACL_ERROR_REPEAT_FINALIZE,
                  "aclFinalize: not initialised (aclInit was not called, or every aclInit has "
                  "been matched by aclFinalize already)");
    }
    --rt.init_references;
    if (refCount != nullptr) *refCount = static_cast<uint64_t>(rt.init_references);
    release = rt.init_references == 0;
  }
  if (release) openaclnn::ReleaseAllDevices();
  return ACL_SUCCESS;
}

aclError aclFinalize(void) { return aclFinalizeReference(nullptr); }

aclnnStatus aclnnInit(const char* configPath) {
  (void)configPath;
  auto& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  ++rt.aclnn_references;
  return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize() {
  auto& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.aclnn_references > 0) --rt.aclnn_references;
  return ACLNN_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
  *count = static_cast<uint32_t>(openaclnn::DeviceCount());
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (deviceId < 0 || deviceId >= openaclnn::DeviceCount()) {
    const bool gpus = openaclnn::ProcessDeviceKind() == openaclnn::DeviceKind::kCuda;
    return Fail(
        ACL_ERROR_RT_INVALID_DEVICEID,
        "aclrtSetDevice: deviceId " + std::to_string(deviceId) + " is not in [0, " +
            std::to_string(openaclnn::DeviceCount()) + ")" +
            (gpus ? std::string(" (the devices are the GPUs") +
                        (openaclnn::DeviceCount() == 0 ? std::string(", and there are none: ") +
                                                             openaclnn::cuda::UnavailableReason()
                                                       : std::string()) +
                        ")"
                  : std::string(" (device 0 is the CPU)")));
  }
  if (openaclnn::KindOfDevice(deviceId) == openaclnn::DeviceKind::kCuda) {
    const openaclnn::RtStatus selected = openaclnn::cuda::SetDevice(deviceId);
    if (!selected.ok()) return Fail(selected.code(), "aclrtSetDevice: " + selected.message());
  }
  auto& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto& context = rt.contexts[deviceId];
  if (!context) {
    auto fresh = std::make_unique<openaclnn::Context>();
    fresh->device = deviceId;
    openaclnn::RtStatus created =
        openaclnn::CreateRegisteredStream(deviceId, &fresh->default_stream);
    if (!created.ok()) {
      rt.contexts.erase(deviceId);
      return Fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                  "aclrtSetDevice: could not create the default stream: " + created.message());
    }
    context = std::move(fresh);
  }
  ++context->references;
  openaclnn::t_current_device = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId < 0 || deviceId >= openaclnn::DeviceCount()) {
    return Fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDevice: deviceId " +
                                                   std::to_string(deviceId) + " is not in [0, " +
                                                   std::to_string(openaclnn::DeviceCount()) + ")");
  }
  auto& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  auto it = rt.contexts.find(deviceId);
  if (it != rt.contexts.end() && --it->second->references <= 0) {
    openaclnn::ReleaseContextLocked(rt, deviceId);
  }
  if (openaclnn::t_current_device == deviceId) openaclnn::t_current_device = -1;
  return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
  const int32_t device = openaclnn::CurrentDevice();
  if (device < 0) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtGetDevice: this thread has no current device: call aclrtSetDevice first");
  }
  *deviceId = device;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  openaclnn::Stream* stream = openaclnn::CurrentDefaultStream();
  if (stream == nullptr) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtSynchronizeDevice: this thread has no current device");
  }
  return openaclnn::SynchronizeAndReport(stream);
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  if (!openaclnn::ValidContextOption(opt)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: opt " +
                                             std::to_string(static_cast<int>(opt)) +
                                             " is not a context option (0, 1 or 2)");
  }
  if (opt == ACL_OPT_DETERMINISTIC && (value < 0 || value > 3)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: ACL_OPT_DETERMINISTIC value " +
                                             std::to_string(value) + " is not in [0, 3]");
  }
  if (!openaclnn::SetContextOption(opt, value)) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtCtxSetSysParamOpt: this thread has no current context: call "
                "aclrtSetDevice first");
  }
  return ACL_SUCCESS;
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  if (value == nullptr)
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: value is null");
  if (!openaclnn::ValidContextOption(opt)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: opt " +
                                             std::to_string(static_cast<int>(opt)) +
                                             " is not a context option (0, 1 or 2)");
  }
  const int found = openaclnn::GetContextOption(opt, value);
  if (found < 0) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtCtxGetSysParamOpt: this thread has no current context: call "
                "aclrtSetDevice first");
  }
  if (found == 0) {
    return Fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "aclrtCtxGetSysParamOpt: opt " +
                                                      std::to_string(static_cast<int>(opt)) +
                                                      " was never set in this context");
  }
  return ACL_SUCCESS;
}

aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  if (!openaclnn::ValidProcessOption(opt)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetSysParamOpt: opt " +
                                             std::to_string(static_cast<int>(opt)) +
                                             " is not an option (0 to 3)");
  }
  if (opt == ACL_OPT_DETERMINISTIC && (value < 0 || value > 3)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSetSysParamOpt: ACL_OPT_DETERMINISTIC value " +
                                             std::to_string(value) + " is not in [0, 3]");
  }
  auto& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.process_option_set[opt] = true;
  rt.process_option[opt] = value;
  return ACL_SUCCESS;
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  if (value == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: value is null");
  if (!openaclnn::ValidProcessOption(opt)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetSysParamOpt: opt " +
                                             std::to_string(static_cast<int>(opt)) +
                                             " is not an option (0 to 3)");
  }
  auto& rt = TheRuntime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  *value = rt.process_option[opt];  // 0 when never set
  return ACL_SUCCESS;
}

}  // extern "C"
