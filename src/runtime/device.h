#pragma once
// Devices and their default contexts. Device 0 is the CPU. A device kind (CPU today) decides
// which backend runs an operator and how memory and streams behave, so another kind (CUDA) can
// be added behind the same public functions.

#include <cstdint>

#include "acl/acl_base.h"

namespace openaclnn {

enum class DeviceKind { kCpu };

class Stream;

// Number of devices visible to aclrtSetDevice.
int32_t DeviceCount();
DeviceKind KindOfDevice(int32_t device);
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
