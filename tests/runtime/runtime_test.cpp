// Initialisation, devices, memory, options and the recent error message.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "runtime/device.h"
#include "runtime/memory.h"
#include "runtime/sysparam.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

TEST(InitTest, RepeatedInitIsReferenceCounted) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclInit("/nonexistent/config.json"), ACL_SUCCESS);
  uint64_t remaining = 99;
  EXPECT_EQ(aclFinalizeReference(&remaining), ACL_SUCCESS);
  EXPECT_EQ(remaining, 1u);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  EXPECT_NE(RecentError().find("not initialised"), std::string::npos);
}

TEST(InitTest, AclnnInitAlongsideAclInit) {
  EXPECT_EQ(aclnnInit(nullptr), 0);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclnnFinalize(), 0);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(DeviceTest, SetGetResetAndInvalidIds) {
  int32_t device = 7;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_NE(RecentError().find("aclrtSetDevice"), std::string::npos);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_GE(count, 1u);
  EXPECT_EQ(aclrtSetDevice(static_cast<int32_t>(count)), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(RecentError().find("deviceId"), std::string::npos);
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtResetDevice(4096), ACL_ERROR_RT_INVALID_DEVICEID);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);  // repeatable
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST(DeviceTest, CurrentDeviceIsPerThread) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclError other = ACL_SUCCESS;
  std::thread t([&] {
    int32_t device = -1;
    other = aclrtGetDevice(&device);
  });
  t.join();
  EXPECT_EQ(other, ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

using MemoryTest = RuntimeTest;

TEST_F(MemoryTest, MallocAlignsRefusesZeroAndAcceptsEveryPolicy) {
  const aclrtMemMallocPolicy policies[] = {
      ACL_MEM_MALLOC_HUGE_FIRST,         ACL_MEM_MALLOC_HUGE_ONLY,
      ACL_MEM_MALLOC_NORMAL_ONLY,        ACL_MEM_MALLOC_HUGE_FIRST_P2P,
      ACL_MEM_MALLOC_HUGE_ONLY_P2P,      ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
      ACL_MEM_MALLOC_HUGE1G_ONLY,        ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
      ACL_MEM_TYPE_LOW_BAND_WIDTH,       ACL_MEM_TYPE_HIGH_BAND_WIDTH,
      ACL_MEM_ACCESS_USER_SPACE_READONLY};
  for (aclrtMemMallocPolicy policy : policies) {
    void* p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, 100, policy), ACL_SUCCESS) << policy;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    AllocationBlock block;
    ASSERT_TRUE(FindAllocation(static_cast<char*>(p) + 99, &block));
    EXPECT_EQ(block.base, reinterpret_cast<uintptr_t>(p));
    EXPECT_EQ(block.size, 100u);
    EXPECT_FALSE(FindAllocation(static_cast<char*>(p) + 100, &block));
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    EXPECT_FALSE(FindAllocation(p, &block));
  }
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("size must be greater than 0"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(RecentError().find("could not allocate"), std::string::npos);
}

// The policies that ask for huge pages give blocks of a huge page or more a 2 MiB-aligned start on
// the CPU device (marked for transparent huge pages); NORMAL_ONLY and small blocks keep the
// 64-byte alignment. Every byte of such a block is usable and the table records its exact size.
TEST_F(MemoryTest, HugePagePoliciesAlignLargeBlocks) {
  if (ProcessDeviceKind() == DeviceKind::kCuda)
    GTEST_SKIP() << "device memory is cudaMalloc's here";
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t size = 3 * kHugePage + 100;
  for (aclrtMemMallocPolicy policy :
       {ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
        ACL_MEM_TYPE_HIGH_BAND_WIDTH, ACL_MEM_MALLOC_NORMAL_ONLY}) {
    void* p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, size, policy), ACL_SUCCESS) << policy;
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    EXPECT_EQ(at % 64, 0u);
    if (policy != ACL_MEM_MALLOC_NORMAL_ONLY) {
      EXPECT_EQ(at % kHugePage, 0u) << policy;
    }
    std::memset(p, 0x5a, size);
    EXPECT_EQ(static_cast<unsigned char*>(p)[size - 1], 0x5a);
    AllocationBlock block;
    ASSERT_TRUE(FindAllocation(static_cast<char*>(p) + size - 1, &block));
    EXPECT_EQ(block.size, size);
    EXPECT_FALSE(FindAllocation(static_cast<char*>(p) + size, &block));
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  }
}

TEST_F(MemoryTest, FreeRejectsForeignPointers) {
  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  int local = 0;
  EXPECT_EQ(aclrtFree(&local), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("not the start of a live aclrtMalloc block"), std::string::npos);
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(static_cast<char*>(p) + 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_ERROR_INVALID_PARAM);  // double free is caught
}

TEST_F(MemoryTest, HostMemory) {
  void* h = nullptr;
  ASSERT_EQ(aclrtMallocHost(&h, 256), ACL_SUCCESS);
  std::memset(h, 1, 256);
  EXPECT_EQ(aclrtMallocHost(&h, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(h), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(h), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(nullptr, 8), ACL_ERROR_INVALID_PARAM);
}

TEST_F(MemoryTest, MemcpyAndMemsetChecks) {
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<uint8_t> host(128, 7);
  EXPECT_EQ(aclrtMemcpy(d, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(d, 32, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("must not exceed destMax"), std::string::npos);
  // destMax is the caller's claim; the allocation table knows better.
  EXPECT_EQ(aclrtMemcpy(d, 128, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("runs past the end"), std::string::npos);
  EXPECT_EQ(
      aclrtMemcpy(host.data(), 128, static_cast<char*>(d) + 32, 64, ACL_MEMCPY_DEVICE_TO_HOST),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(d, 64, host.data(), 8, static_cast<aclrtMemcpyKind>(8)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(nullptr, 64, host.data(), 8, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(nullptr, 0, nullptr, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  // Every kind is advisory: the addresses decide.
  for (int kind = 0; kind <= 7; ++kind) {
    EXPECT_EQ(aclrtMemcpy(d, 64, host.data(), 4, static_cast<aclrtMemcpyKind>(kind)), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtMemset(d, 64, 0xAB, 64), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(d, 16, 0, 64), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(static_cast<char*>(d) + 8, 64, 0, 64), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(nullptr, 8, 0, 8), ACL_ERROR_INVALID_PARAM);
  std::vector<uint8_t> back(64, 0);
  ASSERT_EQ(aclrtMemcpy(back.data(), 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (uint8_t b : back) ASSERT_EQ(b, 0xAB);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
}

using OptionTest = RuntimeTest;

TEST_F(OptionTest, ContextAndProcessDeterminism) {
  int64_t value = -1;
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  // Tests share one process: the context may carry a value from an earlier test, so only a
  // fresh device context is checked for "never set".
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  EXPECT_NE(RecentError().find("never set"), std::string::npos);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 0);
  EXPECT_EQ(DeterministicMode(), 0);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  // The context setting reaches the process table that operators read in phase 1.
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  EXPECT_EQ(DeterministicMode(), 1);
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2), ACL_SUCCESS);
  EXPECT_EQ(DeterministicMode(), 2);
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  EXPECT_EQ(DeterministicMode(), 0);

  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCtxSetSysParamOpt(static_cast<aclSysParamOpt>(9), 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(static_cast<aclSysParamOpt>(4), 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
}

TEST(OptionNoDeviceTest, ContextOptionsNeedADevice) {
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_ERROR_RT_CONTEXT_NULL);
  int64_t value = 0;
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST(RecentErrorTest, IsPerThreadAndConsumedOnRead) {
  EXPECT_EQ(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  std::string seen_elsewhere = "unset";
  std::thread t([&] {
    const char* m = aclGetRecentErrMsg();
    seen_elsewhere = m == nullptr ? "" : m;
  });
  t.join();
  EXPECT_EQ(seen_elsewhere, "");
  const char* mine = aclGetRecentErrMsg();
  ASSERT_NE(mine, nullptr);
  EXPECT_NE(std::string(mine).find("devPtr"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  // A successful call leaves an unread message in place, so a clean-up call made after a failure
  // does not hide its reason.
  EXPECT_EQ(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const char* kept = aclGetRecentErrMsg();
  ASSERT_NE(kept, nullptr);
  EXPECT_NE(std::string(kept).find("devPtr"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::test
