// The fast path's row conversions on every Highway target this CPU runs: bitwise equal to the
// scalar conversions of api/dtype.h, for every 16-bit pattern and for float patterns covering
// the rounding boundaries, subnormals, overflow, infinities and NaNs; odd lengths test the tails.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "kernels/cpu/gemm_rows.h"

namespace openaclnn::cpu {
namespace {

std::vector<float> FloatPatterns() {
  std::vector<uint32_t> bits = {0,          0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                0x7f800001, 0xffbfffff, 0x7f7fffff, 0x477ff000, 0x477fefff,
                                0x38800000, 0x387fffff, 0x33800000, 0x33000000, 0x33000001,
                                0x00000001, 0x807fffff, 0x3f800000, 0xbf800fff, 0x3f801000};
  // Around every half and bf16 rounding boundary of a few exponents, and random patterns.
  for (uint32_t e : {0x33u, 0x38u, 0x3fu, 0x47u}) {
    for (uint32_t m = 0; m < 4096; ++m) bits.push_back((e << 24) | (m << 1) | (m & 1));
  }
  std::mt19937 rng(42);
  for (int i = 0; i < 200000; ++i) bits.push_back(rng());
  std::vector<float> out(bits.size());
  std::memcpy(out.data(), bits.data(), bits.size() * sizeof(float));
  return out;
}

bool SameBits(float a, float b) { return FloatBits(a) == FloatBits(b); }

class RowsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(GetParam()));
    ASSERT_EQ(cpu::ActiveIsa(), GetParam());
    target_ = cpu::PlanningTarget();
  }
  void TearDown() override { cpu::SetPlanningIsaCap(""); }
  cpu::KernelTarget target_;
};

TEST_P(RowsTest, LoadSixteenBitRows) {
  std::vector<uint16_t> all(65536 + 7);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> got(all.size());
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    LoadRow(target_, all.data(), dt, 1, static_cast<int64_t>(all.size()), got.data());
    for (size_t i = 0; i < all.size(); ++i) {
      const float want = LoadAsFloat(all.data(), dt, static_cast<int64_t>(i));
      ASSERT_TRUE(SameBits(got[i], want)) << DTypeName(dt) << " pattern " << all[i];
    }
  }
}

TEST_P(RowsTest, StoreRowsRoundLikeTheScalarConversions) {
  const std::vector<float> src = FloatPatterns();
  const int64_t n = static_cast<int64_t>(src.size());
  for (bool via_half : {false, true}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      std::vector<uint8_t> got(n * DTypeSize(dt));
      StoreRow(target_, src.data(), n, via_half, got.data(), dt, 1);
      for (int64_t i = 0; i < n; ++i) {
        uint8_t want[4];
        if (via_half && dt == ACL_FLOAT16) {
          const uint16_t h = FloatToHalf(src[i]);
          std::memcpy(want, &h, 2);
        } else {
          StoreFromFloat(want, dt, 0, via_half ? RoundThroughHalf(src[i]) : src[i]);
        }
        ASSERT_EQ(std::memcmp(want, &got[i * DTypeSize(dt)], DTypeSize(dt)), 0)
            << DTypeName(dt) << " via_half " << via_half << " bits " << std::hex
            << FloatBits(src[i]);
      }
    }
  }
}

TEST_P(RowsTest, InputRoundingAndSums) {
  const std::vector<float> src = FloatPatterns();
  const int64_t n = static_cast<int64_t>(src.size());
  for (InputRounding r : {InputRounding::kHf32, InputRounding::kHalf}) {
    std::vector<float> row = src;
    RoundRow(target_, r, row.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameBits(row[i], ApplyRounding(r, src[i]))) << std::hex << FloatBits(src[i]);
    }
  }
  std::vector<float> a(1001), sum(1001, 0.5f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i);
  AccumulateRow(target_, a.data(), 1001, sum.data());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(sum[i], 0.5f + a[i]);
}

INSTANTIATE_TEST_SUITE_P(Isa, RowsTest, ::testing::ValuesIn(cpu::AvailableIsas()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace openaclnn::cpu
