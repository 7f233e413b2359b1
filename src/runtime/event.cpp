// Events: markers recorded on a stream and completed when the stream's worker reaches them, in the
// stream's order, as on the device. Each record takes the next number of the event; a wait
// (aclrtSynchronizeEvent, aclrtStreamWaitEvent) waits for the newest record issued before it, so
// recording the event again later does not disturb a wait already queued. The state lives in a
// shared block held by the queued tasks, so destroying an event while a stream still holds one of
// its records or waits is safe (the tasks finish on the block; the handle is gone).
//
// On a CUDA stream the tasks run on the calling thread (stream_impl.h): a record synchronises the
// CUDA stream first, so the event completes only when the GPU work before it has finished.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>

#include "acl/acl_rt.h"
#include "backend/cuda/runtime.h"
#include "runtime/error.h"
#include "runtime/stream.h"

namespace openaclnn {
namespace {

struct EventState {
  std::mutex mutex;
  std::condition_variable completed_changed;
  uint64_t issued = 0;     // records issued by aclrtRecordEvent
  uint64_t completed = 0;  // the newest record a stream has reached
  bool has_timestamp = false;
  int64_t timestamp_ns = 0;  // steady clock when `completed` was reached
};

struct Event {
  std::shared_ptr<EventState> state = std::make_shared<EventState>();
  uint32_t flags = 0;
};

std::mutex& RegistryMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}
std::set<Event*>& LiveEvents() {
  static std::set<Event*>* events = new std::set<Event*>;
  return *events;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The shared state of a live event; nullptr (with the recent error set) for anything else.
std::shared_ptr<EventState> Resolve(const char* api, const char* name, aclrtEvent handle,
                                    aclError* error) {
  if (handle == nullptr) {
    SetRecentError(std::string(api) + ": " + name + " must not be nullptr");
    *error = ACL_ERROR_INVALID_PARAM;
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto* event = static_cast<Event*>(handle);
  if (LiveEvents().count(event) == 0) {
    SetRecentError(std::string(api) + ": " + name +
                   " is not a live event from aclrtCreateEvent (destroyed already?)");
    *error = ACL_ERROR_RT_PARAM_INVALID;
    return nullptr;
  }
  return event->state;
}

aclError CreateEvent(const char* api, aclrtEvent* event, uint32_t flags) {
  if (event == nullptr) {
    SetRecentError(std::string(api) + ": event must not be nullptr");
    return ACL_ERROR_INVALID_PARAM;
  }
  Event* created = new (std::nothrow) Event;
  if (created == nullptr) {
    SetRecentError(std::string(api) + ": out of host memory");
    return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
  }
  created->flags = flags;
  std::lock_guard<std::mutex> lock(RegistryMutex());
  LiveEvents().insert(created);
  *event = created;
  return ACL_SUCCESS;
}

// Blocks until the state's completed record reaches `target`, or `timeout_ms` passes (< 0: no
// limit). True when reached.
bool WaitForRecord(EventState& state, uint64_t target, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(state.mutex);
  const auto reached = [&] { return state.completed >= target; };
  if (timeout_ms < 0) {
    state.completed_changed.wait(lock, reached);
    return true;
  }
  return state.completed_changed.wait_for(lock, std::chrono::milliseconds(timeout_ms), reached);
}

}  // namespace
}  // namespace openaclnn

using openaclnn::EventState;
using openaclnn::SetRecentError;

extern "C" aclError aclrtCreateEvent(aclrtEvent* event) {
  return openaclnn::CreateEvent("aclrtCreateEvent", event, ACL_EVENT_SYNC);
}

extern "C" aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  constexpr uint32_t kKnown =
      ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE;
  if ((flag & ~kKnown) != 0) {
    SetRecentError(
        "aclrtCreateEventWithFlag: flag must combine ACL_EVENT_SYNC (1), "
        "ACL_EVENT_CAPTURE_STREAM_PROGRESS (2) and ACL_EVENT_TIME_LINE (8), got " +
        std::to_string(flag));
    return ACL_ERROR_INVALID_PARAM;
  }
  return openaclnn::CreateEvent("aclrtCreateEventWithFlag", event, flag);
}

extern "C" aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  return aclrtCreateEventWithFlag(event, flag);
}

extern "C" aclError aclrtDestroyEvent(aclrtEvent event) {
  if (event == nullptr) {
    SetRecentError("aclrtDestroyEvent: event must not be nullptr");
    return ACL_ERROR_INVALID_PARAM;
  }
  auto* live = static_cast<openaclnn::Event*>(event);
  {
    std::lock_guard<std::mutex> lock(openaclnn::RegistryMutex());
    if (openaclnn::LiveEvents().erase(live) == 0) {
      SetRecentError("aclrtDestroyEvent: not a live event (destroyed already?)");
      return ACL_ERROR_RT_PARAM_INVALID;
    }
  }
  delete live;  // queued records and waits keep the shared state alive
  return ACL_SUCCESS;
}

extern "C" aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  aclError error = ACL_SUCCESS;
  std::shared_ptr<EventState> state =
      openaclnn::Resolve("aclrtRecordEvent", "event", event, &error);
  if (!state) return error;
  openaclnn::Stream* target_stream = nullptr;
  error = openaclnn::ResolveStream(stream, &target_stream);
  if (error != ACL_SUCCESS) return error;
  uint64_t record = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    record = ++state->issued;
  }
  void* cuda_stream = openaclnn::CudaStreamOf(target_stream);
  openaclnn::EnqueueTask(target_stream, [state, record, cuda_stream]() -> openaclnn::RtStatus {
    openaclnn::RtStatus status;
    if (cuda_stream != nullptr) status = openaclnn::cuda::SynchronizeStream(cuda_stream);
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      if (state->completed < record) {
        state->completed = record;
        state->has_timestamp = true;
        state->timestamp_ns = openaclnn::NowNs();
      }
    }
    state->completed_changed.notify_all();
    return status;
  });
  return ACL_SUCCESS;
}

extern "C" aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  aclError error = ACL_SUCCESS;
  std::shared_ptr<EventState> state = openaclnn::Resolve("aclrtResetEvent", "event", event, &error);
  if (!state) return error;
  openaclnn::Stream* target_stream = nullptr;
  error = openaclnn::ResolveStream(stream, &target_stream);
  if (error != ACL_SUCCESS) return error;
  uint64_t issued_before = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    issued_before = state->issued;
  }
  // After the stream's earlier work: the event forgets its timestamp unless recorded since.
  openaclnn::EnqueueTask(target_stream, [state, issued_before]() -> openaclnn::RtStatus {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->issued == issued_before && state->completed == issued_before) {
      state->has_timestamp = false;
    }
    return openaclnn::RtStatus::Ok();
  });
  return ACL_SUCCESS;
}

// True when every record issued so far has been reached (an event never recorded is complete).
static aclError QueryComplete(const char* api, aclrtEvent event, const void* status,
                              bool* complete) {
  aclError error = ACL_SUCCESS;
  std::shared_ptr<EventState> state = openaclnn::Resolve(api, "event", event, &error);
  if (!state) return error;
  if (status == nullptr) {
    SetRecentError(std::string(api) + ": status must not be nullptr");
    return ACL_ERROR_INVALID_PARAM;
  }
  std::lock_guard<std::mutex> lock(state->mutex);
  *complete = state->completed >= state->issued;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  bool complete = false;
  const aclError error = QueryComplete("aclrtQueryEvent", event, status, &complete);
  if (error == ACL_SUCCESS)
    *status = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  return error;
}

extern "C" aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  bool complete = false;
  const aclError error = QueryComplete("aclrtQueryEventStatus", event, status, &complete);
  if (error == ACL_SUCCESS) {
    *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  }
  return error;
}

extern "C" aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  bool complete = false;
  const aclError error = QueryComplete("aclrtQueryEventWaitStatus", event, status, &complete);
  if (error == ACL_SUCCESS) {
    *status = complete ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
  }
  return error;
}

extern "C" aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  aclError error = ACL_SUCCESS;
  std::shared_ptr<EventState> state =
      openaclnn::Resolve("aclrtSynchronizeEventWithTimeout", "event", event, &error);
  if (!state) return error;
  if (timeout < -1) {
    SetRecentError(
        "aclrtSynchronizeEventWithTimeout: timeout must be -1 (no limit) or a number "
        "of milliseconds >= 0, got " +
        std::to_string(timeout));
    return ACL_ERROR_INVALID_PARAM;
  }
  uint64_t target = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    target = state->issued;
  }
  if (!openaclnn::WaitForRecord(*state, target, timeout)) {
    SetRecentError("aclrtSynchronizeEventWithTimeout: the event's record was not reached within " +
                   std::to_string(timeout) + " ms");
    return ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
  }
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSynchronizeEvent(aclrtEvent event) {
  aclError error = ACL_SUCCESS;
  std::shared_ptr<EventState> state =
      openaclnn::Resolve("aclrtSynchronizeEvent", "event", event, &error);
  if (!state) return error;
  uint64_t target = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    target = state->issued;
  }
  openaclnn::WaitForRecord(*state, target, -1);
  return ACL_SUCCESS;
}

// The timestamp of a completed record, or an error naming the parameter.
static aclError CompletedTimestamp(const char* api, const char* name, aclrtEvent event,
                                   int64_t* ns) {
  aclError error = ACL_SUCCESS;
  std::shared_ptr<EventState> state = openaclnn::Resolve(api, name, event, &error);
  if (!state) return error;
  std::lock_guard<std::mutex> lock(state->mutex);
  if (state->issued != 0 && state->completed < state->issued) {
    SetRecentError(std::string(api) + ": " + name +
                   " is recorded but its stream has not reached the record yet");
    return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
  }
  if (!state->has_timestamp) {
    SetRecentError(std::string(api) + ": " + name +
                   " has no timestamp: record it with aclrtRecordEvent first");
    return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
  }
  *ns = state->timestamp_ns;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (ms == nullptr) {
    SetRecentError("aclrtEventElapsedTime: ms must not be nullptr");
    return ACL_ERROR_INVALID_PARAM;
  }
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  aclError error = CompletedTimestamp("aclrtEventElapsedTime", "startEvent", startEvent, &start_ns);
  if (error != ACL_SUCCESS) return error;
  error = CompletedTimestamp("aclrtEventElapsedTime", "endEvent", endEvent, &end_ns);
  if (error != ACL_SUCCESS) return error;
  *ms = static_cast<float>(static_cast<double>(end_ns - start_ns) / 1e6);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp) {
  if (timestamp == nullptr) {
    SetRecentError("aclrtEventGetTimestamp: timestamp must not be nullptr");
    return ACL_ERROR_INVALID_PARAM;
  }
  int64_t ns = 0;
  const aclError error = CompletedTimestamp("aclrtEventGetTimestamp", "event", event, &ns);
  if (error == ACL_SUCCESS) *timestamp = static_cast<uint64_t>(ns / 1000);  // microseconds
  return error;
}

extern "C" aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  aclError error = ACL_SUCCESS;
  std::shared_ptr<EventState> state =
      openaclnn::Resolve("aclrtStreamWaitEvent", "event", event, &error);
  if (!state) return error;
  openaclnn::Stream* waiting = nullptr;
  error = openaclnn::ResolveStream(stream, &waiting);
  if (error != ACL_SUCCESS) return error;
  uint64_t target = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    target = state->issued;
  }
  if (target == 0) return ACL_SUCCESS;  // never recorded: nothing to wait for
  openaclnn::EnqueueTask(waiting, [state, target]() -> openaclnn::RtStatus {
    openaclnn::WaitForRecord(*state, target, -1);
    return openaclnn::RtStatus::Ok();
  });
  return ACL_SUCCESS;
}
