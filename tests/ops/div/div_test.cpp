// aclnnDiv, aclnnDivs, aclnnInplaceDiv, aclnnInplaceDivs: the shared sweeps against the golden
// model (integer and BOOL promotions divide in FLOAT), crafted exact values, IEEE special values
// and the error matrix.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "util/pointwise_binary_test.h"

namespace openaclnn::test::pw {
namespace {

class DivTest : public PointwiseTest {};

TEST_F(DivTest, EveryDtypePair) { SweepDtypePairs(stream_, Arith::kDiv); }
// The float64 reference (OPENACLNN_FORCE_IMPL=div=reference) on every dtype pair.
TEST_F(DivTest, ReferenceEveryDtypePair) {
  setenv("OPENACLNN_FORCE_IMPL", "div=reference", 1);
  SweepDtypePairs(stream_, Arith::kDiv);
}
TEST_F(DivTest, LayoutsAndBroadcasting) { SweepLayouts(stream_, Arith::kDiv); }
TEST_F(DivTest, RandomShapesAndReference) { SweepRandomShapes(stream_, Arith::kDiv, "div", 16); }

TEST_F(DivTest, CraftedExactValues) {
  // INT32 / INT32 is a FLOAT quotient.
  DeviceTensor a({3}, ACL_INT32), b({3}, ACL_INT32), out({3}, ACL_FLOAT);
  a.FillDouble({7, -9, 1});
  b.FillDouble({2, 4, 8});
  ASSERT_EQ(CallBinary(stream_, Arith::kDiv, Form::kTensor, a.get(), b.get(), nullptr, nullptr,
                       out.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(out.ValuesDouble(), (std::vector<double>{3.5, -2.25, 0.125}));
  // Division by zero follows IEEE: +-inf and NaN (a vector-wide run and its tail).
  const double inf = std::numeric_limits<double>::infinity();
  DeviceTensor x({19}, ACL_FLOAT), y({19}, ACL_FLOAT), z({19}, ACL_FLOAT);
  std::vector<double> xs(19, 1.0), ys(19, 0.0), want(19, inf);
  xs[3] = -1;
  want[3] = -inf;
  xs[18] = 0;
  x.FillDouble(xs);
  y.FillDouble(ys);
  ASSERT_EQ(
      CallBinary(stream_, Arith::kDiv, Form::kTensor, x.get(), y.get(), nullptr, nullptr, z.get()),
      ACLNN_SUCCESS);
  const std::vector<double> got = z.ValuesDouble();
  for (int i = 0; i < 18; ++i) EXPECT_EQ(got[i], want[i]) << i;
  EXPECT_TRUE(std::isnan(got[18]));
  // Divs of FLOAT16 in place by an INT scalar.
  DeviceTensor h({2}, ACL_FLOAT16);
  h.FillDouble({3, -1});
  Scalar four(4, ACL_INT8);
  ASSERT_EQ(CallBinary(stream_, Arith::kDiv, Form::kInplaceScalar, h.get(), nullptr, four.get(),
                       nullptr, nullptr),
            ACLNN_SUCCESS);
  EXPECT_EQ(h.ValuesDouble(), (std::vector<double>{0.75, -0.25}));
}

TEST_F(DivTest, Errors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), g({3}, ACL_FLOAT), out({2, 3}, ACL_FLOAT);
  DeviceTensor iout({2, 3}, ACL_INT32), wrong({2, 2}, ACL_FLOAT), i32({2, 3}, ACL_INT32);
  Scalar s(2, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto check = [&](aclnnStatus got, aclnnStatus code, const char* param) {
    EXPECT_EQ(got, code) << param;
    const std::string msg = RecentError();
    EXPECT_NE(msg.find(param), std::string::npos) << msg;
  };
  // CANN checks out first.
  check(aclnnDivGetWorkspaceSize(nullptr, nullptr, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "out");
  check(aclnnDivGetWorkspaceSize(nullptr, g.get(), out.get(), &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "self");
  check(aclnnDivGetWorkspaceSize(f.get(), g.get(), iout.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "out dtype");
  check(aclnnDivGetWorkspaceSize(f.get(), wrong.get(), out.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "cannot broadcast");
  check(aclnnDivsGetWorkspaceSize(f.get(), s.get(), wrong.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "out shape");
  check(aclnnInplaceDivGetWorkspaceSize(i32.get(), g.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef dtype");
  check(aclnnInplaceDivsGetWorkspaceSize(f.get(), nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "other");
}

}  // namespace
}  // namespace openaclnn::test::pw
