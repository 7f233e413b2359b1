// Streams: order, asynchrony, several at once, errors surfacing at synchronisation.

#include "runtime/stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

using StreamTest = RuntimeTest;

Stream* Resolve(aclrtStream s) {
  Stream* stream = nullptr;
  EXPECT_EQ(ResolveStream(s, &stream), ACL_SUCCESS);
  return stream;
}

TEST_F(StreamTest, TasksRunInOrderOffTheCallingThread) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> first_started{false};
  std::thread::id worker;
  std::vector<int> order;
  EnqueueTask(Resolve(s), [&] {
    worker = std::this_thread::get_id();
    first_started = true;
    released.wait();  // blocks the stream, not the caller
    order.push_back(0);
    return RtStatus::Ok();
  });
  for (int i = 1; i <= 50; ++i) {
    EnqueueTask(Resolve(s), [&order, i] {
      order.push_back(i);
      return RtStatus::Ok();
    });
  }
  // We got here while the first task is still blocked: enqueueing is asynchronous.
  while (!first_started) std::this_thread::yield();
  EXPECT_TRUE(order.empty());
  release.set_value();
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_NE(worker, std::this_thread::get_id());
  ASSERT_EQ(order.size(), 51u);
  for (int i = 0; i <= 50; ++i) EXPECT_EQ(order[i], i);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

// Operator runs (RunOrEnqueueTask) go on the calling thread only when the stream is idle, and
// never ahead of, or beside, anything queued or running on it.
TEST_F(StreamTest, RunsHereOnlyWhenIdleAndKeepsTheOrder) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  std::vector<int> order;
  std::thread::id ran_on;
  RunOrEnqueueTask(Resolve(s), [&] {
    ran_on = std::this_thread::get_id();
    order.push_back(0);
    return RtStatus::Ok();
  });
  // Idle stream: done before the call returned, on this thread.
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(ran_on, std::this_thread::get_id());

  // Behind a blocked worker task, the same call queues.
  std::promise<void> release_worker;
  std::shared_future<void> worker_released = release_worker.get_future().share();
  std::atomic<bool> worker_started{false};
  EnqueueTask(Resolve(s), [&] {
    worker_started = true;
    worker_released.wait();
    order.push_back(1);
    return RtStatus::Ok();
  });
  while (!worker_started) std::this_thread::yield();
  for (int i = 2; i <= 20; ++i) {
    auto task = [&order, i] {
      order.push_back(i);
      return RtStatus::Ok();
    };
    if (i % 2 == 0) {
      RunOrEnqueueTask(Resolve(s), task);
    } else {
      EnqueueTask(Resolve(s), task);
    }
  }
  EXPECT_EQ(order.size(), 1u);  // nothing ran past the blocked task
  release_worker.set_value();
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(order.size(), 21u);
  for (int i = 0; i <= 20; ++i) EXPECT_EQ(order[i], i);

  // While a task runs on its caller's thread, tasks from another thread wait behind it.
  order.clear();
  std::promise<void> release_here;
  std::shared_future<void> here_released = release_here.get_future().share();
  std::atomic<bool> here_started{false};
  std::thread caller([&] {
    RunOrEnqueueTask(Resolve(s), [&] {
      here_started = true;
      here_released.wait();
      order.push_back(0);
      return RtStatus::Ok();
    });
  });
  while (!here_started) std::this_thread::yield();
  std::atomic<bool> second_ran{false};
  RunOrEnqueueTask(Resolve(s), [&] {
    second_ran = true;
    order.push_back(1);
    return RtStatus::Ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(second_ran.load());
  release_here.set_value();
  caller.join();
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], 0);
  EXPECT_EQ(order[1], 1);

  // A failure of a task run here surfaces at the next synchronisation, once.
  RunOrEnqueueTask(
      Resolve(s), [] { return RtErrorStatus(ACL_ERROR_RT_AICORE_EXCEPTION, "failed on purpose"); });
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(StreamTest, AsyncCopiesAndSetsCompleteInOrder) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  const size_t n = 1 << 16;
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<uint8_t> a(n, 1), back(n, 0);
  ASSERT_EQ(aclrtMemsetAsync(d, n, 9, n, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(d, n, a.data(), n / 2, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(back.data(), n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(back[0], 1);
  EXPECT_EQ(back[n / 2 - 1], 1);
  EXPECT_EQ(back[n / 2], 9);
  EXPECT_EQ(back[n - 1], 9);
  EXPECT_EQ(aclrtMemcpyAsync(d, 4, a.data(), 8, ACL_MEMCPY_HOST_TO_DEVICE, s),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(d, 4, 0, 8, s), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtFree(d), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(StreamTest, SeveralStreamsRunAtOnce) {
  // Two streams each wait for the other's task: this finishes only if they run concurrently.
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&b), ACL_SUCCESS);
  std::atomic<int> arrived{0};
  auto rendezvous = [&arrived] {
    ++arrived;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    return arrived.load() >= 2 ? RtStatus::Ok()
                               : RtErrorStatus(507000, "the other stream never ran");
  };
  EnqueueTask(Resolve(a), rendezvous);
  EnqueueTask(Resolve(b), rendezvous);
  EXPECT_EQ(aclrtSynchronizeStream(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(b), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(b), ACL_SUCCESS);
}

TEST_F(StreamTest, FailuresSurfaceAtSynchronisationOnce) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  std::atomic<int> ran{0};
  EnqueueTask(Resolve(s), [] { return RtErrorStatus(507015, "kernel fault for the test"); });
  EnqueueTask(Resolve(s), [&] {
    ++ran;  // later tasks still run, as on the device
    return RtStatus::Ok();
  });
  EXPECT_EQ(aclrtSynchronizeStream(s), 507015);
  EXPECT_NE(RecentError().find("kernel fault for the test"), std::string::npos);
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(StreamTest, HandleChecks) {
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(RecentError().find("not a live stream"), std::string::npos);
  int dummy = 0;
  EXPECT_EQ(aclrtMemsetAsync(&dummy, 4, 0, 4, s), ACL_ERROR_RT_PARAM_INVALID);
}

TEST(StreamNoDeviceTest, NeedsACurrentDevice) {
  aclrtStream s = nullptr;
  EXPECT_EQ(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_NE(RecentError().find("aclrtSetDevice"), std::string::npos);
}

TEST(StreamLifetimeTest, ResetDeviceDrainsTheDefaultStream) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  std::atomic<bool> done{false};
  Stream* stream = nullptr;
  ASSERT_EQ(ResolveStream(nullptr, &stream), ACL_SUCCESS);
  EnqueueTask(stream, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    done = true;
    return RtStatus::Ok();
  });
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_TRUE(done.load());
}

}  // namespace
}  // namespace openaclnn::test
