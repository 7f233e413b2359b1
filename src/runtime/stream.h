#pragma once
// CPU streams: in-order queues drained by a worker thread each.

#include <functional>

#include "acl/acl_base.h"
#include "api/status.h"

namespace openaclnn {

class Stream;

// A unit of work on a stream. A failure is kept and reported by the next synchronisation.
using StreamTask = std::function<Status()>;

// Resolves a user handle; nullptr means the current device's default stream (the device is set
// implicitly to 0 if the thread has none). Returns an aclError and sets the recent error.
aclError ResolveStream(aclrtStream handle, Stream** stream);
// Queues `task`; returns at once.
void EnqueueTask(Stream* stream, StreamTask task);

}  // namespace openaclnn
