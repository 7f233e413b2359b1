// aclnnGlu and aclnnGluBackward: random shapes, dims and strided views against float64 golden
// formulas, for the engine and the float64 reference (OPENACLNN_FORCE_IMPL); crafted values;
// empty tensors; the error matrix; bitwise determinism over thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "util/activation_test_util.h"

namespace openaclnn::test::act {
namespace {

aclnnStatus CallGlu(aclrtStream stream, aclTensor* self, int64_t dim, aclTensor* out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus s = aclnnGluGetWorkspaceSize(self, dim, out, &ws, &ex);
  return RunTwoPhase(s, ws, ex, stream, aclnnGlu);
}
aclnnStatus CallGluBackward(aclrtStream stream, aclTensor* grad, aclTensor* self, int64_t dim,
                            aclTensor* out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus s = aclnnGluBackwardGetWorkspaceSize(grad, self, dim, out, &ws, &ex);
  return RunTwoPhase(s, ws, ex, stream, aclnnGluBackward);
}

class GluTest : public PointwiseTest {};

// Row-major index in self (dims `full`) of element `i` of the halved shape, in half `h`.
int64_t HalfIndex(const std::vector<int64_t>& full, int dim, int64_t i, int h) {
  std::vector<int64_t> half = full;
  half[dim] /= 2;
  int64_t index = 0, stride = 1;
  for (int d = static_cast<int>(full.size()) - 1; d >= 0; --d) {
    int64_t coord = i % half[d];
    i /= half[d];
    if (d == dim) coord += h * half[d];
    index += coord * stride;
    stride *= full[d];
  }
  return index;
}

void RunRandomCase(aclrtStream stream, bool backward, aclDataType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
  std::vector<int64_t> dims = RandomDims(&rng, rank, 6);
  const int dim = std::uniform_int_distribution<int>(0, rank - 1)(rng);
  dims[dim] = 2 * std::uniform_int_distribution<int64_t>(1, 4)(rng);
  std::vector<int64_t> half = dims;
  half[dim] /= 2;
  const int64_t api_dim = (seed % 2) ? dim : dim - rank;  // negative dims too
  DeviceTensor self(dims, dtype, RandomLayout(&rng, rank));
  const std::vector<double> sv = self.FillUniform(&rng, -8.f, 8.f);
  int64_t m = 1;
  for (int64_t d : half) m *= d;
  if (!backward) {
    DeviceTensor out(half, dtype, RandomLayout(&rng, rank));
    ASSERT_EQ(CallGlu(stream, self.get(), api_dim, out.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_EQ(out.DamagedCanaries(), 0);
    const std::vector<double> got = out.ValuesDouble();
    for (int64_t i = 0; i < m; ++i) {
      const double gold =
          sv[HalfIndex(dims, dim, i, 0)] * GoldSigmoid(sv[HalfIndex(dims, dim, i, 1)]);
      ASSERT_NEAR(got[i], gold, Tolerance(dtype, gold)) << DTypeName(dtype) << " seed " << seed;
    }
    return;
  }
  DeviceTensor grad(half, dtype, RandomLayout(&rng, rank));
  DeviceTensor out(dims, dtype, RandomLayout(&rng, rank));
  const std::vector<double> gv = grad.FillUniform(&rng, -2.f, 2.f);
  ASSERT_EQ(CallGluBackward(stream, grad.get(), self.get(), api_dim, out.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(out.DamagedCanaries(), 0);
  const std::vector<double> got = out.ValuesDouble();
  for (int64_t i = 0; i < m; ++i) {
    const double a = sv[HalfIndex(dims, dim, i, 0)];
    const double s = GoldSigmoid(sv[HalfIndex(dims, dim, i, 1)]);
    const double da = gv[i] * s, db = gv[i] * a * s * (1 - s);
    // db's fp32 value is da * (a - a s): the error of (a - a s) is absolute, |a| eps.
    const double db_tol = Tolerance(dtype, db) + 4e-7 * std::fabs(gv[i] * s * a);
    ASSERT_NEAR(got[HalfIndex(dims, dim, i, 0)], da, Tolerance(dtype, da)) << "seed " << seed;
    ASSERT_NEAR(got[HalfIndex(dims, dim, i, 1)], db, db_tol) << "seed " << seed;
  }
}

TEST_F(GluTest, RandomStridedViewsAgainstGolden) {
  uint32_t seed = 1;
  for (bool backward : {false, true}) {
    for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      for (int i = 0; i < 16; ++i) RunRandomCase(stream_, backward, t, seed++);
    }
  }
}

TEST_F(GluTest, ReferenceAgainstGolden) {
  uint32_t seed = 500;
  for (bool backward : {false, true}) {
    setenv("OPENACLNN_FORCE_IMPL", backward ? "glu_backward=reference" : "glu=reference", 1);
    for (aclDataType t : {ACL_FLOAT, ACL_BF16, ACL_DOUBLE}) {
      for (int i = 0; i < 6; ++i) RunRandomCase(stream_, backward, t, seed++);
    }
  }
  unsetenv("OPENACLNN_FORCE_IMPL");
}

// A dense fp32 sweep of b over [-30, 30] (a = 1 + b / 64): out = a * sigmoid(b) within 1e-6
// relative (a few ulps) of the float64 value, tails included.
TEST_F(GluTest, DenseSweepFloat32) {
  const int64_t n = 120001;
  DeviceTensor self({2, n}, ACL_FLOAT), out({1, n}, ACL_FLOAT);
  std::vector<float> values(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    const float b = -30.f + 60.f * static_cast<float>(i) / (n - 1);
    values[i] = 1.f + b / 64.f;
    values[n + i] = b;
  }
  self.Fill(values);
  ASSERT_EQ(CallGlu(stream_, self.get(), 0, out.get()), ACLNN_SUCCESS) << RecentError();
  const std::vector<float> got = out.Values();
  for (int64_t i = 0; i < n; ++i) {
    const double gold = static_cast<double>(values[i]) / (1.0 + std::exp(-double{values[n + i]}));
    ASSERT_NEAR(got[i], gold, 1e-6 * std::fabs(gold) + 1e-37) << "b=" << values[n + i];
  }
}

TEST_F(GluTest, CraftedValues) {
  // self [2, 2] along dim 1: a = {1, 3}, b = {0, 0} -> out = {0.5, 1.5}.
  DeviceTensor self({2, 2}, ACL_FLOAT), out({2, 1}, ACL_FLOAT);
  self.Fill({1.f, 0.f, 3.f, 0.f});
  ASSERT_EQ(CallGlu(stream_, self.get(), -1, out.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(out.Values(), (std::vector<float>{0.5f, 1.5f}));
  // Backward with grad 2: da = 2 * 0.5 = 1, db = 1 * (a - a/2) = a/2.
  DeviceTensor grad({2, 1}, ACL_FLOAT), gout({2, 2}, ACL_FLOAT);
  grad.Fill({2.f, 2.f});
  ASSERT_EQ(CallGluBackward(stream_, grad.get(), self.get(), 1, gout.get()), ACLNN_SUCCESS);
  EXPECT_EQ(gout.Values(), (std::vector<float>{1.f, 0.5f, 1.f, 1.5f}));
  // The DOUBLE output of a FLOAT self (a dtype self casts to).
  DeviceTensor out64({2, 1}, ACL_DOUBLE);
  ASSERT_EQ(CallGlu(stream_, self.get(), 1, out64.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(out64.ValuesDouble(), (std::vector<double>{0.5, 1.5}));
}

// A FLOAT16 or BFLOAT16 gate b is looked up in a table of the fp32 sigmoid
// (ops/gelu/activation.cpp): for every one of the 65536 b values (NaN patterns aside) and a spread
// of a values, the 16-bit out must be the FLOAT path's a * sigmoid(b) rounded once, bit for bit;
// the halves both along unit-stride rows (dim 0) and interleaved (dim 1, b at stride 2). The same
// for GluBackward's gradInput, and a FLOAT out of the 16-bit self equals the FLOAT path exactly.
TEST_F(GluTest, SixteenBitGateGivesTheFloatPathBitsRounded) {
  const int64_t n = int64_t{1} << 16;
  for (aclDataType t : {ACL_BF16, ACL_FLOAT16}) {
    const bool bf16 = t == ACL_BF16;
    const auto round16 = [bf16](float v) {
      return bf16 ? RoundThroughBFloat16(v) : RoundThroughHalf(v);
    };
    std::vector<float> as(n), bs(n);
    for (int64_t i = 0; i < n; ++i) {
      const auto bits = static_cast<uint16_t>(i);
      bs[i] = bf16 ? BFloat16ToFloat(bits) : HalfToFloat(bits);
      as[i] = round16(static_cast<float>(i % 89 - 44) * 0.41f);
    }
    for (int dim : {0, 1}) {
      const std::vector<int64_t> dims =
          dim == 0 ? std::vector<int64_t>{2, n} : std::vector<int64_t>{n, 2};
      const std::vector<int64_t> half =
          dim == 0 ? std::vector<int64_t>{1, n} : std::vector<int64_t>{n, 1};
      std::vector<float> self_values(static_cast<size_t>(2 * n));
      for (int64_t i = 0; i < n; ++i) {
        self_values[dim == 0 ? i : 2 * i] = as[i];
        self_values[dim == 0 ? n + i : 2 * i + 1] = bs[i];
      }
      DeviceTensor self16(dims, t), out16(half, t), self32(dims, ACL_FLOAT), out32(half, ACL_FLOAT);
      self16.Fill(self_values);
      self32.Fill(self_values);
      ASSERT_EQ(CallGlu(stream_, self16.get(), dim, out16.get()), ACLNN_SUCCESS) << RecentError();
      ASSERT_EQ(CallGlu(stream_, self32.get(), dim, out32.get()), ACLNN_SUCCESS) << RecentError();
      const std::vector<float> got = out16.Values(), fp32 = out32.Values();
      int64_t compared = 0;
      const int64_t bad = FirstNotRoundedOnce(t, got, fp32, &compared);
      ASSERT_LT(bad, 0) << DTypeName(t) << " dim " << dim << " a=" << as[bad] << " b=" << bs[bad]
                        << " got " << got[bad] << " fp32 " << fp32[bad];
      EXPECT_GT(compared, n * 9 / 10) << DTypeName(t);  // NaN b aside
      // A FLOAT out of the 16-bit self: the lookup through the block buffers, no rounding.
      DeviceTensor out_f32(half, ACL_FLOAT);
      ASSERT_EQ(CallGlu(stream_, self16.get(), dim, out_f32.get()), ACLNN_SUCCESS) << RecentError();
      const std::vector<float> wide = out_f32.Values();
      for (int64_t i = 0; i < n; ++i) {
        if (std::isnan(fp32[i])) continue;
        ASSERT_EQ(wide[i], fp32[i]) << DTypeName(t) << " dim " << dim << " b=" << bs[i];
      }
      // GluBackward: both halves of gradInput are the FLOAT path's rounded once (dim 0: the
      // one-pass table kernel; dim 1, strided halves: the block math).
      std::vector<float> gs(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) gs[i] = round16(static_cast<float>(i % 53 - 26) * 0.23f);
      DeviceTensor g16(half, t), g32(half, ACL_FLOAT), gin16(dims, t), gin32(dims, ACL_FLOAT);
      g16.Fill(gs);
      g32.Fill(gs);
      ASSERT_EQ(CallGluBackward(stream_, g16.get(), self16.get(), dim, gin16.get()), ACLNN_SUCCESS)
          << RecentError();
      ASSERT_EQ(CallGluBackward(stream_, g32.get(), self32.get(), dim, gin32.get()), ACLNN_SUCCESS)
          << RecentError();
      const std::vector<float> got_grad = gin16.Values(), fp32_grad = gin32.Values();
      const int64_t bad_grad = FirstNotRoundedOnce(t, got_grad, fp32_grad, &compared);
      ASSERT_LT(bad_grad, 0) << DTypeName(t) << " dim " << dim << " gradInput element " << bad_grad
                             << " got " << got_grad[bad_grad] << " fp32 " << fp32_grad[bad_grad];
      EXPECT_GT(compared, 2 * n * 9 / 10) << DTypeName(t);
    }
  }
}

TEST_F(GluTest, EmptyTensors) {
  DeviceTensor self({0, 4}, ACL_FLOAT), out({0, 2}, ACL_FLOAT);
  EXPECT_EQ(CallGlu(stream_, self.get(), 1, out.get()), ACLNN_SUCCESS) << RecentError();
  DeviceTensor self2({3, 0}, ACL_FLOAT), out2({3, 0}, ACL_FLOAT), g2({3, 0}, ACL_FLOAT);
  EXPECT_EQ(CallGlu(stream_, self2.get(), 1, out2.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(CallGluBackward(stream_, g2.get(), self2.get(), 1, out2.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_TRUE(out.Untouched());
  EXPECT_TRUE(out2.Untouched());
}

TEST_F(GluTest, BitwiseSameForAnyThreadCount) {
  DeviceTensor self({64, 3, 1024}, ACL_BF16, TensorLayout::Permuted({1, 0, 2}));
  DeviceTensor grad({64, 3, 512}, ACL_BF16), out({64, 3, 1024}, ACL_BF16);
  std::mt19937 rng(3);
  self.FillUniform(&rng, -4.f, 4.f);
  grad.FillUniform(&rng, -1.f, 1.f);
  std::vector<uint8_t> first;
  for (int threads : {1, 2, 5}) {
    cpu::SetNumThreads(threads);
    out.Reset();
    ASSERT_EQ(CallGluBackward(stream_, grad.get(), self.get(), -1, out.get()), ACLNN_SUCCESS);
    if (first.empty()) {
      first = out.Bytes();
    } else {
      EXPECT_EQ(out.Bytes(), first) << "threads " << threads;
    }
  }
  cpu::SetNumThreads(0);
}

void ExpectError(aclnnStatus got, aclnnStatus want, const std::string& words) {
  EXPECT_EQ(got, want) << words;
  const std::string msg = RecentError();
  EXPECT_NE(msg.find(words), std::string::npos) << "message: " << msg << " lacks: " << words;
}

TEST_F(GluTest, ErrorMatrix) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  DeviceTensor self({2, 4}, ACL_FLOAT), out({2, 2}, ACL_FLOAT), odd({2, 3}, ACL_FLOAT);
  DeviceTensor i32({2, 4}, ACL_INT32), scalar({}, ACL_FLOAT), wrong({2, 3}, ACL_FLOAT);
  DeviceTensor f16({2, 2}, ACL_FLOAT16), full({2, 4}, ACL_FLOAT);
  ExpectError(aclnnGluGetWorkspaceSize(nullptr, 1, out.get(), &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
              "self");
  ExpectError(aclnnGluGetWorkspaceSize(self.get(), 1, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
              "out");
  ExpectError(aclnnGluGetWorkspaceSize(i32.get(), 1, out.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
              "self dtype must be one of DOUBLE, FLOAT, FLOAT16, BFLOAT16, got INT32");
  ExpectError(aclnnGluGetWorkspaceSize(scalar.get(), 0, out.get(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID, "self rank must be greater than 0");
  ExpectError(aclnnGluGetWorkspaceSize(self.get(), 2, out.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
              "dim must be in [-2, 1], got 2");
  ExpectError(aclnnGluGetWorkspaceSize(self.get(), -3, out.get(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID, "dim must be in [-2, 1], got -3");
  ExpectError(aclnnGluGetWorkspaceSize(odd.get(), 1, out.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
              "self size along dim 1 must be even, got 3");
  ExpectError(aclnnGluGetWorkspaceSize(self.get(), 1, wrong.get(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID, "out shape must be [2, 2]");
  ExpectError(aclnnGluBackwardGetWorkspaceSize(nullptr, self.get(), 1, full.get(), &ws, &ex),
              ACLNN_ERR_PARAM_NULLPTR, "gradOut");
  ExpectError(aclnnGluBackwardGetWorkspaceSize(f16.get(), self.get(), 1, full.get(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID, "gradOut dtype must equal self dtype FLOAT, got FLOAT16");
  ExpectError(aclnnGluBackwardGetWorkspaceSize(wrong.get(), self.get(), 1, full.get(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID, "gradOut shape must be [2, 2]");
  ExpectError(aclnnGluBackwardGetWorkspaceSize(out.get(), self.get(), 1, out.get(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID, "out shape must be [2, 4]");
}

}  // namespace
}  // namespace openaclnn::test::act
