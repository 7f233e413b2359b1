// aclnnSub, aclnnSubs, aclnnInplaceSub, aclnnInplaceSubs: the shared sweeps against the golden
// model, crafted exact values and the error matrix.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/pointwise_binary_test.h"

namespace openaclnn::test::pw {
namespace {

class SubTest : public PointwiseTest {};

TEST_F(SubTest, EveryDtypePair) { SweepDtypePairs(stream_, Arith::kSub); }
// The float64 reference (OPENACLNN_FORCE_IMPL=sub=reference) on every dtype pair.
TEST_F(SubTest, ReferenceEveryDtypePair) {
  setenv("OPENACLNN_FORCE_IMPL", "sub=reference", 1);
  SweepDtypePairs(stream_, Arith::kSub);
}
TEST_F(SubTest, LayoutsAndBroadcasting) { SweepLayouts(stream_, Arith::kSub); }
TEST_F(SubTest, RandomShapesAndReference) { SweepRandomShapes(stream_, Arith::kSub, "sub", 16); }

TEST_F(SubTest, CraftedExactValues) {
  // UINT8 wraps below zero; alpha scales other.
  DeviceTensor a({3}, ACL_UINT8), b({3}, ACL_UINT8), out({3}, ACL_UINT8);
  a.FillDouble({5, 200, 0});
  b.FillDouble({10, 50, 1});
  Scalar alpha(2, ACL_INT64);
  ASSERT_EQ(CallBinary(stream_, Arith::kSub, Form::kTensor, a.get(), b.get(), nullptr, alpha.get(),
                       out.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(out.ValuesDouble(), (std::vector<double>{241, 100, 254}));
  // Subs in place on BFLOAT16: 1.5 - 0.5 * 3 = 0 exactly.
  DeviceTensor h({2}, ACL_BF16);
  h.FillDouble({1.5, -1.5});
  Scalar three(3, ACL_INT32), half(0.5, ACL_DOUBLE);
  ASSERT_EQ(CallBinary(stream_, Arith::kSub, Form::kInplaceScalar, h.get(), nullptr, three.get(),
                       half.get(), nullptr),
            ACLNN_SUCCESS);
  EXPECT_EQ(h.ValuesDouble(), (std::vector<double>{0, -3}));
}

TEST_F(SubTest, Errors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), g({3}, ACL_FLOAT), out({2, 3}, ACL_FLOAT);
  DeviceTensor boolean({2, 3}, ACL_BOOL), wrong({2, 2}, ACL_FLOAT);
  Scalar alpha(1, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto check = [&](aclnnStatus got, aclnnStatus code, const char* param) {
    EXPECT_EQ(got, code) << param;
    const std::string msg = RecentError();
    EXPECT_NE(msg.find(param), std::string::npos) << msg;
  };
  check(aclnnSubGetWorkspaceSize(nullptr, g.get(), alpha.get(), out.get(), &ws, &ex),
        ACLNN_ERR_PARAM_NULLPTR, "self");
  check(aclnnSubGetWorkspaceSize(f.get(), g.get(), nullptr, out.get(), &ws, &ex),
        ACLNN_ERR_PARAM_NULLPTR, "alpha");
  check(aclnnSubGetWorkspaceSize(f.get(), g.get(), alpha.get(), boolean.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "out dtype");
  check(aclnnSubGetWorkspaceSize(f.get(), g.get(), alpha.get(), wrong.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "out shape");
  check(aclnnSubsGetWorkspaceSize(f.get(), alpha.get(), alpha.get(), wrong.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "out shape");
  check(aclnnInplaceSubGetWorkspaceSize(g.get(), f.get(), alpha.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "selfRef shape");
  check(aclnnInplaceSubsGetWorkspaceSize(f.get(), nullptr, alpha.get(), &ws, &ex),
        ACLNN_ERR_PARAM_NULLPTR, "other");
  check(aclnnSubGetWorkspaceSize(f.get(), wrong.get(), alpha.get(), out.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "cannot broadcast");
}

}  // namespace
}  // namespace openaclnn::test::pw
