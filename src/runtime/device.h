#pragma once
// Devices and their default contexts. A device kind decides which backend runs an operator and
// how memory and streams behave. With OPENACLNN_DEVICE=cuda (or auto), the CUDA backend built and
// a GPU present, devices 0..n-1 are the GPUs (CANN code expects its device 0); otherwise device 0
// is the CPU.

#include <cstdint>

#include "acl/acl_base.h"

namespace openaclnn {

enum class DeviceKind { kCpu, kCuda };

const char* DeviceKindName(DeviceKind kind);  // "CPU", "CUDA"

class Stream;

// Number of devices visible to aclrtSetDevice.
int32_t DeviceCount();
DeviceKind KindOfDevice(int32_t device);
// The kind of every device this process sees (fixed at the first query).
DeviceKind ProcessDeviceKind();
// The kind phase 1 plans for: the current device's, or the process's when the thread has none.
DeviceKind PlanningDeviceKind();
// The calling thread's current device, or -1 when it has none.
int32_t CurrentDevice();
// The default stream of the calling thread's current device; nullptr when it has none.
Stream* CurrentDefaultStream();
// Context-scope options of the current device; false when the thread has no device.
bool SetContextOption(int opt, int64_t value);
// 1: found; 0: never set in this context; -1: no current device.
int GetContextOption(int opt, int64_t* value);
// Finishes every default stream and releases all contexts (aclFinalize).
void ReleaseAllDevices();

}  // namespace openaclnn
