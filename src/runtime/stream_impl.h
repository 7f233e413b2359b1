#pragma once
// The CPU stream: an in-order queue drained by one worker thread.

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
  explicit Stream(int32_t device);
  ~Stream();  // runs what is queued, then stops the worker
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int32_t device() const { return device_; }
  void Enqueue(StreamTask task);
  // Waits until every queued task has run; returns (and forgets) the first failure since the
  // previous synchronisation.
  Status Synchronize();

 private:
  void Drain();

  const int32_t device_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable idle_;
  std::deque<StreamTask> queue_;
  bool running_ = false;
  std::atomic<int64_t> outstanding_{0};  // queued or running tasks, readable without the mutex
  bool stopping_ = false;
  Status first_error_;
  std::thread worker_;  // last: starts after the members it uses exist
};

bool IsLiveStream(Stream* stream);
Stream* CreateRegisteredStream(int32_t device);
void DestroyRegisteredStream(Stream* stream);
// Synchronises and turns a task failure into an aclError plus the recent error message.
aclError SynchronizeAndReport(Stream* stream);

}  // namespace openaclnn
