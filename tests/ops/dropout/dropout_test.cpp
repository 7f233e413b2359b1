// aclnnDropoutGenMask(V2) and aclnnDropoutDoMask: Philox4x32-10 known answers, the mask rule
// bit by bit, mask statistics, bitwise determinism over thread counts, (seed, offset) streams,
// DoMask against a float64 golden from the same mask on strided views, and the error matrix.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/philox.h"
#include "util/device_tensor.h"
#include "util/ops_fixtures.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

// The test's own statement of the mask rule (docs/ops/dropout.md): bit i of the mask is word
// i % 4 of the Philox block {i / 4, 0, offset lo, offset hi} under key {seed lo, seed hi},
// compared with floor((1 - prob) * 2^32).
bool ExpectedBit(int64_t i, int64_t seed, int64_t offset, double prob) {
  const uint64_t s = static_cast<uint64_t>(seed), o = static_cast<uint64_t>(offset);
  const uint64_t b = static_cast<uint64_t>(i / 4);
  const cpu::PhiloxCounter r =
      cpu::Philox4x32x10({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32),
                          static_cast<uint32_t>(o), static_cast<uint32_t>(o >> 32)},
                         {static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32)});
  const double keep = 1.0 - prob;
  const uint64_t threshold = keep >= 1.0   ? (uint64_t{1} << 32)
                             : keep <= 0.0 ? 0
                                           : static_cast<uint64_t>(std::ldexp(keep, 32));
  return r[i % 4] < threshold;
}

std::vector<uint8_t> ExpectedMask(int64_t numel, int64_t seed, int64_t offset, double prob) {
  std::vector<uint8_t> mask((numel + 127) / 128 * 16, 0);
  for (int64_t i = 0; i < static_cast<int64_t>(mask.size()) * 8; ++i) {
    if (ExpectedBit(i, seed, offset, prob)) mask[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return mask;
}

std::vector<uint8_t> MaskValues(const DeviceTensor& t) {
  std::vector<uint8_t> v;
  for (double d : t.ValuesDouble()) v.push_back(static_cast<uint8_t>(d));
  return v;
}

class DropoutTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    unsetenv("OPENACLNN_FORCE_IMPL");
    cpu::SetNumThreads(0);
    RuntimeTest::TearDown();
  }

  aclnnStatus GenMaskV2(const std::vector<int64_t>& shape, double prob, int64_t seed,
                        int64_t offset, aclDataType prob_dtype, aclTensor* out) {
    aclIntArray* array = aclCreateIntArray(shape.data(), shape.size());
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus s =
        aclnnDropoutGenMaskV2GetWorkspaceSize(array, prob, seed, offset, prob_dtype, out, &ws, &ex);
    const aclnnStatus r = RunTwoPhase(s, ws, ex, stream_, aclnnDropoutGenMaskV2);
    aclDestroyIntArray(array);
    return r;
  }
  aclnnStatus GenMaskV1(const std::vector<int64_t>& shape, double prob, int64_t seed,
                        int64_t offset, aclTensor* out) {
    aclIntArray* array = aclCreateIntArray(shape.data(), shape.size());
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus s =
        aclnnDropoutGenMaskGetWorkspaceSize(array, prob, seed, offset, out, &ws, &ex);
    const aclnnStatus r = RunTwoPhase(s, ws, ex, stream_, aclnnDropoutGenMask);
    aclDestroyIntArray(array);
    return r;
  }
  aclnnStatus DoMask(aclTensor* self, aclTensor* mask, double prob, aclTensor* out) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus s = aclnnDropoutDoMaskGetWorkspaceSize(self, mask, prob, out, &ws, &ex);
    return RunTwoPhase(s, ws, ex, stream_, aclnnDropoutDoMask);
  }
  // The mask of `numel` elements through GenMaskV2 into a contiguous tensor.
  std::vector<uint8_t> Mask(int64_t numel, double prob, int64_t seed, int64_t offset,
                            aclDataType prob_dtype = ACL_FLOAT) {
    DeviceTensor out({(numel + 127) / 128 * 16}, ACL_UINT8);
    EXPECT_EQ(GenMaskV2({numel}, prob, seed, offset, prob_dtype, out.get()), ACLNN_SUCCESS)
        << RecentError();
    return MaskValues(out);
  }
  void ExpectMessage(aclnnStatus got, aclnnStatus code, const std::vector<std::string>& words) {
    EXPECT_EQ(got, code);
    const std::string message = RecentError();
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    }
  }
  aclnnStatus GenMaskPhase1(const aclIntArray* shape, double prob, aclDataType prob_dtype,
                            aclTensor* out) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    return aclnnDropoutGenMaskV2GetWorkspaceSize(shape, prob, 1, 2, prob_dtype, out, &ws, &ex);
  }
  aclnnStatus DoMaskPhase1(const aclTensor* self, const aclTensor* mask, double prob,
                           aclTensor* out) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    return aclnnDropoutDoMaskGetWorkspaceSize(self, mask, prob, out, &ws, &ex);
  }

  aclrtStream stream_ = nullptr;
};

// The published known-answer vectors of Philox4x32-10 (Random123's kat_vectors).
TEST(PhiloxTest, KnownAnswers) {
  struct Case {
    cpu::PhiloxCounter counter;
    cpu::PhiloxKey key;
    cpu::PhiloxCounter expected;
  };
  const Case cases[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(cpu::Philox4x32x10(c.counter, c.key), c.expected);
  }
}

TEST_F(DropoutTest, GenMaskFollowsTheRuleBitByBit) {
  for (const char* impl : {"", "dropout_gen_mask=reference"}) {
    setenv("OPENACLNN_FORCE_IMPL", impl, 1);
    for (int64_t numel : {1, 7, 128, 129, 1000, 40000}) {
      for (double prob : {0.0, 0.1, 0.5, 0.75, 1.0}) {
        SCOPED_TRACE("impl=" + std::string(impl) + " numel=" + std::to_string(numel) +
                     " prob=" + std::to_string(prob));
        const int64_t seed = -1234567890123LL, offset = 77 + numel;
        // prob as FLOAT: 0.1 rounds to 0.100000001490116...
        const double pf = static_cast<float>(prob);
        EXPECT_EQ(Mask(numel, prob, seed, offset), ExpectedMask(numel, seed, offset, pf));
      }
    }
  }
}

TEST_F(DropoutTest, MaskKnownAnswer) {
  // From an independent Python implementation of Philox4x32-10 and the rule: 8 elements, seed
  // 1234, offset 0, prob 0.5 (the sample's case).
  const std::vector<uint8_t> want = {165, 97,  37,  32,  58, 105, 145, 110,
                                     87,  203, 128, 212, 88, 191, 252, 113};
  EXPECT_EQ(Mask(8, 0.5, 1234, 0), want);
}

TEST_F(DropoutTest, GenMaskTheSameOnEverySimdTarget) {
  // The AVX2 Philox (4 bytes at a time) and the scalar one, with a tail of odd bytes.
  const int64_t n = 32768 * 2 + 8 * 37 + 5;
  const auto expected = ExpectedMask(n, 123456789012345LL, -9, static_cast<float>(0.42));
  for (const std::string& isa : cpu::AvailableIsas()) {
    SCOPED_TRACE(isa);
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    EXPECT_EQ(Mask(n, 0.42, 123456789012345LL, -9), expected);
    // A strided out view through the same path.
    DeviceTensor out({static_cast<int64_t>(expected.size())}, ACL_UINT8, TensorLayout::Strided(3));
    ASSERT_EQ(GenMaskV2({n}, 0.42, 123456789012345LL, -9, ACL_FLOAT, out.get()), ACLNN_SUCCESS);
    EXPECT_EQ(MaskValues(out), expected);
  }
  cpu::SetPlanningIsaCap("");
}

TEST_F(DropoutTest, GenMaskIntoStridedAndOffsetViews) {
  const std::vector<uint8_t> expected = ExpectedMask(3000, 5, 9, static_cast<float>(0.3));
  const int64_t bytes = static_cast<int64_t>(expected.size());  // 384
  for (const TensorLayout& lo : {TensorLayout::Strided(3, 5), TensorLayout::Offset(11).WithTail(7),
                                 TensorLayout::Permuted({1, 0})}) {
    SCOPED_TRACE(lo.name);
    const std::vector<int64_t> dims =
        lo.order.empty() ? std::vector<int64_t>{bytes} : std::vector<int64_t>{16, bytes / 16};
    DeviceTensor out(dims, ACL_UINT8, lo);
    ASSERT_EQ(GenMaskV2({3000}, 0.3, 5, 9, ACL_FLOAT, out.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_EQ(MaskValues(out), expected);
    EXPECT_EQ(out.DamagedCanaries(), 0);
  }
}

TEST_F(DropoutTest, GenMaskV1DrawsWithFloatProb) {
  DeviceTensor out({32}, ACL_UINT8);
  ASSERT_EQ(GenMaskV1({2, 100}, 0.2, 42, 3, out.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(MaskValues(out), ExpectedMask(200, 42, 3, static_cast<float>(0.2)));
}

TEST_F(DropoutTest, GenMaskV2TensorReadsSeedAndOffsetAtLaunch) {
  for (const char* impl : {"", "dropout_gen_mask=reference"}) {
    setenv("OPENACLNN_FORCE_IMPL", impl, 1);
    DeviceTensor seed({1}, ACL_INT64, TensorLayout::Offset(2)), offset({}, ACL_INT64),
        out({64}, ACL_UINT8);
    seed.FillDouble({-77});
    offset.FillDouble({1000});
    const int64_t dims[] = {500};
    aclIntArray* shape = aclCreateIntArray(dims, 1);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(aclnnDropoutGenMaskV2TensorGetWorkspaceSize(shape, 0.3, seed.get(), offset.get(), 5,
                                                          ACL_BF16, out.get(), &ws, &ex),
              ACLNN_SUCCESS)
        << RecentError();
    // The values are read at launch: change them between the phases.
    offset.FillDouble({2000});
    ASSERT_EQ(RunTwoPhase(ACLNN_SUCCESS, ws, ex, stream_, aclnnDropoutGenMaskV2Tensor),
              ACLNN_SUCCESS)
        << RecentError();
    EXPECT_EQ(MaskValues(out), ExpectedMask(500, -77, 2005, RoundThroughBFloat16(0.3f)));
    EXPECT_EQ(MaskValues(out), Mask(500, 0.3, -77, 2005, ACL_BF16));
    // Errors: null and mistyped tensors.
    ExpectMessage(aclnnDropoutGenMaskV2TensorGetWorkspaceSize(shape, 0.3, nullptr, offset.get(), 5,
                                                              ACL_FLOAT, out.get(), &ws, &ex),
                  ACLNN_ERR_PARAM_NULLPTR, {"seedTensor"});
    ExpectMessage(aclnnDropoutGenMaskV2TensorGetWorkspaceSize(shape, 0.3, seed.get(), nullptr, 5,
                                                              ACL_FLOAT, out.get(), &ws, &ex),
                  ACLNN_ERR_PARAM_NULLPTR, {"offsetTensor"});
    DeviceTensor seed32({1}, ACL_INT32), seed2({2}, ACL_INT64);
    ExpectMessage(aclnnDropoutGenMaskV2TensorGetWorkspaceSize(
                      shape, 0.3, seed32.get(), offset.get(), 5, ACL_FLOAT, out.get(), &ws, &ex),
                  ACLNN_ERR_PARAM_INVALID, {"seedTensor", "INT64", "INT32"});
    ExpectMessage(aclnnDropoutGenMaskV2TensorGetWorkspaceSize(shape, 0.3, seed.get(), seed2.get(),
                                                              5, ACL_FLOAT, out.get(), &ws, &ex),
                  ACLNN_ERR_PARAM_INVALID, {"offsetTensor", "1 element"});
    aclDestroyIntArray(shape);
  }
}

TEST_F(DropoutTest, ProbRoundedToProbDataType) {
  // 0.1 rounds differently as FLOAT16 (0.0999755859375) and BFLOAT16 (0.10009765625).
  const int64_t n = 1 << 16;
  const auto h = Mask(n, 0.1, 8, 0, ACL_FLOAT16);
  const auto b = Mask(n, 0.1, 8, 0, ACL_BF16);
  EXPECT_EQ(h, ExpectedMask(n, 8, 0, RoundThroughHalf(0.1f)));
  EXPECT_EQ(b, ExpectedMask(n, 8, 0, RoundThroughBFloat16(0.1f)));
  EXPECT_NE(h, b);
}

TEST_F(DropoutTest, ProbZeroAndOneFillTheMask) {
  EXPECT_EQ(Mask(300, 0.0, 1, 2), std::vector<uint8_t>(48, 0xFF));
  EXPECT_EQ(Mask(300, 1.0, 1, 2), std::vector<uint8_t>(48, 0x00));
}

TEST_F(DropoutTest, KeptFractionWithinBinomialBound) {
  const int64_t n = 1000000;
  for (double prob : {0.05, 0.1, 0.5, 0.9}) {
    const auto mask = Mask(n, prob, 2026, 12);
    int64_t kept = 0;
    for (int64_t i = 0; i < n; ++i) kept += (mask[i / 8] >> (i % 8)) & 1;
    const double expected = (1.0 - prob) * n;
    const double sigma = std::sqrt(n * prob * (1.0 - prob));
    EXPECT_LT(std::fabs(kept - expected), 5 * sigma) << "prob " << prob << " kept " << kept;
    // Every bit position of a byte keeps about the same share (no lane bias).
    for (int bit = 0; bit < 8; ++bit) {
      int64_t k = 0;
      for (int64_t j = 0; j < n / 8; ++j) k += (mask[j] >> bit) & 1;
      EXPECT_LT(std::fabs(k - expected / 8), 5 * sigma / std::sqrt(8.0)) << "bit " << bit;
    }
  }
}

TEST_F(DropoutTest, SameSeedAndOffsetGiveTheSameMaskForAnyThreadCount) {
  const int64_t n = 3 * 32768 * 8 + 999;  // several tasks and a partial one
  cpu::SetNumThreads(1);
  const auto one = Mask(n, 0.37, 99, 1000);
  for (int threads : {2, 3, 8}) {
    cpu::SetNumThreads(threads);
    EXPECT_EQ(Mask(n, 0.37, 99, 1000), one) << threads << " threads";
  }
  cpu::SetNumThreads(0);
  // Another offset or seed: another mask; a shorter problem: a prefix of this one.
  EXPECT_NE(Mask(n, 0.37, 99, 1001), one);
  EXPECT_NE(Mask(n, 0.37, 100, 1000), one);
  const auto shorter = Mask(1000, 0.37, 99, 1000);
  EXPECT_EQ(shorter, std::vector<uint8_t>(one.begin(), one.begin() + shorter.size()));
  // Neighbouring offsets are not shifted copies of each other: compare bit agreement.
  const auto next = Mask(n, 0.5, 99, 1001), base = Mask(n, 0.5, 99, 1000);
  int64_t same = 0;
  for (size_t j = 0; j < base.size(); ++j) same += 8 - __builtin_popcount(base[j] ^ next[j]);
  const double bits = 8.0 * base.size();
  EXPECT_LT(std::fabs(same - bits / 2), 5 * std::sqrt(bits / 4));
}

// DoMask against the float64 golden computed here from the mask read back.
void ExpectDoMask(const DeviceTensor& self, const std::vector<uint8_t>& mask, double prob,
                  const DeviceTensor& out) {
  const std::vector<double> x = self.ValuesDouble();
  const std::vector<double> y = out.ValuesDouble();
  const double tol = out.dtype() == ACL_FLOAT ? 1e-6 : out.dtype() == ACL_FLOAT16 ? 1e-3 : 8e-3;
  int64_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool kept = prob < 1.0 && ((mask[i / 8] >> (i % 8)) & 1) != 0;
    const double want = kept ? x[i] / (1.0 - prob) : 0.0;
    if (std::fabs(y[i] - want) > tol * std::fabs(want) && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << y[i] << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(DropoutTest, DoMaskMatchesTheFloat64Golden) {
  std::mt19937 rng(7);
  const std::vector<TensorLayout> layouts = {TensorLayout::Contiguous(), TensorLayout::Offset(3),
                                             TensorLayout::Padded(2), TensorLayout::Scrambled(3)};
  for (const char* impl : {"", "dropout_do_mask=reference"}) {
    setenv("OPENACLNN_FORCE_IMPL", impl, 1);
    for (aclDataType st : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (aclDataType ot : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (double prob : {0.0, 0.25, 0.6, 1.0}) {
          const TensorLayout& lo = layouts[rng() % layouts.size()];
          SCOPED_TRACE(std::string(impl) + " " + DTypeName(st) + "->" + DTypeName(ot) + " " +
                       lo.name + " prob " + std::to_string(prob));
          const std::vector<int64_t> dims = {3, 37, 91};  // 10101 elements, 1264 mask bytes
          DeviceTensor self(dims, st, lo), out(dims, ot, TensorLayout::Scrambled(3));
          self.FillUniform(&rng, -4.0f, 4.0f);
          DeviceTensor mask({1264}, ACL_UINT8, TensorLayout::Strided(2, 1));
          ASSERT_EQ(GenMaskV2(dims, 0.5, 3, 4, ACL_FLOAT, mask.get()), ACLNN_SUCCESS);
          ASSERT_EQ(DoMask(self.get(), mask.get(), prob, out.get()), ACLNN_SUCCESS)
              << RecentError();
          ExpectDoMask(self, MaskValues(mask), prob, out);
          EXPECT_EQ(out.DamagedCanaries(), 0);
        }
      }
    }
  }
}

TEST_F(DropoutTest, DoMaskCraftedValuesAndInPlace) {
  // Mask byte 0b10100101: elements 0, 2, 5, 7 kept; prob 0.5 doubles them.
  DeviceTensor x({8}, ACL_FLOAT), mask({16}, ACL_UINT8);
  x.Fill({1, 2, 3, 4, 5, 6, 7, -8});
  std::vector<double> m(16, 0.0);
  m[0] = 0xA5;
  mask.FillDouble(m);
  ASSERT_EQ(DoMask(x.get(), mask.get(), 0.5, x.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(x.Values(), (std::vector<float>{2, 0, 6, 0, 0, 12, 0, -16}));
  // A dropped NaN or infinity becomes 0; a kept one stays.
  DeviceTensor y({4}, ACL_FLOAT), out({4}, ACL_FLOAT);
  y.Fill({NAN, INFINITY, NAN, 1});
  m[0] = 0x04;
  mask.FillDouble(m);
  ASSERT_EQ(DoMask(y.get(), mask.get(), 0.5, out.get()), ACLNN_SUCCESS) << RecentError();
  const std::vector<float> v = out.Values();
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(v[3], 0.0f);
}

TEST_F(DropoutTest, DoMaskTheSameBitsOnEverySimdTarget) {
  // A contiguous mask (the SIMD path: whole vectors of mask bits, then an element tail), FLOAT in
  // and out, two tasks and an odd tail; specials among the values. Kept elements are the fp32
  // product x * float(1 / (1 - p)), dropped ones +0, bit for bit.
  const int64_t n = 2 * 8192 + 8 * 37 + 5;
  const double prob = 0.3;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = u(rng);
  const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e-40f, -3e38f};
  for (size_t i = 0; i < std::size(specials); ++i) x[i * 997 % x.size()] = specials[i];
  DeviceTensor self({n}, ACL_FLOAT), mask({(n + 127) / 128 * 16}, ACL_UINT8);
  self.Fill(x);
  ASSERT_EQ(GenMaskV2({n}, 0.5, 77, 3, ACL_FLOAT, mask.get()), ACLNN_SUCCESS) << RecentError();
  const std::vector<uint8_t> bits = MaskValues(mask);
  const float scale = static_cast<float>(1.0 / (1.0 - prob));
  std::vector<uint32_t> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float product = x[i] * scale;
    const bool kept = ((bits[i / 8] >> (i % 8)) & 1) != 0;
    std::memcpy(&want[i], &product, sizeof(float));
    if (!kept) want[i] = 0;
  }
  for (const std::string& isa : cpu::AvailableIsas()) {
    SCOPED_TRACE(isa);
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    DeviceTensor out({n}, ACL_FLOAT, TensorLayout().WithNanCanary());
    ASSERT_EQ(DoMask(self.get(), mask.get(), prob, out.get()), ACLNN_SUCCESS) << RecentError();
    const std::vector<uint8_t> got = out.Bytes();
    ASSERT_EQ(got.size(), want.size() * sizeof(uint32_t));
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0);
    EXPECT_EQ(out.DamagedCanaries(), 0);
  }
  cpu::SetPlanningIsaCap("");
}

TEST_F(DropoutTest, DoMaskBitwiseForAnyThreadCount) {
  std::mt19937 rng(3);
  const std::vector<int64_t> dims = {5, 8192 + 17};
  DeviceTensor self(dims, ACL_BF16), mask({(5 * (8192 + 17) + 127) / 128 * 16}, ACL_UINT8);
  self.FillUniform(&rng, -1, 1);
  ASSERT_EQ(GenMaskV2(dims, 0.3, 1, 1, ACL_FLOAT, mask.get()), ACLNN_SUCCESS);
  std::vector<uint8_t> first;
  for (int threads : {1, 2, 5}) {
    cpu::SetNumThreads(threads);
    DeviceTensor out(dims, ACL_BF16);
    ASSERT_EQ(DoMask(self.get(), mask.get(), 0.3, out.get()), ACLNN_SUCCESS) << RecentError();
    if (first.empty()) first = out.Bytes();
    EXPECT_EQ(out.Bytes(), first) << threads << " threads";
  }
}

TEST_F(DropoutTest, EmptyProblems) {
  DeviceTensor out0({0}, ACL_UINT8);
  EXPECT_EQ(GenMaskV2({3, 0}, 0.5, 1, 2, ACL_FLOAT, out0.get()), ACLNN_SUCCESS) << RecentError();
  DeviceTensor self({0, 4}, ACL_FLOAT), mask({0}, ACL_UINT8), out({0, 4}, ACL_FLOAT);
  EXPECT_EQ(DoMask(self.get(), mask.get(), 0.5, out.get()), ACLNN_SUCCESS) << RecentError();
  // A 0-d self is one element with a 16-byte mask.
  DeviceTensor s0({}, ACL_FLOAT), m0({16}, ACL_UINT8), o0({}, ACL_FLOAT);
  s0.Fill({3});
  std::vector<double> m(16, 0.0);
  m[0] = 1;
  m0.FillDouble(m);
  ASSERT_EQ(DoMask(s0.get(), m0.get(), 0.25, o0.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(o0.Values()[0], 4.0f);
}

TEST_F(DropoutTest, GenMaskErrorsNameTheParameter) {
  const int64_t dims[] = {4, 50};
  aclIntArray* shape = aclCreateIntArray(dims, 2);
  DeviceTensor out({32}, ACL_UINT8), outf({32}, ACL_FLOAT), out16({16}, ACL_UINT8);
  ExpectMessage(GenMaskPhase1(nullptr, 0.5, ACL_FLOAT, out.get()), ACLNN_ERR_PARAM_NULLPTR,
                {"shape"});
  ExpectMessage(GenMaskPhase1(shape, 0.5, ACL_FLOAT, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"out"});
  ExpectMessage(GenMaskPhase1(shape, 0.5, ACL_FLOAT, outf.get()), ACLNN_ERR_PARAM_INVALID,
                {"out", "UINT8", "FLOAT"});
  ExpectMessage(GenMaskPhase1(shape, 1.5, ACL_FLOAT, out.get()), ACLNN_ERR_PARAM_INVALID,
                {"prob", "1.5"});
  ExpectMessage(GenMaskPhase1(shape, -0.1, ACL_FLOAT, out.get()), ACLNN_ERR_PARAM_INVALID,
                {"prob"});
  ExpectMessage(GenMaskPhase1(shape, NAN, ACL_FLOAT, out.get()), ACLNN_ERR_PARAM_INVALID, {"prob"});
  ExpectMessage(GenMaskPhase1(shape, 0.5, ACL_INT32, out.get()), ACLNN_ERR_PARAM_INVALID,
                {"probDataType", "INT32"});
  ExpectMessage(GenMaskPhase1(shape, 0.5, ACL_FLOAT, out16.get()), ACLNN_ERR_PARAM_INVALID,
                {"out", "32", "16"});
  const int64_t negative[] = {4, -2};
  aclIntArray* bad = aclCreateIntArray(negative, 2);
  ExpectMessage(GenMaskPhase1(bad, 0.5, ACL_FLOAT, out.get()), ACLNN_ERR_PARAM_INVALID,
                {"shape", "negative"});
  uint64_t ws = 0;
  ExpectMessage(aclnnDropoutGenMaskGetWorkspaceSize(shape, 0.5, 1, 2, out.get(), &ws, nullptr),
                ACLNN_ERR_PARAM_NULLPTR, {"executor"});
  aclDestroyIntArray(bad);
  aclDestroyIntArray(shape);
}

TEST_F(DropoutTest, DoMaskErrorsNameTheParameter) {
  DeviceTensor x({4, 50}, ACL_FLOAT), m({32}, ACL_UINT8), y({4, 50}, ACL_FLOAT);
  ExpectMessage(DoMaskPhase1(nullptr, m.get(), 0.5, y.get()), ACLNN_ERR_PARAM_NULLPTR, {"self"});
  ExpectMessage(DoMaskPhase1(x.get(), nullptr, 0.5, y.get()), ACLNN_ERR_PARAM_NULLPTR, {"mask"});
  ExpectMessage(DoMaskPhase1(x.get(), m.get(), 0.5, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"out"});
  DeviceTensor xi({4, 50}, ACL_INT32), yd({4, 50}, ACL_DOUBLE), mf({32}, ACL_FLOAT);
  ExpectMessage(DoMaskPhase1(xi.get(), m.get(), 0.5, y.get()), ACLNN_ERR_PARAM_INVALID,
                {"self", "INT32"});
  ExpectMessage(DoMaskPhase1(x.get(), m.get(), 0.5, yd.get()), ACLNN_ERR_PARAM_INVALID,
                {"out", "DOUBLE"});
  ExpectMessage(DoMaskPhase1(x.get(), mf.get(), 0.5, y.get()), ACLNN_ERR_PARAM_INVALID,
                {"mask", "UINT8", "FLOAT"});
  ExpectMessage(DoMaskPhase1(x.get(), m.get(), 2.0, y.get()), ACLNN_ERR_PARAM_INVALID, {"prob"});
  DeviceTensor y2({50, 4}, ACL_FLOAT);
  ExpectMessage(DoMaskPhase1(x.get(), m.get(), 0.5, y2.get()), ACLNN_ERR_PARAM_INVALID,
                {"out shape", "[50, 4]", "[4, 50]"});
  DeviceTensor m16({16}, ACL_UINT8), m0({0}, ACL_UINT8);
  ExpectMessage(DoMaskPhase1(x.get(), m16.get(), 0.5, y.get()), ACLNN_ERR_PARAM_INVALID,
                {"mask", "32", "16"});
  ExpectMessage(DoMaskPhase1(x.get(), m0.get(), 0.5, y.get()), ACLNN_ERR_PARAM_INVALID,
                {"mask", "32"});
  DeviceTensor big({1, 1, 1, 1, 1, 1, 1, 1, 1}, ACL_FLOAT);
  ExpectMessage(DoMaskPhase1(big.get(), m16.get(), 0.5, big.get()), ACLNN_ERR_PARAM_INVALID,
                {"self", "rank"});
  // A longer mask than needed is accepted (CANN checks "at least").
  DeviceTensor m64({64}, ACL_UINT8);
  EXPECT_EQ(DoMask(x.get(), m64.get(), 0.5, y.get()), ACLNN_SUCCESS) << RecentError();
}

}  // namespace
}  // namespace openaclnn::test
