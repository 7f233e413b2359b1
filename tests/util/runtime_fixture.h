#pragma once
// A GoogleTest fixture that initialises the runtime and binds device 0 for each test.

#include <gtest/gtest.h>

#include <string>

#include "acl/acl.h"

namespace openaclnn::test {

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};

// The recent error message of this thread, or "" when there is none.
inline std::string RecentError() {
  const char* message = aclGetRecentErrMsg();
  return message == nullptr ? std::string() : std::string(message);
}

}  // namespace openaclnn::test
