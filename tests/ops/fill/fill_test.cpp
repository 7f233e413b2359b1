// aclnnInplaceZero, aclnnInplaceOne and aclnnInplaceFillScalar: every dtype, strided, permuted and
// offset views (nothing outside them written), 0-d and empty tensors, scalar conversion and the
// error matrix.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_zero.h"
#include "util/pointwise_convert_test.h"

namespace openaclnn::test::pw {
namespace {

class FillTest : public PointwiseTest {
 protected:
  aclnnStatus Zero(aclTensor* t) {
    return RunOp(
        stream_,
        [&](uint64_t* w, aclOpExecutor** e) { return aclnnInplaceZeroGetWorkspaceSize(t, w, e); },
        aclnnInplaceZero);
  }
  aclnnStatus One(aclTensor* t) {
    return RunOp(
        stream_,
        [&](uint64_t* w, aclOpExecutor** e) { return aclnnInplaceOneGetWorkspaceSize(t, w, e); },
        aclnnInplaceOne);
  }
  aclnnStatus FillScalar(aclTensor* t, aclScalar* v) {
    return RunOp(
        stream_,
        [&](uint64_t* w, aclOpExecutor** e) {
          return aclnnInplaceFillScalarGetWorkspaceSize(t, v, w, e);
        },
        aclnnInplaceFillScalar);
  }
};

TEST_F(FillTest, EveryDtypeAndLayout) {
  // Twice: the engine, then the float64 reference (OPENACLNN_FORCE_IMPL=zero=...,one=...).
  for (const char* impl : {"", "zero=reference,one=reference,fill_scalar=reference"}) {
    setenv("OPENACLNN_FORCE_IMPL", impl, 1);
    for (aclDataType t : AllTypes()) {
      for (const TensorLayout& lo : Layouts(3)) {
        SCOPED_TRACE(DTypeName(t));
        DeviceTensor x({3, 4, 37}, t, lo);
        x.FillDouble({1, 0, 1});
        ASSERT_EQ(Zero(x.get()), ACLNN_SUCCESS) << RecentError();
        ExpectMatches(x, std::vector<double>(x.numel(), 0.0), "zero", true);
        ASSERT_EQ(One(x.get()), ACLNN_SUCCESS) << RecentError();
        ExpectMatches(x, std::vector<double>(x.numel(), 1.0), "one", true);
        // FillScalar from an INT64 and a DOUBLE scalar (a BOOL tensor takes only a BOOL scalar).
        const bool boolean = t == ACL_BOOL;
        const aclDataType it = boolean ? ACL_BOOL : ACL_INT64;
        const double iv = boolean ? 1 : -3;
        Scalar i(iv, it), d(2.75, ACL_DOUBLE);
        ASSERT_EQ(FillScalar(x.get(), i.get()), ACLNN_SUCCESS) << RecentError();
        ExpectMatches(x, std::vector<double>(x.numel(), Converted(it, t, iv)), "fill int", true);
        if (t != ACL_BOOL) {
          ASSERT_EQ(FillScalar(x.get(), d.get()), ACLNN_SUCCESS) << RecentError();
          ExpectMatches(x, std::vector<double>(x.numel(), Converted(ACL_DOUBLE, t, 2.75)),
                        "fill double", true);
        }
        EXPECT_EQ(x.DamagedCanaries(), 0);
      }
    }
  }
}

TEST_F(FillTest, ZeroDimEmptyAndLarge) {
  DeviceTensor s({}, ACL_BF16), e({4, 0}, ACL_FLOAT), big({1000, 301}, ACL_FLOAT16);
  ASSERT_EQ(One(s.get()), ACLNN_SUCCESS);
  EXPECT_EQ(s.GetDouble(0), 1.0);
  EXPECT_EQ(Zero(e.get()), ACLNN_SUCCESS);
  EXPECT_TRUE(e.Untouched());
  Scalar v(0.1, ACL_FLOAT);
  ASSERT_EQ(FillScalar(big.get(), v.get()), ACLNN_SUCCESS);
  ExpectMatches(big, std::vector<double>(big.numel(), RoundThroughHalf(0.1f)), "large", true);
  EXPECT_EQ(big.DamagedCanaries(), 0);
}

TEST_F(FillTest, Errors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), b({2, 3}, ACL_BOOL), c({2, 3}, ACL_COMPLEX64);
  Scalar d(1.5, ACL_DOUBLE);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto check = [&](aclnnStatus got, aclnnStatus code, const char* param) {
    EXPECT_EQ(got, code) << param;
    const std::string msg = RecentError();
    EXPECT_NE(msg.find(param), std::string::npos) << msg;
  };
  check(aclnnInplaceZeroGetWorkspaceSize(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, "selfRef");
  check(aclnnInplaceZeroGetWorkspaceSize(c.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef dtype");
  check(aclnnInplaceOneGetWorkspaceSize(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, "selfRef");
  check(aclnnInplaceOneGetWorkspaceSize(c.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef dtype");
  check(aclnnInplaceFillScalarGetWorkspaceSize(nullptr, d.get(), &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "selfRef");
  check(aclnnInplaceFillScalarGetWorkspaceSize(f.get(), nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "value");
  check(aclnnInplaceFillScalarGetWorkspaceSize(b.get(), d.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "value dtype");
  check(aclnnInplaceFillScalarGetWorkspaceSize(c.get(), d.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef dtype");
}

}  // namespace
}  // namespace openaclnn::test::pw
