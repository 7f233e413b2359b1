#pragma once
// Streams: in-order queues of work on a device (see stream_impl.h).

#include <functional>

#include "acl/acl_base.h"
#include "runtime/rt_status.h"

namespace openaclnn {

class Stream;

// A unit of work on a stream. A failure is kept and reported by the next synchronisation.
using StreamTask = std::function<RtStatus()>;

// Resolves a user handle; nullptr means the current device's default stream (the device is set
// implicitly to 0 if the thread has none). Returns an aclError and sets the recent error.
aclError ResolveStream(aclrtStream handle, Stream** stream);
// Queues `task`; returns at once. On a CUDA stream the task runs now, on the calling thread, and
// must only queue GPU work on CudaStreamOf(stream).
void EnqueueTask(Stream* stream, StreamTask task);
// As EnqueueTask, except that on a CPU stream with nothing queued or running the task runs at once
// on the calling thread (it would be the worker's next task anyway): a call followed by
// aclrtSynchronizeStream then costs no thread hand-offs. For operator runs, which wait on nothing;
// tasks that wait (events) or call back into the user keep EnqueueTask.
void RunOrEnqueueTask(Stream* stream, StreamTask task);
// The cudaStream_t behind a stream of a CUDA device; nullptr for a CPU stream.
void* CudaStreamOf(Stream* stream);

}  // namespace openaclnn
