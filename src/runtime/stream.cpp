#include "runtime/stream.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "acl/acl_rt.h"
#include "backend/cpu/spin.h"
#include "backend/cuda/runtime.h"
#include "runtime/device.h"
#include "runtime/error.h"
#include "runtime/stream_impl.h"

namespace openaclnn {

Stream::Stream(int32_t device, void* cuda_stream) : device_(device), cuda_stream_(cuda_stream) {
  if (cuda_stream_ == nullptr) worker_ = std::thread([this] { Drain(); });
}

Stream::~Stream() {
  if (cuda_stream_ != nullptr) {
    (void)cuda::SynchronizeStream(cuda_stream_);
    (void)cuda::DestroyStream(cuda_stream_);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  worker_.join();
}

namespace {

RtStatus RunTask(const StreamTask& task) {
  try {
    return task();
  } catch (...) {
    return RtErrorStatus(ACL_ERROR_RT_INTERNAL_ERROR, "a stream task threw an exception");
  }
}

}  // namespace

void Stream::Enqueue(StreamTask task, bool run_here_when_idle) {
  if (cuda_stream_ != nullptr) {
    // The task only queues GPU work; the mutex keeps tasks from several threads in order.
    std::lock_guard<std::mutex> lock(mutex_);
    RtStatus status = RunTask(task);
    if (!status.ok() && first_error_.ok()) first_error_ = std::move(status);
    return;
  }
  if (!run_here_when_idle || !ClaimIfIdle()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      outstanding_.fetch_add(1, std::memory_order_release);
      queue_.push_back(std::move(task));
    }
    work_ready_.notify_one();
    return;
  }
  // Nothing is queued or running: the task would be next on the worker, so it runs here instead,
  // in the same order, without waking the worker and later the synchronising thread.
  RtStatus status = RunTask(task);
  task = nullptr;  // release captured state before reporting idle
  bool queued_meanwhile = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = false;
    if (!status.ok() && first_error_.ok()) first_error_ = std::move(status);
    outstanding_.fetch_sub(1, std::memory_order_release);
    queued_meanwhile = !queue_.empty();
    if (!queued_meanwhile) idle_.notify_all();
  }
  if (queued_meanwhile) work_ready_.notify_one();
}

bool Stream::ClaimIfIdle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_ || stopping_ || !queue_.empty()) return false;
  running_ = true;  // the worker leaves the queue alone until the claimed task is done
  outstanding_.fetch_add(1, std::memory_order_release);
  return true;
}

RtStatus Stream::Synchronize() {
  if (cuda_stream_ != nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    RtStatus gpu = cuda::SynchronizeStream(cuda_stream_);
    RtStatus first = std::move(first_error_);
    first_error_ = RtStatus();
    return first.ok() ? gpu : first;
  }
  SpinUntil([this] { return outstanding_.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !running_; });
  RtStatus first = std::move(first_error_);
  first_error_ = RtStatus();
  return first;
}

void Stream::Drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (queue_.empty() && !stopping_) {
      // Phase 2 calls often come in quick succession: look for the next one before sleeping.
      lock.unlock();
      SpinUntil([this] { return outstanding_.load(std::memory_order_acquire) > 0; });
      lock.lock();
    }
    // A task running on the thread that enqueued it (running_) keeps the queue behind it.
    work_ready_.wait(lock, [this] { return !running_ && (stopping_ || !queue_.empty()); });
    if (queue_.empty()) return;  // stopping and nothing left
    StreamTask task = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    lock.unlock();
    RtStatus status;
    try {
      status = task();
    } catch (...) {
      status = RtErrorStatus(ACL_ERROR_RT_INTERNAL_ERROR, "a stream task threw an exception");
    }
    task = nullptr;  // release captured state before reporting idle
    lock.lock();
    running_ = false;
    if (!status.ok() && first_error_.ok()) first_error_ = std::move(status);
    outstanding_.fetch_sub(1, std::memory_order_release);
    if (queue_.empty()) idle_.notify_all();
  }
}

namespace {

std::mutex& RegistryMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}
std::set<Stream*>& LiveStreams() {
  static std::set<Stream*>* streams = new std::set<Stream*>;
  return *streams;
}

}  // namespace

bool IsLiveStream(Stream* stream) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  return LiveStreams().count(stream) != 0;
}

aclError ResolveStream(aclrtStream handle, Stream** stream) {
  if (handle == nullptr) {
    Stream* fallback = CurrentDefaultStream();
    if (fallback == nullptr) {
      SetRecentError(
          "the null stream means the current device's default stream, but this thread has no "
          "current device: call aclrtSetDevice first");
      return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *stream = fallback;
    return ACL_SUCCESS;
  }
  Stream* candidate = static_cast<Stream*>(handle);
  if (!IsLiveStream(candidate)) {
    SetRecentError("stream " + std::to_string(reinterpret_cast<uintptr_t>(handle)) +
                   " is not a live stream from aclrtCreateStream (destroyed already?)");
    return ACL_ERROR_RT_PARAM_INVALID;
  }
  *stream = candidate;
  return ACL_SUCCESS;
}

void EnqueueTask(Stream* stream, StreamTask task) { stream->Enqueue(std::move(task), false); }
void RunOrEnqueueTask(Stream* stream, StreamTask task) { stream->Enqueue(std::move(task), true); }
void* CudaStreamOf(Stream* stream) { return stream->cuda_stream(); }

RtStatus CreateRegisteredStream(int32_t device, Stream** stream) {
  void* cuda_stream = nullptr;
  if (KindOfDevice(device) == DeviceKind::kCuda) {
    OPENACLNN_RETURN_IF_RT_ERROR(cuda::CreateStream(&cuda_stream));
  }
  try {
    *stream = new Stream(device, cuda_stream);
  } catch (...) {
    if (cuda_stream != nullptr) (void)cuda::DestroyStream(cuda_stream);
    return RtErrorStatus(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "could not start the stream's worker");
  }
  std::lock_guard<std::mutex> lock(RegistryMutex());
  LiveStreams().insert(*stream);
  return RtStatus::Ok();
}

void DestroyRegisteredStream(Stream* stream) {
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    LiveStreams().erase(stream);
  }
  delete stream;  // finishes queued work, then joins the worker
}

aclError SynchronizeAndReport(Stream* stream) {
  RtStatus status = stream->Synchronize();
  if (status.ok()) return ACL_SUCCESS;
  SetRecentError("a task on the stream failed: " + status.message());
  return status.code();
}

}  // namespace openaclnn

using openaclnn::Stream;

extern "C" aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) {
    openaclnn::SetRecentError("aclrtCreateStream: stream must not be nullptr");
    return ACL_ERROR_INVALID_PARAM;
  }
  const int32_t device = openaclnn::CurrentDevice();
  if (device < 0) {
    openaclnn::SetRecentError(
        "aclrtCreateStream: this thread has no current device: call aclrtSetDevice first");
    return ACL_ERROR_RT_CONTEXT_NULL;
  }
  openaclnn::Stream* created = nullptr;
  const openaclnn::RtStatus status = openaclnn::CreateRegisteredStream(device, &created);
  if (!status.ok()) {
    openaclnn::SetRecentError("aclrtCreateStream: " + status.message());
    return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
  }
  *stream = created;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtDestroyStream(aclrtStream stream) {
  if (stream == nullptr) {
    openaclnn::SetRecentError("aclrtDestroyStream: stream must not be nullptr");
    return ACL_ERROR_INVALID_PARAM;
  }
  Stream* s = static_cast<Stream*>(stream);
  if (!openaclnn::IsLiveStream(s)) {
    openaclnn::SetRecentError("aclrtDestroyStream: not a live stream (destroyed already?)");
    return ACL_ERROR_RT_PARAM_INVALID;
  }
  openaclnn::DestroyRegisteredStream(s);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSynchronizeStream(aclrtStream stream) {
  Stream* s = nullptr;
  const aclError resolved = openaclnn::ResolveStream(stream, &s);
  if (resolved != ACL_SUCCESS) return resolved;
  return openaclnn::SynchronizeAndReport(s);
}
