// The API matrix of aclnnConvTbc: one case per documented error (code and message), the
// decisions that widen CANN (E7 pad, E8 empty tensors), and phase 2's own checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aclnnop/aclnn_layer_norm.h"
#include "ops/conv_tbc/ct_test_util.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

using test::RecentError;

// A valid call: self (5, 2, 3), weight (3, 3, 4), bias (4), pad 1, output (5, 2, 4).
class ConvTbcApiTest : public test::RuntimeTest {
 protected:
  struct Args {
    std::vector<int64_t> x = {5, 2, 3};
    std::vector<int64_t> w = {3, 3, 4};
    std::vector<int64_t> b = {4};
    std::vector<int64_t> y = {5, 2, 4};
    aclDataType xt = ACL_FLOAT, wt = ACL_FLOAT, bt = ACL_FLOAT, yt = ACL_FLOAT;
    aclFormat xf = ACL_FORMAT_ND, wf = ACL_FORMAT_NCL, yf = ACL_FORMAT_ND;
    int64_t pad = 1;
    int cube = 0;
    bool null_x = false, null_w = false, null_b = false, null_y = false;
    bool null_ws = false, null_ex = false;
  };

  aclnnStatus Phase1(const Args& a) {
    DeviceTensor x(a.x, a.xt, Layout().WithFormat(a.xf));
    DeviceTensor w(a.w, a.wt, Layout().WithFormat(a.wf));
    DeviceTensor b(a.b, a.bt);
    DeviceTensor y(a.y, a.yt, Layout().WithFormat(a.yf));
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus st = aclnnConvTbcGetWorkspaceSize(
        a.null_x ? nullptr : x.get(), a.null_w ? nullptr : w.get(), a.null_b ? nullptr : b.get(),
        a.pad, a.null_y ? nullptr : y.get(), static_cast<int8_t>(a.cube), a.null_ws ? nullptr : &ws,
        a.null_ex ? nullptr : &ex);
    message_ = RecentError();
    if (st == ACLNN_SUCCESS) {
      ScopedStream stream;
      EXPECT_EQ(RunPhase2AndSync(aclnnConvTbc, ws, ex, stream.get()), ACLNN_SUCCESS);
    }
    return st;
  }

  void ExpectError(const Args& a, aclnnStatus code, const std::string& text) {
    EXPECT_EQ(Phase1(a), code) << text;
    EXPECT_NE(message_.find(text), std::string::npos)
        << "message \"" << message_ << "\" does not contain \"" << text << "\"";
  }

  std::string message_;
};

TEST_F(ConvTbcApiTest, ValidCalls) {
  Args a;
  for (int cube = 0; cube <= 4; ++cube) {
    a.cube = cube;
    EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
  }
  // Any bias dtype with any self dtype (E5).
  for (aclDataType t : {ACL_FLOAT16, ACL_BF16}) {
    Args m;
    m.xt = m.wt = m.yt = t;
    m.bt = t == ACL_FLOAT16 ? ACL_BF16 : ACL_FLOAT;
    EXPECT_EQ(Phase1(m), ACLNN_SUCCESS) << message_;
  }
}

TEST_F(ConvTbcApiTest, NullArguments) {
  Args a;
  a.null_ws = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize");
  a = Args();
  a.null_ex = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "executor");
  a = Args();
  a.null_x = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "self");
  a = Args();
  a.null_w = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "weight");
  a = Args();
  a.null_b = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "bias");
  a = Args();
  a.null_y = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "output");
}

TEST_F(ConvTbcApiTest, Dtypes) {
  Args a;
  a.bt = ACL_INT32;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "bias dtype");
  a = Args();
  a.xt = a.wt = a.yt = ACL_DOUBLE;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "self dtype");
  a = Args();
  a.wt = ACL_FLOAT16;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weight dtype");
  a = Args();
  a.yt = ACL_BF16;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "output dtype");
}

TEST_F(ConvTbcApiTest, Ranks) {
  Args a;
  a.x = {5, 2, 3, 1};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "self rank");
  a = Args();
  a.w = {3, 12};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weight rank");
  a = Args();
  a.y = {10, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "output rank");
  a = Args();
  a.b = {1, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "bias rank");
}

TEST_F(ConvTbcApiTest, Formats) {
  Args a;
  a.xf = ACL_FORMAT_NCHW;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "self format");
  a = Args();
  a.wf = ACL_FORMAT_NHWC;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weight format");
  a = Args();
  a.yf = ACL_FORMAT_NC1HWC0;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "output format");
}

TEST_F(ConvTbcApiTest, NegativeDimension) {
  const int64_t dims[3] = {-1, 2, 3};
  const int64_t strides[3] = {6, 3, 1};
  const int64_t storage = 6;
  aclTensor* x =
      aclCreateTensor(dims, 3, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, nullptr);
  DeviceTensor w({3, 3, 4}, ACL_FLOAT);
  DeviceTensor b({4}, ACL_FLOAT);
  DeviceTensor y({5, 2, 4}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(aclnnConvTbcGetWorkspaceSize(x, w.get(), b.get(), 1, y.get(), 0, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("self dim 0"), std::string::npos) << RecentError();
  aclDestroyTensor(x);
}

// An empty self (B = 0) with T_in = INT64_MAX: T_in + 2 * pad + 1 overflows int64 (found by
// fuzz_conv_tbc_phase1; it was signed overflow in the checker before).
TEST_F(ConvTbcApiTest, TimeLengthOverflow) {
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const int64_t dims[3] = {INT64_MAX, 0, 3};
  const int64_t strides[3] = {0, 3, 1};
  const int64_t storage[1] = {16};
  aclTensor* self =
      aclCreateTensor(dims, 3, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, block);
  DeviceTensor w({3, 3, 4}, ACL_FLOAT, Layout().WithFormat(ACL_FORMAT_NCL));
  DeviceTensor b({4}, ACL_FLOAT);
  DeviceTensor y({5, 0, 4}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(aclnnConvTbcGetWorkspaceSize(self, w.get(), b.get(), 0, y.get(), 0, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("overflows int64 (T_in = 9223372036854775807, pad = 0)"),
            std::string::npos)
      << RecentError();
  aclDestroyTensor(self);
  aclrtFree(block);
}

TEST_F(ConvTbcApiTest, Values) {
  Args a;
  a.b = {5};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "bias length");
  a = Args();
  a.pad = -1;
  a.y = {3, 2, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "pad");
  a = Args();  // T_out = 2 + 0 + 1 - 4 < 0
  a.x = {2, 2, 3};
  a.w = {4, 3, 4};
  a.pad = 0;
  a.y = {0, 2, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "output length");
  // T_in + 2 * pad + 1 beyond int64 (see also TimeLengthOverflow).
  a = Args();
  a.pad = INT64_MAX / 2;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "overflows int64");
  a = Args();
  a.w = {3, 5, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weight dim 1");
  a = Args();
  a.y = {4, 2, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "output shape");
  a = Args();
  a.y = {5, 2, 5};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "output shape");
  a = Args();
  a.cube = 5;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "cubeMathType");
  a.cube = -1;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "cubeMathType");
}

TEST_F(ConvTbcApiTest, WiderThanCann) {
  // E7: T_in + pad < K is accepted when T_out >= 0 (CANN counts the pad once and rejects it).
  Args a;
  a.x = {1, 2, 3};
  a.w = {3, 3, 4};
  a.y = {1, 2, 4};
  EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
  // E8: K = 0 is accepted and writes the bias (checked for values in the matrix test).
  a = Args();
  a.w = {0, 3, 4};
  a.y = {8, 2, 4};
  EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
  // Empty output: nothing to compute, workspace 0.
  a = Args();
  a.x = {5, 0, 3};
  a.y = {5, 0, 4};
  EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
}

TEST_F(ConvTbcApiTest, ExtentOutsideAllocation) {
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 16 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const int64_t dims[3] = {5, 2, 3};
  const int64_t storage = 16;
  aclTensor* x = aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &storage, 1, block);
  DeviceTensor w({3, 3, 4}, ACL_FLOAT);
  DeviceTensor b({4}, ACL_FLOAT);
  DeviceTensor y({5, 2, 4}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(aclnnConvTbcGetWorkspaceSize(x, w.get(), b.get(), 1, y.get(), 0, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("self"), std::string::npos) << RecentError();
  aclDestroyTensor(x);
  aclrtFree(block);
}

TEST_F(ConvTbcApiTest, PhaseTwoArguments) {
  EXPECT_EQ(aclnnConvTbc(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_FALSE(RecentError().empty());
  DeviceTensor x({5, 2, 3}, ACL_BF16);
  DeviceTensor w({3, 3, 4}, ACL_BF16);
  DeviceTensor b({4}, ACL_FLOAT);
  DeviceTensor y({5, 2, 4}, ACL_BF16);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnConvTbcGetWorkspaceSize(x.get(), w.get(), b.get(), 1, y.get(), 0, &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);
  ScopedStream stream;
  EXPECT_EQ(aclnnConvTbc(nullptr, ws, ex, stream.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(RecentError().find("workspace"), std::string::npos) << RecentError();
  // An executor is run only by its own operator's phase 2.
  ASSERT_EQ(aclnnConvTbcGetWorkspaceSize(x.get(), w.get(), b.get(), 1, y.get(), 0, &ws, &ex),
            ACLNN_SUCCESS);
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclnnLayerNorm(block, ws, ex, stream.get()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("aclnnConvTbc"), std::string::npos) << RecentError();
  EXPECT_EQ(aclnnConvTbc(block, ws, ex, stream.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(aclrtSynchronizeStream(stream.get()), ACL_SUCCESS);
  aclrtFree(block);
}

}  // namespace
}  // namespace openaclnn::fwd_test
