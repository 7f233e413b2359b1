// aclnnGelu, aclnnGeluV2, aclnnGeluBackward, aclnnGeluBackwardV2: random shapes and strided views
// (broadcast gradOutput / self for the backward forms) against float64 golden formulas, for the
// engine and the float64 reference (OPENACLNN_FORCE_IMPL); crafted values; empty and 0-d tensors;
// the error matrix; bitwise determinism over thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "util/activation_test_util.h"

namespace openaclnn::test::act {
namespace {

enum class Form { kGelu, kGeluV2Erf, kGeluV2Tanh, kBackward, kBackwardV2Erf, kBackwardV2Tanh };
const char* KeyOf(Form f) {
  switch (f) {
    case Form::kGelu:
      return "gelu";
    case Form::kGeluV2Erf:
    case Form::kGeluV2Tanh:
      return "gelu_v2";
    case Form::kBackward:
      return "gelu_backward";
    default:
      return "gelu_backward_v2";
  }
}
bool IsBackward(Form f) { return f >= Form::kBackward; }
// aclnnGelu computes CANN's documented tanh form; aclnnGeluBackward the erf form.
bool IsTanh(Form f) {
  return f == Form::kGelu || f == Form::kGeluV2Tanh || f == Form::kBackwardV2Tanh;
}

aclnnStatus Call(aclrtStream stream, Form f, aclTensor* grad, aclTensor* x, aclTensor* out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  char none[] = "none", tanh_name[] = "tanh";
  switch (f) {
    case Form::kGelu: {
      const aclnnStatus s = aclnnGeluGetWorkspaceSize(x, out, &ws, &ex);
      return RunTwoPhase(s, ws, ex, stream, aclnnGelu);
    }
    case Form::kGeluV2Erf:
    case Form::kGeluV2Tanh: {
      const aclnnStatus s =
          aclnnGeluV2GetWorkspaceSize(x, f == Form::kGeluV2Tanh ? 1 : 0, out, &ws, &ex);
      return RunTwoPhase(s, ws, ex, stream, aclnnGeluV2);
    }
    case Form::kBackward: {
      const aclnnStatus s = aclnnGeluBackwardGetWorkspaceSize(grad, x, out, &ws, &ex);
      return RunTwoPhase(s, ws, ex, stream, aclnnGeluBackward);
    }
    default: {
      const aclnnStatus s = aclnnGeluBackwardV2GetWorkspaceSize(
          grad, x, f == Form::kBackwardV2Tanh ? tanh_name : none, out, &ws, &ex);
      return RunTwoPhase(s, ws, ex, stream, aclnnGeluBackwardV2);
    }
  }
}

class GeluTest : public PointwiseTest {};

// One random case: shapes (the backward forms broadcast a random subset of dims of either
// operand), layouts, values in [-6, 6]; every output element against the golden formula.
void RunRandomCase(aclrtStream stream, Form f, aclDataType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  const int rank = std::uniform_int_distribution<int>(0, 4)(rng);
  const std::vector<int64_t> out_dims = RandomDims(&rng, rank, 7);
  std::vector<int64_t> x_dims = out_dims, g_dims = out_dims;
  if (IsBackward(f)) {
    for (int d = 0; d < rank; ++d) {
      const int pick = std::uniform_int_distribution<int>(0, 3)(rng);
      if (pick == 0) x_dims[d] = 1;
      if (pick == 1) g_dims[d] = 1;
    }
    if (rank > 0 && std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
      x_dims.erase(x_dims.begin());  // fewer dims: right-aligned broadcasting
      g_dims[0] = out_dims[0];       // one operand must carry the leading dim
    }
  }
  DeviceTensor x(x_dims, dtype, RandomLayout(&rng, static_cast<int>(x_dims.size())));
  DeviceTensor g(g_dims, dtype, RandomLayout(&rng, rank));
  DeviceTensor out(out_dims, dtype, RandomLayout(&rng, rank));
  const std::vector<double> xv = x.FillUniform(&rng, -6.f, 6.f);
  const std::vector<double> gv = g.FillUniform(&rng, -2.f, 2.f);
  ASSERT_EQ(Call(stream, f, IsBackward(f) ? g.get() : nullptr, x.get(), out.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(out.DamagedCanaries(), 0);
  const std::vector<double> got = out.ValuesDouble();
  for (int64_t i = 0; i < out.numel(); ++i) {
    double gold;
    if (IsBackward(f)) {
      const double xi = xv[BroadcastIndex(out_dims, x_dims, i)];
      const double gi = gv[BroadcastIndex(out_dims, g_dims, i)];
      gold = gi * (IsTanh(f) ? GoldGeluGradTanh(xi) : GoldGeluGradErf(xi));
    } else {
      gold = IsTanh(f) ? GoldGeluTanh(xv[i]) : GoldGeluErf(xv[i]);
    }
    ASSERT_NEAR(got[i], gold, Tolerance(dtype, gold))
        << KeyOf(f) << " " << DTypeName(dtype) << " seed " << seed << " element " << i;
  }
}

const Form kForms[] = {Form::kGelu,     Form::kGeluV2Erf,     Form::kGeluV2Tanh,
                       Form::kBackward, Form::kBackwardV2Erf, Form::kBackwardV2Tanh};

TEST_F(GeluTest, RandomStridedViewsAgainstGolden) {
  uint32_t seed = 1;
  for (Form f : kForms) {
    for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int i = 0; i < 12; ++i) RunRandomCase(stream_, f, t, seed++);
    }
  }
}

TEST_F(GeluTest, ReferenceAgainstGolden) {
  uint32_t seed = 1000;
  for (Form f : kForms) {
    setenv("OPENACLNN_FORCE_IMPL", (std::string(KeyOf(f)) + "=reference").c_str(), 1);
    for (aclDataType t : {ACL_FLOAT, ACL_BF16}) {
      for (int i = 0; i < 6; ++i) RunRandomCase(stream_, f, t, seed++);
    }
  }
  unsetenv("OPENACLNN_FORCE_IMPL");
}

// A dense sweep of fp32 inputs over [-10, 10] (and the tails), including the region where erf
// and tanh saturate: every form within the fp32 tolerance of the float64 formula.
TEST_F(GeluTest, DenseSweepFloat32) {
  const int64_t n = 200001;
  DeviceTensor x({n}, ACL_FLOAT), g({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
  std::vector<float> xs(n), ones(n, 1.f);
  for (int64_t i = 0; i < n; ++i) xs[i] = -10.f + 20.f * static_cast<float>(i) / (n - 1);
  xs[0] = -30.f;
  xs[n - 1] = 30.f;
  x.Fill(xs);
  g.Fill(ones);
  for (Form f : kForms) {
    ASSERT_EQ(Call(stream_, f, g.get(), x.get(), out.get()), ACLNN_SUCCESS) << RecentError();
    const std::vector<float> got = out.Values();
    for (int64_t i = 0; i < n; ++i) {
      const double xi = xs[i];
      const double gold = IsBackward(f) ? (IsTanh(f) ? GoldGeluGradTanh(xi) : GoldGeluGradErf(xi))
                                        : (IsTanh(f) ? GoldGeluTanh(xi) : GoldGeluErf(xi));
      ASSERT_NEAR(got[i], gold, Tolerance(ACL_FLOAT, gold)) << KeyOf(f) << " x=" << xi;
    }
  }
}

TEST_F(GeluTest, CraftedValues) {
  DeviceTensor x({4}, ACL_FLOAT), out({4}, ACL_FLOAT);
  x.Fill({0.f, 1.f, -1.f, 3.f});
  ASSERT_EQ(Call(stream_, Form::kGeluV2Erf, nullptr, x.get(), out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.Get(0), 0.f);
  EXPECT_NEAR(out.Get(1), 0.8413447460685429, 1e-7);
  EXPECT_NEAR(out.Get(2), -0.15865525393145707, 1e-7);
  EXPECT_NEAR(out.Get(3), 2.9959502751615665, 3e-7);
  // aclnnGelu is the tanh form: gelu_tanh(1) = 0.8411919906082768.
  ASSERT_EQ(Call(stream_, Form::kGelu, nullptr, x.get(), out.get()), ACLNN_SUCCESS);
  EXPECT_NEAR(out.Get(1), 0.8411919906082768, 1e-7);
  // In place: the same view as self and out.
  ASSERT_EQ(Call(stream_, Form::kGeluV2Erf, nullptr, x.get(), x.get()), ACLNN_SUCCESS);
  EXPECT_NEAR(x.Get(1), 0.8413447460685429, 1e-7);
}

TEST_F(GeluTest, EmptyAndZeroDim) {
  for (Form f : kForms) {
    DeviceTensor x({2, 0, 3}, ACL_FLOAT), g({2, 0, 3}, ACL_FLOAT), out({2, 0, 3}, ACL_FLOAT);
    EXPECT_EQ(Call(stream_, f, g.get(), x.get(), out.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_TRUE(out.Untouched());
    DeviceTensor x0({}, ACL_FLOAT), g0({}, ACL_FLOAT), out0({}, ACL_FLOAT);
    x0.Fill({1.f});
    g0.Fill({2.f});
    ASSERT_EQ(Call(stream_, f, g0.get(), x0.get(), out0.get()), ACLNN_SUCCESS) << RecentError();
    const double gold = IsBackward(f)
                            ? 2 * (IsTanh(f) ? GoldGeluGradTanh(1.0) : GoldGeluGradErf(1.0))
                            : (IsTanh(f) ? GoldGeluTanh(1.0) : GoldGeluErf(1.0));
    EXPECT_NEAR(out0.Get(0), gold, 1e-6) << KeyOf(f);
  }
}

// A FLOAT16 or BFLOAT16 x is looked up in a table of the fp32 GELU (ops/gelu/activation.cpp):
// for every one of the 65536 x values (NaN patterns aside, which Fill collapses) and a spread of
// dy values, each form's 16-bit result must be the FLOAT path's result rounded once to the 16-bit
// type, bit for bit.
TEST_F(GeluTest, SixteenBitInputsGiveTheFloatPathBitsRounded) {
  const int64_t n = int64_t{1} << 16;
  for (aclDataType t : {ACL_BF16, ACL_FLOAT16}) {
    const bool bf16 = t == ACL_BF16;
    const auto round16 = [bf16](float v) {
      return bf16 ? RoundThroughBFloat16(v) : RoundThroughHalf(v);
    };
    std::vector<float> xs(n), gs(n);
    for (int64_t i = 0; i < n; ++i) {
      const auto bits = static_cast<uint16_t>(i);
      xs[i] = bf16 ? BFloat16ToFloat(bits) : HalfToFloat(bits);
      gs[i] = round16(static_cast<float>(i % 97 - 48) * 0.37f);
    }
    DeviceTensor x16({n}, t), g16({n}, t), out16({n}, t);
    DeviceTensor x32({n}, ACL_FLOAT), g32({n}, ACL_FLOAT), out32({n}, ACL_FLOAT);
    x16.Fill(xs);
    x32.Fill(xs);
    g16.Fill(gs);
    g32.Fill(gs);
    for (Form f : kForms) {
      ASSERT_EQ(Call(stream_, f, g16.get(), x16.get(), out16.get()), ACLNN_SUCCESS)
          << RecentError();
      ASSERT_EQ(Call(stream_, f, g32.get(), x32.get(), out32.get()), ACLNN_SUCCESS)
          << RecentError();
      const std::vector<float> got = out16.Values(), fp32 = out32.Values();
      int64_t compared = 0;
      const int64_t bad = FirstNotRoundedOnce(t, got, fp32, &compared);
      ASSERT_LT(bad, 0) << KeyOf(f) << " " << DTypeName(t) << " x=" << xs[bad] << " dy=" << gs[bad]
                        << " got " << got[bad] << " fp32 " << fp32[bad];
      EXPECT_GT(compared, n / 2) << KeyOf(f);  // NaN results aside (NaN x, overflowing tanh forms)
    }
  }
}

TEST_F(GeluTest, BitwiseSameForAnyThreadCount) {
  const std::vector<int64_t> dims = {3, 257, 301};
  for (Form f : kForms) {
    DeviceTensor x(dims, ACL_BF16, TensorLayout::Permuted({2, 0, 1})), g(dims, ACL_BF16);
    DeviceTensor out(dims, ACL_BF16);
    std::mt19937 rng(7);
    x.FillUniform(&rng, -5.f, 5.f);
    g.FillUniform(&rng, -1.f, 1.f);
    std::vector<uint8_t> first;
    for (int threads : {1, 2, 3, 8}) {
      cpu::SetNumThreads(threads);
      out.Reset();
      ASSERT_EQ(Call(stream_, f, g.get(), x.get(), out.get()), ACLNN_SUCCESS);
      if (first.empty()) {
        first = out.Bytes();
      } else {
        EXPECT_EQ(out.Bytes(), first) << KeyOf(f) << " threads " << threads;
      }
    }
    cpu::SetNumThreads(0);
  }
}

// FLOAT operands are read, and an out that overlaps no input written, where they lie; an out that
// is an input's own view goes through the block buffers. Over several blocks and a tail, every form
// in place (out = x, and out = gradOutput) gives the out-of-place bits; a FLOAT gradOutput with a
// 16-bit self (the table path) matches the golden.
TEST_F(GeluTest, FloatOperandsUsedWhereTheyLie) {
  const int64_t n = 5000;
  std::mt19937 rng(13);
  DeviceTensor x({n}, ACL_FLOAT), g({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
  const std::vector<double> xs = x.FillUniform(&rng, -6.f, 6.f);
  const std::vector<double> gs = g.FillUniform(&rng, -2.f, 2.f);
  auto refill = [&](DeviceTensor* t, const std::vector<double>& v) { t->FillDouble(v); };
  for (Form f : kForms) {
    ASSERT_EQ(Call(stream_, f, g.get(), x.get(), out.get()), ACLNN_SUCCESS) << RecentError();
    const std::vector<float> want = out.Values();
    // The golden, so that a wrong out-of-place result cannot pass either.
    for (int64_t i = 0; i < n; i += 97) {
      const double gold =
          IsBackward(f) ? gs[i] * (IsTanh(f) ? GoldGeluGradTanh(xs[i]) : GoldGeluGradErf(xs[i]))
                        : (IsTanh(f) ? GoldGeluTanh(xs[i]) : GoldGeluErf(xs[i]));
      ASSERT_NEAR(want[i], gold, Tolerance(ACL_FLOAT, gold)) << KeyOf(f) << " element " << i;
    }
    ASSERT_EQ(Call(stream_, f, g.get(), x.get(), x.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_EQ(x.Values(), want) << KeyOf(f) << " out = x";
    refill(&x, xs);
    if (IsBackward(f)) {
      ASSERT_EQ(Call(stream_, f, g.get(), x.get(), g.get()), ACLNN_SUCCESS) << RecentError();
      EXPECT_EQ(g.Values(), want) << KeyOf(f) << " out = gradOutput";
      refill(&g, gs);
    }
  }
  // 16-bit gradients through the table product, in place (out = gradOutput, out = self).
  DeviceTensor x16({n}, ACL_BF16), g16({n}, ACL_BF16), out16({n}, ACL_BF16);
  const std::vector<double> x16s = x16.FillUniform(&rng, -4.f, 4.f);
  const std::vector<double> g16s = g16.FillUniform(&rng, -2.f, 2.f);
  for (Form f : {Form::kBackward, Form::kBackwardV2Erf, Form::kBackwardV2Tanh}) {
    ASSERT_EQ(Call(stream_, f, g16.get(), x16.get(), out16.get()), ACLNN_SUCCESS) << RecentError();
    const std::vector<float> want = out16.Values();
    for (int64_t i = 0; i < n; ++i) {
      const double gold =
          g16s[i] * (IsTanh(f) ? GoldGeluGradTanh(x16s[i]) : GoldGeluGradErf(x16s[i]));
      ASSERT_NEAR(want[i], gold, Tolerance(ACL_BF16, gold)) << KeyOf(f) << " element " << i;
    }
    ASSERT_EQ(Call(stream_, f, g16.get(), x16.get(), g16.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_EQ(g16.Values(), want) << KeyOf(f) << " BFLOAT16 out = gradOutput";
    refill(&g16, g16s);
    ASSERT_EQ(Call(stream_, f, g16.get(), x16.get(), x16.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_EQ(x16.Values(), want) << KeyOf(f) << " BFLOAT16 out = self";
    refill(&x16, x16s);
  }
  // A FLOAT gradOutput read where it lies, times the table entry of a 16-bit self.
  for (aclDataType t : {ACL_BF16, ACL_FLOAT16}) {
    DeviceTensor xt({n}, t);
    const std::vector<double> xts = xt.FillUniform(&rng, -6.f, 6.f);
    for (Form f : {Form::kBackward, Form::kBackwardV2Erf, Form::kBackwardV2Tanh}) {
      ASSERT_EQ(Call(stream_, f, g.get(), xt.get(), out.get()), ACLNN_SUCCESS) << RecentError();
      const std::vector<float> got = out.Values();
      for (int64_t i = 0; i < n; ++i) {
        const double gold =
            gs[i] * (IsTanh(f) ? GoldGeluGradTanh(xts[i]) : GoldGeluGradErf(xts[i]));
        ASSERT_NEAR(got[i], gold, Tolerance(ACL_FLOAT, gold))
            << KeyOf(f) << " " << DTypeName(t) << " element " << i;
      }
    }
  }
}

aclnnStatus Phase1(Form f, aclTensor* g, aclTensor* x, aclTensor* out, const char* approx = nullptr,
                   int64_t v2_approx = 0) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  std::string a = approx ? approx : "";
  switch (f) {
    case Form::kGelu:
      return aclnnGeluGetWorkspaceSize(x, out, &ws, &ex);
    case Form::kGeluV2Erf:
      return aclnnGeluV2GetWorkspaceSize(x, v2_approx, out, &ws, &ex);
    case Form::kBackward:
      return aclnnGeluBackwardGetWorkspaceSize(g, x, out, &ws, &ex);
    default:
      return aclnnGeluBackwardV2GetWorkspaceSize(g, x, approx ? a.data() : nullptr, out, &ws, &ex);
  }
}

void ExpectError(aclnnStatus got, aclnnStatus want, const std::string& words) {
  EXPECT_EQ(got, want) << words;
  const std::string msg = RecentError();
  EXPECT_NE(msg.find(words), std::string::npos) << "message: " << msg << " lacks: " << words;
}

TEST_F(GeluTest, ErrorMatrix) {
  DeviceTensor f32({2, 3}, ACL_FLOAT), f16({2, 3}, ACL_FLOAT16), i32({2, 3}, ACL_INT32);
  DeviceTensor other({3, 2}, ACL_FLOAT), bad_bc({4, 3}, ACL_FLOAT);
  DeviceTensor deep({1, 1, 1, 1, 1, 1, 1, 1, 1}, ACL_FLOAT);
  ExpectError(Phase1(Form::kGelu, nullptr, nullptr, f32.get()), ACLNN_ERR_PARAM_NULLPTR, "self");
  ExpectError(Phase1(Form::kGelu, nullptr, f32.get(), nullptr), ACLNN_ERR_PARAM_NULLPTR, "out");
  ExpectError(Phase1(Form::kGelu, nullptr, i32.get(), i32.get()), ACLNN_ERR_PARAM_INVALID,
              "self dtype must be one of FLOAT, FLOAT16, BFLOAT16, got INT32");
  ExpectError(Phase1(Form::kGelu, nullptr, f32.get(), f16.get()), ACLNN_ERR_PARAM_INVALID,
              "out dtype must equal self dtype");
  ExpectError(Phase1(Form::kGelu, nullptr, f32.get(), other.get()), ACLNN_ERR_PARAM_INVALID,
              "out shape must equal self shape");
  ExpectError(Phase1(Form::kGelu, nullptr, deep.get(), deep.get()), ACLNN_ERR_PARAM_INVALID,
              "self rank must be at most 8");
  ExpectError(Phase1(Form::kGeluV2Erf, nullptr, nullptr, f32.get()), ACLNN_ERR_PARAM_NULLPTR, "x");
  ExpectError(Phase1(Form::kGeluV2Erf, nullptr, f32.get(), f32.get(), nullptr, 2),
              ACLNN_ERR_PARAM_INVALID, "approximate must be 0 (none) or 1 (tanh), got 2");
  ExpectError(Phase1(Form::kBackward, nullptr, f32.get(), f32.get()), ACLNN_ERR_PARAM_NULLPTR,
              "gradOutput");
  ExpectError(Phase1(Form::kBackward, f32.get(), f32.get(), nullptr), ACLNN_ERR_PARAM_NULLPTR,
              "gradInput");
  ExpectError(Phase1(Form::kBackward, f32.get(), bad_bc.get(), f32.get()), ACLNN_ERR_PARAM_INVALID,
              "cannot broadcast");
  ExpectError(Phase1(Form::kBackward, f32.get(), f32.get(), other.get()), ACLNN_ERR_PARAM_INVALID,
              "gradInput");
  ExpectError(Phase1(Form::kBackward, i32.get(), f32.get(), f32.get()), ACLNN_ERR_PARAM_INVALID,
              "gradOutput dtype must be one of");
  ExpectError(Phase1(Form::kBackwardV2Erf, f32.get(), f32.get(), f32.get(), nullptr),
              ACLNN_ERR_PARAM_NULLPTR, "approximate");
  ExpectError(Phase1(Form::kBackwardV2Erf, f32.get(), f32.get(), f32.get(), "exact"),
              ACLNN_ERR_PARAM_INVALID, "approximate must be \"none\" or \"tanh\", got \"exact\"");
  ExpectError(Phase1(Form::kBackwardV2Erf, f16.get(), f16.get(), f32.get(), "none"),
              ACLNN_ERR_PARAM_INVALID, "which is FLOAT16, got FLOAT");
  // GeluBackward's gradInput may be any float type the promotion converts to.
  DeviceTensor gi({2, 3}, ACL_FLOAT);
  EXPECT_EQ(Call(stream_, Form::kBackward, f16.get(), f16.get(), gi.get()), ACLNN_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::test::act
