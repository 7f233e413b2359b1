// aclnnCast: every dtype to every dtype against the conversion rules, strided layouts, 16-bit
// rounding, empty tensors and the error matrix.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_cast.h"
#include "util/pointwise_convert_test.h"

namespace openaclnn::test::pw {
namespace {

class CastTest : public PointwiseTest {
 protected:
  aclnnStatus Cast(aclTensor* self, aclDataType dtype, aclTensor* out) {
    return RunOp(
        stream_,
        [&](uint64_t* w, aclOpExecutor** e) {
          return aclnnCastGetWorkspaceSize(self, dtype, out, w, e);
        },
        aclnnCast);
  }
};

TEST_F(CastTest, EveryDtypePairAndLayout) {
  uint32_t seed = 1;
  // Twice: the engine, then the float64 reference (OPENACLNN_FORCE_IMPL=cast=reference).
  for (const char* impl : {"", "cast=reference"}) {
    setenv("OPENACLNN_FORCE_IMPL", impl, 1);
    for (aclDataType from : AllTypes()) {
      for (aclDataType to : AllTypes()) {
        for (const TensorLayout& lo : {TensorLayout::Contiguous(), TensorLayout::Scrambled(2)}) {
          SCOPED_TRACE(std::string(DTypeName(from)) + " -> " + DTypeName(to));
          std::mt19937 rng(seed++);
          DeviceTensor self({9, 21}, from, lo), out({9, 21}, to, TensorLayout::Padded(1));
          self.FillDouble(RandomValues(from, self.numel(), &rng));
          const std::vector<double> s = self.ValuesDouble();
          ASSERT_EQ(Cast(self.get(), to, out.get()), ACLNN_SUCCESS) << RecentError();
          std::vector<double> golden;
          for (double v : s) golden.push_back(Converted(from, to, v));
          ExpectMatches(out, golden, "cast", true);
          EXPECT_EQ(out.DamagedCanaries(), 0);
        }
      }
    }
  }
}

// FLOAT -> BFLOAT16 and FLOAT16 round to nearest even once; BFLOAT16 -> FLOAT is exact.
TEST_F(CastTest, SixteenBitRounding) {
  std::mt19937 rng(9);
  const int64_t n = 100003;  // vector bodies and a tail
  DeviceTensor f({n}, ACL_FLOAT), b({n}, ACL_BF16), h({n}, ACL_FLOAT16), back({n}, ACL_FLOAT);
  std::vector<double> v(n);
  std::uniform_real_distribution<float> u(-70000.0f, 70000.0f);
  for (double& x : v) x = u(rng);
  f.FillDouble(v);
  ASSERT_EQ(Cast(f.get(), ACL_BF16, b.get()), ACLNN_SUCCESS);
  ASSERT_EQ(Cast(f.get(), ACL_FLOAT16, h.get()), ACLNN_SUCCESS);
  ASSERT_EQ(Cast(b.get(), ACL_FLOAT, back.get()), ACLNN_SUCCESS);
  const std::vector<double> bv = b.ValuesDouble(), hv = h.ValuesDouble(), fv = back.ValuesDouble();
  for (int64_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(v[i]);
    ASSERT_EQ(bv[i], RoundThroughBFloat16(x)) << i;
    ASSERT_EQ(hv[i], RoundThroughHalf(x)) << i;
    ASSERT_EQ(fv[i], bv[i]) << i;
  }
}

TEST_F(CastTest, EmptyAndZeroDim) {
  DeviceTensor e({3, 0}, ACL_FLOAT), eo({3, 0}, ACL_INT32);
  EXPECT_EQ(Cast(e.get(), ACL_INT32, eo.get()), ACLNN_SUCCESS);
  EXPECT_TRUE(eo.Untouched());
  DeviceTensor s({}, ACL_DOUBLE), so({}, ACL_INT16);
  s.FillDouble({-7.9});
  ASSERT_EQ(Cast(s.get(), ACL_INT16, so.get()), ACLNN_SUCCESS);
  EXPECT_EQ(so.GetDouble(0), -7);
}

TEST_F(CastTest, Errors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), o({2, 3}, ACL_BF16), wrong({3, 2}, ACL_BF16);
  DeviceTensor c({2, 3}, ACL_COMPLEX64), u16({2, 3}, ACL_UINT16);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto check = [&](aclnnStatus got, aclnnStatus code, const char* param) {
    EXPECT_EQ(got, code) << param;
    const std::string msg = RecentError();
    EXPECT_NE(msg.find(param), std::string::npos) << msg;
  };
  check(aclnnCastGetWorkspaceSize(nullptr, ACL_BF16, o.get(), &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "self");
  check(aclnnCastGetWorkspaceSize(f.get(), ACL_BF16, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "out");
  check(aclnnCastGetWorkspaceSize(c.get(), ACL_BF16, o.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "self dtype");
  check(aclnnCastGetWorkspaceSize(f.get(), ACL_BF16, wrong.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "out shape");
  check(aclnnCastGetWorkspaceSize(f.get(), ACL_UINT16, u16.get(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, "dtype");
  check(aclnnCastGetWorkspaceSize(f.get(), ACL_FLOAT16, o.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "out dtype");
}

}  // namespace
}  // namespace openaclnn::test::pw
