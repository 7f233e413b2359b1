// The runtime calls framework adapters make at start-up: device queries (aclrtGetSocName,
// aclrtGetMemInfo, aclrtGetDeviceInfo), libacl_op_compiler's options, and nnopbase's memory hooks.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "backend/cpu/thread_pool.h"
#include "runtime/adapter_hooks.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

using AdapterRuntimeTest = RuntimeTest;

TEST_F(AdapterRuntimeTest, SocNameIsAnAscendNameFixedForTheProcess) {
  const char* first = aclrtGetSocName();
  ASSERT_NE(first, nullptr);
  const char* env = std::getenv("OPENACLNN_SOC_NAME");
  EXPECT_STREQ(first, env != nullptr && env[0] != '\0' ? env : "Ascend910B1");
  EXPECT_EQ(aclrtGetSocName(), first);  // the same storage on every call
}

TEST_F(AdapterRuntimeTest, MemInfoReportsHostMemoryForEveryAttribute) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const size_t machine = static_cast<size_t>(pages) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (int attr = ACL_DDR_MEM; attr <= ACL_HBM_MEM_P2P_HUGE1G; ++attr) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    ASSERT_EQ(aclrtGetMemInfo(static_cast<aclrtMemAttr>(attr), &free_bytes, &total_bytes),
              ACL_SUCCESS)
        << attr << ": " << RecentError();
    EXPECT_EQ(total_bytes, machine) << attr;
    EXPECT_GT(free_bytes, 0u) << attr;
    EXPECT_LE(free_bytes, total_bytes) << attr;
  }
}

TEST_F(AdapterRuntimeTest, MemInfoRejectsBadArguments) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &total_bytes), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("free and total must not be nullptr"), std::string::npos);
  EXPECT_EQ(aclrtGetMemInfo(static_cast<aclrtMemAttr>(12), &free_bytes, &total_bytes),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("got 12"), std::string::npos);
  // Without a current device on this thread.
  std::thread other([] {
    size_t f = 0;
    size_t t = 0;
    EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_NE(RecentError().find("aclrtSetDevice"), std::string::npos);
  });
  other.join();
}

TEST_F(AdapterRuntimeTest, DeviceInfoOfTheCpuDevice) {
  int64_t value = -1;
  for (aclrtDevAttr attr : {ACL_DEV_ATTR_AICPU_CORE_NUM, ACL_DEV_ATTR_AICORE_CORE_NUM,
                            ACL_DEV_ATTR_CUBE_CORE_NUM, ACL_DEV_ATTR_VECTOR_CORE_NUM}) {
    ASSERT_EQ(aclrtGetDeviceInfo(0, attr, &value), ACL_SUCCESS) << attr << RecentError();
    EXPECT_EQ(value, cpu::NumThreads()) << attr;
  }
  ASSERT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &value), ACL_SUCCESS);
  EXPECT_EQ(value, static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE));
  ASSERT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &value), ACL_SUCCESS);
  EXPECT_GE(value, 0);
}

TEST_F(AdapterRuntimeTest, DeviceInfoRejectsBadArguments) {
  int64_t value = 42;
  EXPECT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("value must not be nullptr"), std::string::npos);
  EXPECT_EQ(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_AICORE_CORE_NUM, &value),
            ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(RecentError().find("deviceId must be in [0, 1), got 1"), std::string::npos);
  // A GPU attribute on the CPU device, and an attribute CANN has but openaclnn does not answer.
  EXPECT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, &value),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_NE(RecentError().find("attr 202"), std::string::npos);
  EXPECT_EQ(aclrtGetDeviceInfo(0, static_cast<aclrtDevAttr>(3), &value),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  EXPECT_EQ(value, 42);  // untouched on failure
}

TEST(CompileOptionTest, RecordedAndReadBack) {
  // Before anything is set: JIT compilation reads as disabled, the rest as empty.
  char buffer[64];
  ASSERT_EQ(aclGetCompileoptSize(ACL_OP_JIT_COMPILE), std::strlen("disable") + 1);
  ASSERT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, buffer, sizeof(buffer)), ACL_SUCCESS);
  EXPECT_STREQ(buffer, "disable");
  ASSERT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, "allow_fp32_to_fp16"), ACL_SUCCESS);
  ASSERT_EQ(aclGetCompileoptSize(ACL_PRECISION_MODE), std::strlen("allow_fp32_to_fp16") + 1);
  ASSERT_EQ(aclGetCompileopt(ACL_PRECISION_MODE, buffer, sizeof(buffer)), ACL_SUCCESS);
  EXPECT_STREQ(buffer, "allow_fp32_to_fp16");
  ASSERT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype"), ACL_SUCCESS);
  ASSERT_EQ(aclGetCompileopt(ACL_PRECISION_MODE, buffer, sizeof(buffer)), ACL_SUCCESS);
  EXPECT_STREQ(buffer, "must_keep_origin_dtype");
  EXPECT_EQ(aclopSetCompileFlag(ACL_OPCOMPILE_FUZZ), ACL_SUCCESS);
  EXPECT_EQ(aclopSetCompileFlag(ACL_OPCOMPILE_DEFAULT), ACL_SUCCESS);
}

TEST(CompileOptionTest, RejectsBadArguments) {
  char buffer[4];
  EXPECT_EQ(aclSetCompileopt(static_cast<aclCompileOpt>(17), "x"), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("0..16), got 17"), std::string::npos);
  EXPECT_EQ(aclSetCompileopt(static_cast<aclCompileOpt>(-1), "x"), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclSetCompileopt(ACL_OP_DEBUG_LEVEL, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("value must not be nullptr"), std::string::npos);
  EXPECT_EQ(aclGetCompileoptSize(static_cast<aclCompileOpt>(99)), 0u);
  EXPECT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, nullptr, 8), ACL_ERROR_INVALID_PARAM);
  // "disable" needs 8 bytes; the buffer is left as it was.
  std::memcpy(buffer, "abc", 4);
  EXPECT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, buffer, sizeof(buffer)), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("at least 8"), std::string::npos);
  EXPECT_STREQ(buffer, "abc");
  EXPECT_EQ(aclopSetCompileFlag(static_cast<aclOpCompileFlag>(2)), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentError().find("got 2"), std::string::npos);
}

TEST(MemoryHookTest, AnyOrderAnyThreadAnyCount) {
  auto cycle = [] {
    for (int i = 0; i < 100; ++i) {
      EXPECT_EQ(InitHugeMemThreadLocal(nullptr, i % 2 == 0), 0);
      EXPECT_EQ(InitHugeMemThreadLocal(nullptr, false), 0);  // nested
      UnInitHugeMemThreadLocal(nullptr, false);
      UnInitHugeMemThreadLocal(nullptr, true);
      ReleaseHugeMem(nullptr, false);
    }
    ReleaseHugeMem(nullptr, true);  // without Init
    UnInitHugeMemThreadLocal(nullptr, false);
  };
  std::thread a(cycle);
  std::thread b(cycle);
  cycle();
  a.join();
  b.join();
}

}  // namespace
}  // namespace openaclnn::test
