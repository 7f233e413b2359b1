#pragma once
// A stream. On the CPU device: an in-order queue drained by one worker thread. On a CUDA device:
// a CUDA stream; tasks run on the calling thread and only queue GPU work on it.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "runtime/stream.h"

namespace openaclnn {

class Stream {
 public:
  // `cuda_stream` (a cudaStream_t the Stream then owns) makes it a CUDA stream.
  Stream(int32_t device, void* cuda_stream);
  ~Stream();  // runs what is queued, then stops the worker
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int32_t device() const { return device_; }
  // The cudaStream_t of a CUDA stream; nullptr on the CPU device.
  void* cuda_stream() const { return cuda_stream_; }
  // Queues `task`; with run_here_when_idle, a CPU stream with nothing queued or running runs it
  // on the calling thread before returning (see RunOrEnqueueTask).
  void Enqueue(StreamTask task, bool run_here_when_idle);
  // Waits until every queued task has run; returns (and forgets) the first failure since the
  // previous synchronisation.
  RtStatus Synchronize();

 private:
  void Drain();
  // Marks the CPU stream as running a task on the calling thread when nothing is queued or
  // running; false otherwise.
  bool ClaimIfIdle();

  const int32_t device_;
  void* const cuda_stream_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable idle_;
  std::deque<StreamTask> queue_;
  bool running_ = false;
  std::atomic<int64_t> outstanding_{0};  // queued or running tasks, readable without the mutex
  bool stopping_ = false;
  RtStatus first_error_;
  std::thread worker_;  // CPU streams; started last, after the members it uses exist
};

bool IsLiveStream(Stream* stream);
// A new stream on `device` (a CUDA stream on a GPU, which must be the thread's current device).
RtStatus CreateRegisteredStream(int32_t device, Stream** stream);
void DestroyRegisteredStream(Stream* stream);
// Synchronises and turns a task failure into an aclError plus the recent error message.
aclError SynchronizeAndReport(Stream* stream);

}  // namespace openaclnn
