// 16-bit float conversions, checked exhaustively against rounding computed in double.

#include "api/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace openaclnn {
namespace {

// The value of a binary16 bit pattern, computed independently of HalfToFloat.
double HalfValue(uint16_t h) {
  const int sign = (h >> 15) ? -1 : 1;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

TEST(HalfTest, EveryPatternDecodesAndRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    const double expected = HalfValue(static_cast<uint16_t>(h));
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_TRUE(std::isnan(HalfToFloat(FloatToHalf(f)))) << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), expected) << h;
    ASSERT_EQ(FloatToHalf(f), h) << h;
  }
}

TEST(HalfTest, MidpointsRoundToEven) {
  // Between every pair of adjacent positive finite halves, the midpoint goes to the even one and
  // the values just beside it go to the nearer one.
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const double lo = HalfValue(static_cast<uint16_t>(h));
    const double hi = HalfValue(static_cast<uint16_t>(h + 1));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact in float
    const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h);
    ASSERT_EQ(FloatToHalf(mid), even) << h;
    ASSERT_EQ(FloatToHalf(-mid), even | 0x8000) << h;
    ASSERT_EQ(FloatToHalf(std::nextafter(mid, 0.f)), h) << h;
    ASSERT_EQ(FloatToHalf(std::nextafter(mid, 1e9f)), h + 1) << h;
  }
  EXPECT_EQ(FloatToHalf(65504.f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65519.99f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.f), 0x7c00);  // the midpoint to the next binade rounds to inf
  EXPECT_EQ(FloatToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(FloatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(FloatToHalf(1e-10f), 0);
  EXPECT_EQ(FloatToHalf(-0.f), 0x8000);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
}

TEST(BFloat16Test, RoundToNearestEvenKeepsSpecials) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = BFloat16ToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(f))));
      continue;
    }
    ASSERT_EQ(FloatToBFloat16(f), b);
    if ((b & 0x7fff) >= 0x7f7f) continue;  // no finite successor
    const float next = BFloat16ToFloat(static_cast<uint16_t>(b + 1));
    const float mid = static_cast<float>((static_cast<double>(f) + next) / 2);
    const uint16_t even = (b & 1) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
    ASSERT_EQ(FloatToBFloat16(mid), even) << b;
  }
  EXPECT_EQ(FloatToBFloat16(3.4e38f), 0x7f80);  // rounds up to inf
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(NAN))));
  // A NaN whose payload sits only in the low bits must not become infinity.
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(BitsToFloat(0x7f800001u)))));
}

TEST(Hf32Test, KeepsElevenMantissaBitsRoundingHalfAway) {
  EXPECT_EQ(RoundToHf32(1.0f), 1.0f);
  const float ulp = std::ldexp(1.0f, -11);
  EXPECT_EQ(RoundToHf32(1.0f + ulp / 2), 1.0f + ulp);  // half rounds away
  EXPECT_EQ(RoundToHf32(1.0f + ulp / 2 - std::ldexp(1.0f, -23)), 1.0f);
  EXPECT_EQ(RoundToHf32(-(1.0f + ulp / 2)), -(1.0f + ulp));  // in magnitude
  EXPECT_EQ(RoundToHf32(INFINITY), INFINITY);
}

TEST(PromotionTest, FloatTable) {
  EXPECT_EQ(PromoteFloatTypes(ACL_FLOAT16, ACL_BF16), ACL_FLOAT);
  EXPECT_EQ(PromoteFloatTypes(ACL_BF16, ACL_BF16), ACL_BF16);
  EXPECT_EQ(PromoteFloatTypes(ACL_FLOAT16, ACL_FLOAT), ACL_FLOAT);
  EXPECT_EQ(PromoteFloatTypes(ACL_FLOAT16, ACL_DOUBLE), ACL_DOUBLE);
  EXPECT_STREQ(DTypeName(ACL_BF16), "BFLOAT16");
}

}  // namespace
}  // namespace openaclnn
