// aclnnMul, aclnnMuls, aclnnInplaceMul, aclnnInplaceMuls: the shared sweeps against the golden
// model, crafted exact values and the error matrix.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/pointwise_binary_test.h"

namespace openaclnn::test::pw {
namespace {

class MulTest : public PointwiseTest {};

TEST_F(MulTest, EveryDtypePair) { SweepDtypePairs(stream_, Arith::kMul); }
// The float64 reference (OPENACLNN_FORCE_IMPL=mul=reference) on every dtype pair.
TEST_F(MulTest, ReferenceEveryDtypePair) {
  setenv("OPENACLNN_FORCE_IMPL", "mul=reference", 1);
  SweepDtypePairs(stream_, Arith::kMul);
}
TEST_F(MulTest, LayoutsAndBroadcasting) { SweepLayouts(stream_, Arith::kMul); }
TEST_F(MulTest, RandomShapesAndReference) { SweepRandomShapes(stream_, Arith::kMul, "mul", 16); }

TEST_F(MulTest, CraftedExactValues) {
  // INT16 wraps; BOOL is AND.
  DeviceTensor a({2}, ACL_INT16), b({2}, ACL_INT16), out({2}, ACL_INT16);
  a.FillDouble({300, -7});
  b.FillDouble({300, 6});
  ASSERT_EQ(CallBinary(stream_, Arith::kMul, Form::kTensor, a.get(), b.get(), nullptr, nullptr,
                       out.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(out.ValuesDouble(), (std::vector<double>{90000 - 65536, -42}));
  DeviceTensor x({4}, ACL_BOOL), y({4}, ACL_BOOL), z({4}, ACL_BOOL);
  x.FillDouble({0, 0, 1, 1});
  y.FillDouble({0, 1, 0, 1});
  ASSERT_EQ(
      CallBinary(stream_, Arith::kMul, Form::kTensor, x.get(), y.get(), nullptr, nullptr, z.get()),
      ACLNN_SUCCESS);
  EXPECT_EQ(z.ValuesDouble(), (std::vector<double>{0, 0, 0, 1}));
  // Muls of an INT64 tensor by a DOUBLE scalar computes in FLOAT.
  DeviceTensor i({2}, ACL_INT64), f({2}, ACL_FLOAT);
  i.FillDouble({3, -5});
  Scalar s(0.5, ACL_DOUBLE);
  ASSERT_EQ(
      CallBinary(stream_, Arith::kMul, Form::kScalar, i.get(), nullptr, s.get(), nullptr, f.get()),
      ACLNN_SUCCESS);
  EXPECT_EQ(f.ValuesDouble(), (std::vector<double>{1.5, -2.5}));
}

TEST_F(MulTest, Errors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), g({3}, ACL_FLOAT), out({2, 3}, ACL_FLOAT);
  DeviceTensor boolean({2, 3}, ACL_BOOL), wrong({2, 2}, ACL_FLOAT), c64({3}, ACL_COMPLEX64);
  Scalar s(2, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto check = [&](aclnnStatus got, aclnnStatus code, const char* param) {
    EXPECT_EQ(got, code) << param;
    const std::string msg = RecentError();
    EXPECT_NE(msg.find(param), std::string::npos) << msg;
  };
  check(aclnnMulGetWorkspaceSize(f.get(), nullptr, out.get(), &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "other");
  check(aclnnMulGetWorkspaceSize(f.get(), c64.get(), out.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "other dtype");
  check(aclnnMulGetWorkspaceSize(f.get(), g.get(), boolean.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "out dtype");
  check(aclnnMulGetWorkspaceSize(f.get(), wrong.get(), out.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "cannot broadcast");
  check(aclnnMulsGetWorkspaceSize(f.get(), s.get(), wrong.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "out shape");
  check(aclnnInplaceMulGetWorkspaceSize(nullptr, g.get(), &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "selfRef");
  check(aclnnInplaceMulGetWorkspaceSize(g.get(), f.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef shape");
  check(aclnnInplaceMulsGetWorkspaceSize(boolean.get(), s.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef dtype");
}

}  // namespace
}  // namespace openaclnn::test::pw
