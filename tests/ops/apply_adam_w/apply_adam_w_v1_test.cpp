// aclnnApplyAdamW (V1): several steps against a float64 golden of CANN's formula (bias corrections
// from beta1Power * beta1 and beta2Power * beta2, hyperparameters read from one-element tensors,
// maxGradNormOptional read only), every dtype, amsgrad and maximize, random strided views (the
// scalar tensors too), crafted exact values, grad aliasing varRef, bitwise determinism over thread
// counts, empty and 0-d tensors, and the error matrix with message words.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_apply_adam_w.h"
#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "util/device_tensor.h"
#include "util/ops_fixtures.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

struct HyperV1 {
  double beta1_power = 1, beta2_power = 1;  // beta^(t-1)
  double lr = 0.01, weight_decay = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-6;
  bool amsgrad = false, maximize = false;
};

// CANN's step for one element, in double; w (maxGradNorm) is read only.
struct GoldenV1 {
  double x, m, v;
};
GoldenV1 GoldenStepV1(double x, double m, double v, double w, double g, const HyperV1& h) {
  if (h.maximize) g = -g;
  m = h.beta1 * m + (1.0 - h.beta1) * g;
  v = h.beta2 * v + (1.0 - h.beta2) * g * g;
  const double bc1 = 1.0 - h.beta1_power * h.beta1, bc2 = 1.0 - h.beta2_power * h.beta2;
  const double vm = h.amsgrad ? std::max(w, v) : v;
  x = x - h.lr * h.weight_decay * x - h.lr * (m / bc1) / (std::sqrt(vm / bc2) + h.eps);
  return {x, m, v};
}

double ToleranceV1(aclDataType t) {
  return t == ACL_FLOAT ? 1e-5 : t == ACL_FLOAT16 ? 2e-3 : 1.6e-2;
}

void ExpectNearV1(const DeviceTensor& t, const std::vector<double>& want, const char* name) {
  const std::vector<double> got = t.ValuesDouble();
  const double rtol = ToleranceV1(t.dtype());
  int64_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 2e-6 + rtol * std::fabs(want[i])) && bad++ < 5) {
      ADD_FAILURE() << name << "[" << i << "]: got " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << name;
  EXPECT_EQ(t.DamagedCanaries(), 0) << name;
}

// The seven one-element tensors in API order: beta1Power, beta2Power, lr, weightDecay, beta1,
// beta2, eps.
struct Scalars {
  std::vector<std::unique_ptr<DeviceTensor>> t;
  Scalars(aclDataType dtype, const std::vector<TensorLayout>& layouts, std::mt19937* rng) {
    for (int i = 0; i < 7; ++i) {
      const TensorLayout& l = layouts[(*rng)() % layouts.size()];
      t.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, dtype, l));
    }
  }
  explicit Scalars(aclDataType dtype, std::vector<int64_t> dims = {1}) {
    for (int i = 0; i < 7; ++i) t.push_back(std::make_unique<DeviceTensor>(dims, dtype));
  }
  // Stores h's values and replaces them by what the tensors hold (16-bit rounding).
  void Set(HyperV1* h) {
    double* fields[7] = {&h->beta1_power, &h->beta2_power, &h->lr, &h->weight_decay,
                         &h->beta1,       &h->beta2,       &h->eps};
    for (int i = 0; i < 7; ++i) {
      t[i]->FillDouble({*fields[i]});
      *fields[i] = t[i]->ValuesDouble()[0];
    }
  }
  aclTensor* operator[](int i) const { return t[i]->get(); }
};

class ApplyAdamWV1Test : public RuntimeTest {
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
  aclnnStatus Phase1(aclTensor* var, aclTensor* m, aclTensor* v, const Scalars& s,
                     const aclTensor* g, const aclTensor* w, bool amsgrad, bool maximize,
                     uint64_t* ws, aclOpExecutor** ex) {
    return aclnnApplyAdamWGetWorkspaceSize(var, m, v, s[0], s[1], s[2], s[3], s[4], s[5], s[6], g,
                                           w, amsgrad, maximize, ws, ex);
  }
  aclnnStatus Run(aclTensor* var, aclTensor* m, aclTensor* v, const Scalars& s, const aclTensor* g,
                  const aclTensor* w, bool amsgrad, bool maximize) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus st = Phase1(var, m, v, s, g, w, amsgrad, maximize, &ws, &ex);
    return RunTwoPhase(st, ws, ex, stream_, aclnnApplyAdamW);
  }
  void ExpectMessage(aclnnStatus got, aclnnStatus code, const std::vector<std::string>& words) {
    EXPECT_EQ(got, code);
    const std::string message = RecentError();
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    }
  }

  // Runs `steps` steps on random state, advancing beta1Power and beta2Power as a caller does,
  // and compares each with the golden.
  void CheckSteps(const std::vector<int64_t>& dims, aclDataType type, HyperV1 h, std::mt19937* rng,
                  int steps, bool contiguous = false) {
    std::vector<TensorLayout> layouts = {TensorLayout::Contiguous(), TensorLayout::Offset(3),
                                         TensorLayout::Padded(2),
                                         TensorLayout::Scrambled(static_cast<int>(dims.size()))};
    if (contiguous) layouts = {TensorLayout::Offset(5)};
    auto pick = [&]() { return layouts[(*rng)() % layouts.size()]; };
    DeviceTensor x(dims, type, pick()), m(dims, type, pick()), v(dims, type, pick()),
        w(dims, type, pick()), g(dims, type, pick());
    Scalars s(type, {TensorLayout::Contiguous(), TensorLayout::Offset(3)}, rng);
    x.FillUniform(rng, -1, 1);
    m.FillUniform(rng, -0.1f, 0.1f);
    v.FillUniform(rng, 0, 0.01f);
    w.FillUniform(rng, 0, 0.02f);
    const std::vector<uint8_t> w_bytes = w.Bytes();
    const double beta1 = h.beta1, beta2 = h.beta2;
    for (int step = 1; step <= steps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      g.FillUniform(rng, -1, 1);
      HyperV1 hs = h;
      s.Set(&hs);
      const std::vector<double> x0 = x.ValuesDouble(), m0 = m.ValuesDouble(), v0 = v.ValuesDouble(),
                                w0 = w.ValuesDouble(), g0 = g.ValuesDouble();
      std::vector<double> xw(x0.size()), mw(x0.size()), vw(x0.size());
      for (size_t i = 0; i < x0.size(); ++i) {
        const GoldenV1 r = GoldenStepV1(x0[i], m0[i], v0[i], w0[i], g0[i], hs);
        xw[i] = r.x;
        mw[i] = r.m;
        vw[i] = r.v;
      }
      ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), h.amsgrad ? w.get() : nullptr, h.amsgrad,
                    h.maximize),
                ACLNN_SUCCESS)
          << RecentError();
      ExpectNearV1(x, xw, "varRef");
      ExpectNearV1(m, mw, "mRef");
      ExpectNearV1(v, vw, "vRef");
      EXPECT_EQ(w.Bytes(), w_bytes) << "maxGradNormOptional written";
      EXPECT_EQ(g.ValuesDouble(), g0) << "grad written";
      h.beta1_power *= beta1;
      h.beta2_power *= beta2;
    }
  }

  aclrtStream stream_ = nullptr;
};

TEST_F(ApplyAdamWV1Test, StepsMatchTheFloat64Golden) {
  std::mt19937 rng(11);
  for (const char* impl : {"", "apply_adam_w=reference"}) {
    setenv("OPENACLNN_FORCE_IMPL", impl, 1);
    for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (bool amsgrad : {false, true}) {
        for (bool maximize : {false, true}) {
          SCOPED_TRACE(std::string(impl) + " " + DTypeName(t) + (amsgrad ? " amsgrad" : "") +
                       (maximize ? " maximize" : ""));
          HyperV1 h;
          h.amsgrad = amsgrad;
          h.maximize = maximize;
          CheckSteps({3, 17, 101}, t, h, &rng, 4);
        }
      }
    }
  }
}

TEST_F(ApplyAdamWV1Test, ContiguousOperandsAndOtherHyperparameters) {
  // Every operand contiguous with one dtype (the in-vector conversion path without amsgrad; with
  // amsgrad maxGradNormOptional goes through a buffer), a tail of single lanes, a later step.
  std::mt19937 rng(21);
  for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (bool amsgrad : {false, true}) {
      SCOPED_TRACE(std::string(DTypeName(t)) + (amsgrad ? " amsgrad" : ""));
      HyperV1 h;
      h.amsgrad = amsgrad;
      h.maximize = amsgrad;
      h.lr = 1e-3;
      h.beta1 = 0.5;
      h.beta2 = 0.9;
      h.beta1_power = 0.125;  // t = 4
      h.beta2_power = 0.729;
      h.weight_decay = 0.1;
      CheckSteps({2, 2100}, t, h, &rng, 3, true);
    }
  }
  // A single element and dims of size 1.
  HyperV1 h;
  h.amsgrad = true;
  CheckSteps({1, 1, 1}, ACL_FLOAT, h, &rng, 2);
}

TEST_F(ApplyAdamWV1Test, CraftedExactValues) {
  // beta1 = beta2 = 0, eps = 0: m = g, v = g^2, no bias correction; var = var - lr * wd * var -
  // lr * g / |g|. var 4, g 2, lr 0.5, wd 0.5: 4 - 1 - 0.5 = 2.5; maximize flips the sign.
  for (bool maximize : {false, true}) {
    Scalars s(ACL_FLOAT);
    HyperV1 h;
    h.beta1_power = 0.3;
    h.beta2_power = 0.7;
    h.lr = 0.5;
    h.weight_decay = 0.5;
    h.beta1 = h.beta2 = h.eps = 0;
    s.Set(&h);
    DeviceTensor x({2}, ACL_FLOAT), m({2}, ACL_FLOAT), v({2}, ACL_FLOAT), g({2}, ACL_FLOAT);
    x.Fill({4, -8});
    m.Fill({7, 7});
    v.Fill({9, 9});
    g.Fill({2, -4});
    ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), nullptr, false, maximize), ACLNN_SUCCESS)
        << RecentError();
    const float sign = maximize ? -1.0f : 1.0f;
    EXPECT_EQ(x.Values(), (std::vector<float>{3.0f - 0.5f * sign, -6.0f + 0.5f * sign}));
    EXPECT_EQ(m.Values(), (std::vector<float>{2 * sign, -4 * sign}));
    EXPECT_EQ(v.Values(), (std::vector<float>{4, 16}));
  }
}

TEST_F(ApplyAdamWV1Test, CraftedBiasCorrectionFromThePowers) {
  // t = 1 (powers 1): beta1 0.5, m0 0, g 2: m = 1, m / (1 - 0.5) = 2; beta2 0.75, v0 0: v = 1,
  // v / (1 - 0.75) = 4, sqrt 2; var = 4 - 0.5 * 2 / 2 = 3.5. With the powers 0.5 and 0.75
  // (t = 2): corrections 0.75 and 0.4375, var = 4 - 0.5 * (1 / 0.75) / sqrt(1 / 0.4375).
  for (int t : {1, 2}) {
    Scalars s(ACL_FLOAT);
    HyperV1 h;
    h.beta1_power = t == 1 ? 1.0 : 0.5;
    h.beta2_power = t == 1 ? 1.0 : 0.75;
    h.lr = 0.5;
    h.weight_decay = 0;
    h.beta1 = 0.5;
    h.beta2 = 0.75;
    h.eps = 0;
    s.Set(&h);
    DeviceTensor x({1}, ACL_FLOAT), m({1}, ACL_FLOAT), v({1}, ACL_FLOAT), g({1}, ACL_FLOAT);
    x.Fill({4});
    m.Fill({0});
    v.Fill({0});
    g.Fill({2});
    ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), nullptr, false, false), ACLNN_SUCCESS)
        << RecentError();
    if (t == 1) {
      EXPECT_EQ(x.Values(), std::vector<float>{3.5f});
    } else {
      EXPECT_NEAR(x.Values()[0], 4.0 - 0.5 / 0.75 / std::sqrt(1 / 0.4375), 1e-6);
    }
    EXPECT_EQ(m.Values(), std::vector<float>{1});
    EXPECT_EQ(v.Values(), std::vector<float>{1});
  }
}

TEST_F(ApplyAdamWV1Test, AmsgradUsesTheMaximumAndWritesNeitherOperand) {
  // beta1 = beta2 = 0, eps 0, wd 0, lr 0.5: v = g^2 = 4; the denominator is sqrt(max(w, v)):
  // w 16 -> var = 4 - 0.5 * 2 / 4 = 3.75; w 1 -> var = 4 - 0.5 * 2 / 2 = 3.5. vRef keeps v = 4
  // and maxGradNormOptional keeps its values.
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    Scalars s(dt);
    HyperV1 h;
    h.lr = 0.5;
    h.weight_decay = 0;
    h.beta1 = h.beta2 = h.eps = 0;
    s.Set(&h);
    DeviceTensor x({2}, dt), m({2}, dt), v({2}, dt), g({2}, dt), w({2}, dt);
    x.Fill({4, 4});
    g.Fill({2, 2});
    w.Fill({16, 1});
    ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), w.get(), true, false), ACLNN_SUCCESS)
        << RecentError();
    EXPECT_EQ(x.Values(), (std::vector<float>{3.75f, 3.5f}));
    EXPECT_EQ(v.Values(), (std::vector<float>{4, 4}));
    EXPECT_EQ(w.Values(), (std::vector<float>{16, 1}));
  }
}

TEST_F(ApplyAdamWV1Test, ZeroDimParameter) {
  // A 0-d parameter (accepted although the page says rank 1 to 8) and 0-d scalar tensors.
  Scalars s(ACL_FLOAT16, {});
  HyperV1 h;
  h.lr = 0.5;
  h.weight_decay = 0.5;
  h.beta1 = h.beta2 = h.eps = 0;
  s.Set(&h);
  DeviceTensor x({}, ACL_FLOAT16), m({}, ACL_FLOAT16), v({}, ACL_FLOAT16), g({}, ACL_FLOAT16);
  x.Fill({4});
  g.Fill({2});
  ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), nullptr, false, false), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(x.Values(), std::vector<float>{2.5f});
  EXPECT_EQ(v.Values(), std::vector<float>{4.0f});
}

TEST_F(ApplyAdamWV1Test, GradAliasingVarReadsTheOldValues) {
  Scalars s(ACL_FLOAT);
  HyperV1 h;
  h.beta1_power = 0.9;
  h.beta2_power = 0.999;
  s.Set(&h);
  DeviceTensor x({300}, ACL_FLOAT), m({300}, ACL_FLOAT), v({300}, ACL_FLOAT);
  std::mt19937 rng(2);
  x.FillUniform(&rng, -1, 1);
  m.FillUniform(&rng, -1, 1);
  v.FillUniform(&rng, 0, 1);
  const auto x0 = x.ValuesDouble(), m0 = m.ValuesDouble(), v0 = v.ValuesDouble();
  std::vector<double> xw(300);
  for (int i = 0; i < 300; ++i) xw[i] = GoldenStepV1(x0[i], m0[i], v0[i], 0, x0[i], h).x;
  ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, x.get(), nullptr, false, false), ACLNN_SUCCESS)
      << RecentError();
  ExpectNearV1(x, xw, "varRef");
}

TEST_F(ApplyAdamWV1Test, BitwiseForAnyThreadCount) {
  const std::vector<int64_t> dims = {7, 1000};
  for (bool amsgrad : {false, true}) {
    std::vector<std::vector<uint8_t>> first;
    for (int threads : {1, 2, 5}) {
      SCOPED_TRACE(std::to_string(threads) + (amsgrad ? " amsgrad" : ""));
      cpu::SetNumThreads(threads);
      std::mt19937 rng(9);
      Scalars s(ACL_BF16);
      HyperV1 h;
      h.beta1_power = 0.81;
      h.beta2_power = 0.998;
      s.Set(&h);
      DeviceTensor x(dims, ACL_BF16, TensorLayout::Padded(1)), m(dims, ACL_BF16), v(dims, ACL_BF16),
          w(dims, ACL_BF16), g(dims, ACL_BF16);
      for (DeviceTensor* t : {&x, &m, &g}) t->FillUniform(&rng, -1, 1);
      for (DeviceTensor* t : {&v, &w}) t->FillUniform(&rng, 0, 1);
      ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), w.get(), amsgrad, true), ACLNN_SUCCESS);
      std::vector<std::vector<uint8_t>> bytes = {x.Bytes(), m.Bytes(), v.Bytes()};
      if (first.empty()) first = bytes;
      EXPECT_EQ(bytes, first);
    }
  }
}

TEST_F(ApplyAdamWV1Test, WithoutAmsgradMaxGradNormIsCheckedButUntouched) {
  // As CANN's op_api: a maxGradNormOptional passed without amsgrad is checked, never read or
  // written.
  Scalars s(ACL_FLOAT);
  HyperV1 h;
  s.Set(&h);
  DeviceTensor x({50}, ACL_FLOAT), m({50}, ACL_FLOAT), v({50}, ACL_FLOAT), g({50}, ACL_FLOAT),
      w({50}, ACL_FLOAT), wi({50}, ACL_INT8);
  std::mt19937 rng(3);
  for (DeviceTensor* t : {&x, &m, &g}) t->FillUniform(&rng, -1, 1);
  v.FillUniform(&rng, 0, 1);
  const auto x0 = x.ValuesDouble(), m0 = m.ValuesDouble(), v0 = v.ValuesDouble(),
             g0 = g.ValuesDouble();
  std::vector<double> xw(50);
  for (int i = 0; i < 50; ++i) xw[i] = GoldenStepV1(x0[i], m0[i], v0[i], 0, g0[i], h).x;
  w.Reset();
  ASSERT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), w.get(), false, false), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_TRUE(w.Untouched());
  ExpectNearV1(x, xw, "varRef");
  EXPECT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), wi.get(), false, false),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("maxGradNormOptional dtype"), std::string::npos) << RecentError();
}

TEST_F(ApplyAdamWV1Test, EmptyTensors) {
  Scalars s(ACL_FLOAT);
  HyperV1 h;
  s.Set(&h);
  DeviceTensor x({0, 3}, ACL_FLOAT), m({0, 3}, ACL_FLOAT), v({0, 3}, ACL_FLOAT),
      w({0, 3}, ACL_FLOAT), g({0, 3}, ACL_FLOAT);
  EXPECT_EQ(Run(x.get(), m.get(), v.get(), s, g.get(), w.get(), true, false), ACLNN_SUCCESS)
      << RecentError();
}

TEST_F(ApplyAdamWV1Test, ErrorsNameTheParameter) {
  static const char* const kNames[7] = {"beta1Power", "beta2Power", "lr", "weightDecay",
                                        "beta1",      "beta2",      "eps"};
  Scalars s(ACL_FLOAT);
  DeviceTensor x({4, 5}, ACL_FLOAT), m({4, 5}, ACL_FLOAT), v({4, 5}, ACL_FLOAT),
      w({4, 5}, ACL_FLOAT), g({4, 5}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto p1 = [&](aclTensor* a, aclTensor* b, aclTensor* c, const Scalars& sc, const aclTensor* gr,
                const aclTensor* mg,
                bool amsgrad) { return Phase1(a, b, c, sc, gr, mg, amsgrad, false, &ws, &ex); };
  // nullptr, 161001.
  ExpectMessage(p1(nullptr, m.get(), v.get(), s, g.get(), nullptr, false), ACLNN_ERR_PARAM_NULLPTR,
                {"varRef"});
  ExpectMessage(p1(x.get(), nullptr, v.get(), s, g.get(), nullptr, false), ACLNN_ERR_PARAM_NULLPTR,
                {"mRef"});
  ExpectMessage(p1(x.get(), m.get(), nullptr, s, g.get(), nullptr, false), ACLNN_ERR_PARAM_NULLPTR,
                {"vRef"});
  for (int i = 0; i < 7; ++i) {
    aclTensor* t[7];
    for (int j = 0; j < 7; ++j) t[j] = j == i ? nullptr : s[j];
    ExpectMessage(
        aclnnApplyAdamWGetWorkspaceSize(x.get(), m.get(), v.get(), t[0], t[1], t[2], t[3], t[4],
                                        t[5], t[6], g.get(), nullptr, false, false, &ws, &ex),
        ACLNN_ERR_PARAM_NULLPTR, {kNames[i]});
  }
  ExpectMessage(p1(x.get(), m.get(), v.get(), s, nullptr, nullptr, false), ACLNN_ERR_PARAM_NULLPTR,
                {"grad"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), s, g.get(), nullptr, true), ACLNN_ERR_PARAM_NULLPTR,
                {"maxGradNormOptional", "amsgrad"});
  ExpectMessage(
      aclnnApplyAdamWGetWorkspaceSize(x.get(), m.get(), v.get(), s[0], s[1], s[2], s[3], s[4], s[5],
                                      s[6], g.get(), nullptr, false, false, nullptr, &ex),
      ACLNN_ERR_PARAM_NULLPTR, {"workspaceSize"});

  // dtypes, 161002: varRef outside FLOAT, FLOAT16, BFLOAT16; the others must equal varRef's.
  DeviceTensor xi({4, 5}, ACL_INT32), xd({4, 5}, ACL_DOUBLE), h16({4, 5}, ACL_FLOAT16);
  Scalars s16(ACL_FLOAT16);
  ExpectMessage(p1(xi.get(), m.get(), v.get(), s, g.get(), nullptr, false), ACLNN_ERR_PARAM_INVALID,
                {"varRef", "INT32", "FLOAT16"});
  ExpectMessage(p1(xd.get(), m.get(), v.get(), s, g.get(), nullptr, false), ACLNN_ERR_PARAM_INVALID,
                {"varRef", "DOUBLE"});
  ExpectMessage(p1(x.get(), h16.get(), v.get(), s, g.get(), nullptr, false),
                ACLNN_ERR_PARAM_INVALID, {"mRef dtype", "FLOAT16", "varRef dtype FLOAT"});
  ExpectMessage(p1(x.get(), m.get(), h16.get(), s, g.get(), nullptr, false),
                ACLNN_ERR_PARAM_INVALID, {"vRef dtype", "FLOAT16"});
  for (int i = 0; i < 7; ++i) {
    aclTensor* t[7];
    for (int j = 0; j < 7; ++j) t[j] = j == i ? s16[j] : s[j];
    ExpectMessage(
        aclnnApplyAdamWGetWorkspaceSize(x.get(), m.get(), v.get(), t[0], t[1], t[2], t[3], t[4],
                                        t[5], t[6], g.get(), nullptr, false, false, &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, {std::string(kNames[i]) + " dtype", "FLOAT16"});
  }
  ExpectMessage(p1(x.get(), m.get(), v.get(), s, h16.get(), nullptr, false),
                ACLNN_ERR_PARAM_INVALID, {"grad dtype", "FLOAT16"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), s, g.get(), h16.get(), true), ACLNN_ERR_PARAM_INVALID,
                {"maxGradNormOptional dtype", "FLOAT16"});

  // shapes, 161002.
  DeviceTensor t54({5, 4}, ACL_FLOAT);
  ExpectMessage(p1(x.get(), t54.get(), v.get(), s, g.get(), nullptr, false),
                ACLNN_ERR_PARAM_INVALID, {"mRef shape", "[5, 4]", "[4, 5]"});
  ExpectMessage(p1(x.get(), m.get(), t54.get(), s, g.get(), nullptr, false),
                ACLNN_ERR_PARAM_INVALID, {"vRef shape"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), s, t54.get(), nullptr, false),
                ACLNN_ERR_PARAM_INVALID, {"grad shape"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), s, g.get(), t54.get(), true), ACLNN_ERR_PARAM_INVALID,
                {"maxGradNormOptional shape"});
  Scalars s2(ACL_FLOAT, {2});
  for (int i = 0; i < 7; ++i) {
    aclTensor* t[7];
    for (int j = 0; j < 7; ++j) t[j] = j == i ? s2[j] : s[j];
    ExpectMessage(
        aclnnApplyAdamWGetWorkspaceSize(x.get(), m.get(), v.get(), t[0], t[1], t[2], t[3], t[4],
                                        t[5], t[6], g.get(), nullptr, false, false, &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, {kNames[i], "1 element", "[2]"});
  }
  const std::vector<int64_t> nine(9, 1);
  DeviceTensor b1(nine, ACL_FLOAT), b2(nine, ACL_FLOAT), b3(nine, ACL_FLOAT), b4(nine, ACL_FLOAT);
  ExpectMessage(p1(b1.get(), b2.get(), b3.get(), s, b4.get(), nullptr, false),
                ACLNN_ERR_PARAM_INVALID, {"varRef rank"});
}

}  // namespace
}  // namespace openaclnn::test
