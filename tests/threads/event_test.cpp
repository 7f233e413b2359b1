// Events: completion in stream order, cross-stream waits, timing, timeouts, and destroying an
// event that queued tasks still refer to. Also run under the thread sanitizer.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "acl/acl.h"
#include "runtime/stream.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

using EventTest = RuntimeTest;

Stream* Resolve(aclrtStream s) {
  Stream* stream = nullptr;
  EXPECT_EQ(ResolveStream(s, &stream), ACL_SUCCESS);
  return stream;
}

// Holds a stream's worker until Open() is called.
class Gate {
 public:
  explicit Gate(aclrtStream s) {
    std::shared_future<void> opened = open_.get_future().share();
    EnqueueTask(Resolve(s), [opened] {
      opened.wait();
      return RtStatus::Ok();
    });
  }
  ~Gate() { Open(); }
  void Open() {
    if (!opened_) open_.set_value();
    opened_ = true;
  }

 private:
  std::promise<void> open_;
  bool opened_ = false;
};

aclrtEventRecordedStatus Recorded(aclrtEvent e) {
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  EXPECT_EQ(aclrtQueryEventStatus(e, &status), ACL_SUCCESS);
  return status;
}

TEST_F(EventTest, NeverRecordedEventIsCompleteAndHasNoTimestamp) {
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  EXPECT_EQ(Recorded(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  aclrtEventStatus old_status = ACL_EVENT_STATUS_RESERVED;
  EXPECT_EQ(aclrtQueryEvent(e, &old_status), ACL_SUCCESS);
  EXPECT_EQ(old_status, ACL_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(aclrtSynchronizeEvent(e), ACL_SUCCESS);
  float ms = 0;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, e, e), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_NE(RecentError().find("startEvent has no timestamp"), std::string::npos) << RecentError();
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
}

TEST_F(EventTest, RecordCompletesWhenTheStreamReachesIt) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateEventWithFlag(&e, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  {
    Gate gate(s);
    ASSERT_EQ(aclrtRecordEvent(e, s), ACL_SUCCESS);
    EXPECT_EQ(Recorded(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    aclrtEventWaitStatus wait_status = ACL_EVENT_WAIT_STATUS_RESERVED;
    EXPECT_EQ(aclrtQueryEventWaitStatus(e, &wait_status), ACL_SUCCESS);
    EXPECT_EQ(wait_status, ACL_EVENT_WAIT_STATUS_NOT_READY);
    float ms = 0;
    EXPECT_EQ(aclrtEventElapsedTime(&ms, e, e), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    EXPECT_NE(RecentError().find("not reached the record"), std::string::npos) << RecentError();
    EXPECT_EQ(aclrtSynchronizeEventWithTimeout(e, 20), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    EXPECT_NE(RecentError().find("within 20 ms"), std::string::npos) << RecentError();
    gate.Open();
    ASSERT_EQ(aclrtSynchronizeEvent(e), ACL_SUCCESS);
  }
  EXPECT_EQ(Recorded(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  uint64_t stamp = 0;
  EXPECT_EQ(aclrtEventGetTimestamp(e, &stamp), ACL_SUCCESS);
  EXPECT_GT(stamp, 0u);
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(EventTest, StreamWaitEventOrdersWorkAcrossStreams) {
  aclrtStream producer = nullptr;
  aclrtStream consumer = nullptr;
  ASSERT_EQ(aclrtCreateStream(&producer), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&consumer), ACL_SUCCESS);
  aclrtEvent ready = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&ready), ACL_SUCCESS);
  for (int round = 0; round < 20; ++round) {
    int value = 0;  // written on the producer stream, read on the consumer stream
    int seen = -1;
    Gate gate(producer);
    EnqueueTask(Resolve(producer), [&value, round] {
      value = round + 1;
      return RtStatus::Ok();
    });
    ASSERT_EQ(aclrtRecordEvent(ready, producer), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(consumer, ready), ACL_SUCCESS);
    EnqueueTask(Resolve(consumer), [&value, &seen] {
      seen = value;
      return RtStatus::Ok();
    });
    // The consumer cannot pass the wait while the producer is held.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    ASSERT_EQ(aclrtQueryEventStatus(ready, &status), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    gate.Open();
    ASSERT_EQ(aclrtSynchronizeStream(consumer), ACL_SUCCESS);
    EXPECT_EQ(seen, round + 1);
    ASSERT_EQ(aclrtSynchronizeStream(producer), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtDestroyEvent(ready), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(consumer), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(producer), ACL_SUCCESS);
}

TEST_F(EventTest, ElapsedTimeMeasuresTheWorkBetweenTwoRecords) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  aclrtEvent start = nullptr;
  aclrtEvent end = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(start, s), ACL_SUCCESS);
  EnqueueTask(Resolve(s), [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    return RtStatus::Ok();
  });
  ASSERT_EQ(aclrtRecordEvent(end, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  float ms = 0;
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 29.0f);
  EXPECT_LT(ms, 5000.0f);
  ASSERT_EQ(aclrtEventElapsedTime(&ms, end, start), ACL_SUCCESS);
  EXPECT_LE(ms, -29.0f);
  // Reset after the stream's work: the timestamp is forgotten.
  ASSERT_EQ(aclrtResetEvent(end, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_NE(RecentError().find("endEvent has no timestamp"), std::string::npos) << RecentError();
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(EventTest, DestroyingAnEventWithQueuedRecordsAndWaitsIsSafe) {
  aclrtStream producer = nullptr;
  aclrtStream consumer = nullptr;
  ASSERT_EQ(aclrtCreateStream(&producer), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&consumer), ACL_SUCCESS);
  std::atomic<bool> consumer_ran{false};
  {
    Gate gate(producer);
    aclrtEvent e = nullptr;
    ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(e, producer), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(consumer, e), ACL_SUCCESS);
    EnqueueTask(Resolve(consumer), [&consumer_ran] {
      consumer_ran = true;
      return RtStatus::Ok();
    });
    ASSERT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
    EXPECT_EQ(aclrtRecordEvent(e, producer), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_NE(RecentError().find("not a live event"), std::string::npos) << RecentError();
    EXPECT_FALSE(consumer_ran);
  }
  ASSERT_EQ(aclrtSynchronizeStream(consumer), ACL_SUCCESS);
  EXPECT_TRUE(consumer_ran);
  EXPECT_EQ(aclrtDestroyStream(consumer), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(producer), ACL_SUCCESS);
}

TEST_F(EventTest, BadArgumentsAreRefusedWithAMessage) {
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("aclrtCreateEvent: event must not be nullptr"), std::string::npos);
  aclrtEvent e = nullptr;
  EXPECT_EQ(aclrtCreateEventWithFlag(&e, 0x4), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("got 4"), std::string::npos) << RecentError();
  EXPECT_EQ(aclrtDestroyEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtRecordEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("aclrtRecordEvent: event must not be nullptr"), std::string::npos);
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  EXPECT_EQ(aclrtQueryEventStatus(e, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("status must not be nullptr"), std::string::npos);
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(e, -2), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("got -2"), std::string::npos) << RecentError();
  float ms = 0;
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, e, e), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, e, nullptr), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_NE(RecentError().find("startEvent has no timestamp"), std::string::npos) << RecentError();
  // The null stream is the default stream of the current device.
  ASSERT_EQ(aclrtRecordEvent(e, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(e), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, e, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("endEvent must not be nullptr"), std::string::npos) << RecentError();
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_ERROR_RT_PARAM_INVALID);
}

}  // namespace
}  // namespace openaclnn::test
