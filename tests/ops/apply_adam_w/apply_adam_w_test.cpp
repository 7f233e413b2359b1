// aclnnApplyAdamWV2: several steps against a float64 golden of torch.optim.AdamW's update (read
// back after each step, so each comparison covers one rounding), every dtype, amsgrad and
// maximize, random strided views, mixed dtypes, grad aliasing varRef, crafted exact values,
// bitwise determinism over thread counts, empty tensors, the step checked at launch, and the
// error matrix with message words.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_apply_adam_w_v2.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "util/device_tensor.h"
#include "util/ops_fixtures.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

struct Hyper {
  float lr = 0.01f, beta1 = 0.9f, beta2 = 0.999f, weight_decay = 0.01f, eps = 1e-8f;
  bool amsgrad = false, maximize = false;
};

// torch.optim.AdamW's step for one element, in double.
struct Golden {
  double x, m, v, w;
};
Golden GoldenStep(double x, double m, double v, double w, double g, double step, const Hyper& h) {
  if (h.maximize) g = -g;
  const double lr = h.lr, b1 = h.beta1, b2 = h.beta2;
  x *= 1.0 - lr * h.weight_decay;
  m = b1 * m + (1.0 - b1) * g;
  v = b2 * v + (1.0 - b2) * g * g;
  const double bc1 = 1.0 - std::pow(b1, step), bc2 = 1.0 - std::pow(b2, step);
  double vm = v;
  if (h.amsgrad) vm = w = std::max(w, v);
  x -= lr / bc1 * m / (std::sqrt(vm) / std::sqrt(bc2) + h.eps);
  return {x, m, v, w};
}

double Tolerance(aclDataType t) { return t == ACL_FLOAT ? 1e-5 : t == ACL_FLOAT16 ? 2e-3 : 1.6e-2; }

void ExpectNear(const DeviceTensor& t, const std::vector<double>& want, const char* name) {
  const std::vector<double> got = t.ValuesDouble();
  const double rtol = Tolerance(t.dtype());
  int64_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 2e-6 + rtol * std::fabs(want[i])) && bad++ < 5) {
      ADD_FAILURE() << name << "[" << i << "]: got " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << name;
  EXPECT_EQ(t.DamagedCanaries(), 0) << name;
}

class ApplyAdamWTest : public RuntimeTest {
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
  aclnnStatus Phase1(aclTensor* var, aclTensor* m, aclTensor* v, aclTensor* w, const aclTensor* g,
                     const aclTensor* step, const Hyper& h, uint64_t* ws, aclOpExecutor** ex) {
    return aclnnApplyAdamWV2GetWorkspaceSize(var, m, v, w, g, step, h.lr, h.beta1, h.beta2,
                                             h.weight_decay, h.eps, h.amsgrad, h.maximize, ws, ex);
  }
  aclnnStatus Run(aclTensor* var, aclTensor* m, aclTensor* v, aclTensor* w, const aclTensor* g,
                  const aclTensor* step, const Hyper& h) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus s = Phase1(var, m, v, w, g, step, h, &ws, &ex);
    return RunTwoPhase(s, ws, ex, stream_, aclnnApplyAdamWV2);
  }
  void ExpectMessage(aclnnStatus got, aclnnStatus code, const std::vector<std::string>& words) {
    EXPECT_EQ(got, code);
    const std::string message = RecentError();
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    }
  }

  // Runs `steps` steps on random state and compares each with the golden.
  void CheckSteps(const std::vector<int64_t>& dims, aclDataType param_type, aclDataType grad_type,
                  const Hyper& h, std::mt19937* rng, int steps, aclDataType step_type,
                  bool contiguous = false) {
    std::vector<TensorLayout> layouts = {TensorLayout::Contiguous(), TensorLayout::Offset(3),
                                         TensorLayout::Padded(2),
                                         TensorLayout::Scrambled(static_cast<int>(dims.size()))};
    if (contiguous) layouts = {TensorLayout::Offset(5)};
    auto pick = [&]() { return layouts[(*rng)() % layouts.size()]; };
    DeviceTensor x(dims, param_type, pick()), m(dims, param_type, pick()),
        v(dims, param_type, pick()), w(dims, param_type, pick()), g(dims, grad_type, pick());
    DeviceTensor step(step_type == ACL_INT64 ? std::vector<int64_t>{1} : std::vector<int64_t>{},
                      step_type);
    x.FillUniform(rng, -1, 1);
    m.FillUniform(rng, -0.1f, 0.1f);
    v.FillUniform(rng, 0, 0.01f);
    w.FillUniform(rng, 0, 0.02f);
    for (int s = 1; s <= steps; ++s) {
      SCOPED_TRACE("step " + std::to_string(s));
      g.FillUniform(rng, -1, 1);
      step.FillDouble({static_cast<double>(s)});
      const std::vector<double> x0 = x.ValuesDouble(), m0 = m.ValuesDouble(), v0 = v.ValuesDouble(),
                                w0 = w.ValuesDouble(), g0 = g.ValuesDouble();
      std::vector<double> xw(x0.size()), mw(x0.size()), vw(x0.size()), ww(x0.size());
      for (size_t i = 0; i < x0.size(); ++i) {
        const Golden r = GoldenStep(x0[i], m0[i], v0[i], w0[i], g0[i], s, h);
        xw[i] = r.x;
        mw[i] = r.m;
        vw[i] = r.v;
        ww[i] = r.w;
      }
      ASSERT_EQ(
          Run(x.get(), m.get(), v.get(), h.amsgrad ? w.get() : nullptr, g.get(), step.get(), h),
          ACLNN_SUCCESS)
          << RecentError();
      ExpectNear(x, xw, "varRef");
      ExpectNear(m, mw, "mRef");
      ExpectNear(v, vw, "vRef");
      if (h.amsgrad) ExpectNear(w, ww, "maxGradNormOptionalRef");
      EXPECT_EQ(g.ValuesDouble(), g0) << "grad written";
    }
  }

  aclrtStream stream_ = nullptr;
};

TEST_F(ApplyAdamWTest, StepsMatchTheFloat64Golden) {
  std::mt19937 rng(11);
  for (const char* impl : {"", "apply_adam_w_v2=reference"}) {
    setenv("OPENACLNN_FORCE_IMPL", impl, 1);
    for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (bool amsgrad : {false, true}) {
        for (bool maximize : {false, true}) {
          SCOPED_TRACE(std::string(impl) + " " + DTypeName(t) + (amsgrad ? " amsgrad" : "") +
                       (maximize ? " maximize" : ""));
          Hyper h;
          h.amsgrad = amsgrad;
          h.maximize = maximize;
          CheckSteps({3, 17, 101}, t, t, h, &rng, 4, amsgrad ? ACL_FLOAT : ACL_INT64);
        }
      }
    }
  }
}

TEST_F(ApplyAdamWTest, ContiguousOperandsOfOneDtype) {
  // The path that converts inside the update's vectors (every operand contiguous, one dtype),
  // with a tail of single lanes.
  std::mt19937 rng(21);
  for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (bool amsgrad : {false, true}) {
      SCOPED_TRACE(std::string(DTypeName(t)) + (amsgrad ? " amsgrad" : ""));
      Hyper h;
      h.amsgrad = amsgrad;
      h.maximize = amsgrad;
      CheckSteps({2, 2100}, t, t, h, &rng, 3, ACL_INT64, true);
    }
  }
}

TEST_F(ApplyAdamWTest, LargeTensorsInTasksOfSeveralBlocks) {
  // 300007 elements: pool tasks of four 2048-element blocks, the last task and block partial; the
  // one-dtype contiguous path and the buffered one (FLOAT state, BFLOAT16 gradient).
  std::mt19937 rng(31);
  Hyper h;
  h.amsgrad = true;
  CheckSteps({300007}, ACL_BF16, ACL_BF16, h, &rng, 2, ACL_INT64, true);
  CheckSteps({300007}, ACL_FLOAT, ACL_BF16, h, &rng, 2, ACL_INT64, true);
}

TEST_F(ApplyAdamWTest, MixedDtypesAndOtherHyperparameters) {
  std::mt19937 rng(5);
  Hyper h;
  h.lr = 1e-3f;
  h.beta1 = 0.5f;
  h.beta2 = 0.9f;
  h.weight_decay = 0.1f;
  h.eps = 1e-6f;
  h.amsgrad = true;
  // FLOAT state with 16-bit gradients (CANN's mixed case), and 16-bit state with FLOAT grads.
  CheckSteps({4097}, ACL_FLOAT, ACL_FLOAT16, h, &rng, 3, ACL_INT64);
  CheckSteps({4097}, ACL_FLOAT, ACL_BF16, h, &rng, 3, ACL_FLOAT);
  CheckSteps({2, 3, 1, 5}, ACL_BF16, ACL_FLOAT, h, &rng, 3, ACL_INT64);
  // A single element and dims of size 1.
  CheckSteps({1, 1}, ACL_FLOAT, ACL_FLOAT, h, &rng, 2, ACL_INT64);
}

TEST_F(ApplyAdamWTest, CraftedExactValues) {
  // beta1 = beta2 = 0, eps = 0: m = g, v = g^2, no bias correction, var = var * (1 - lr * wd) -
  // lr * g / |g|. var 4, g 2, lr 0.5, wd 0.5: 4 * 0.75 - 0.5 = 2.5; maximize flips the sign.
  Hyper h;
  h.lr = 0.5f;
  h.beta1 = 0;
  h.beta2 = 0;
  h.weight_decay = 0.5f;
  h.eps = 0;
  for (bool maximize : {false, true}) {
    h.maximize = maximize;
    DeviceTensor x({2}, ACL_FLOAT), m({2}, ACL_FLOAT), v({2}, ACL_FLOAT), g({2}, ACL_FLOAT),
        step({1}, ACL_INT64);
    x.Fill({4, -8});
    m.Fill({7, 7});
    v.Fill({9, 9});
    g.Fill({2, -4});
    step.FillDouble({3});
    ASSERT_EQ(Run(x.get(), m.get(), v.get(), nullptr, g.get(), step.get(), h), ACLNN_SUCCESS)
        << RecentError();
    const float s = maximize ? -1.0f : 1.0f;
    EXPECT_EQ(x.Values(), (std::vector<float>{3.0f - 0.5f * s, -6.0f + 0.5f * s}));
    EXPECT_EQ(m.Values(), (std::vector<float>{2 * s, -4 * s}));
    EXPECT_EQ(v.Values(), (std::vector<float>{4, 16}));
  }
}

TEST_F(ApplyAdamWTest, ZeroDimParameter) {
  // A 0-d parameter (accepted although the page says rank 1 to 8), the crafted case above.
  Hyper h;
  h.lr = 0.5f;
  h.beta1 = 0;
  h.beta2 = 0;
  h.weight_decay = 0.5f;
  h.eps = 0;
  DeviceTensor x({}, ACL_FLOAT16), m({}, ACL_FLOAT16), v({}, ACL_FLOAT16), g({}, ACL_FLOAT16),
      step({}, ACL_FLOAT);
  x.Fill({4});
  g.Fill({2});
  step.FillDouble({1.5});
  ASSERT_EQ(Run(x.get(), m.get(), v.get(), nullptr, g.get(), step.get(), h), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(x.Values(), std::vector<float>{2.5f});
  EXPECT_EQ(v.Values(), std::vector<float>{4.0f});
}

TEST_F(ApplyAdamWTest, GradAliasingVarReadsTheOldValues) {
  Hyper h;
  DeviceTensor x({300}, ACL_FLOAT), m({300}, ACL_FLOAT), v({300}, ACL_FLOAT), step({1}, ACL_INT64);
  std::mt19937 rng(2);
  x.FillUniform(&rng, -1, 1);
  m.FillUniform(&rng, -1, 1);
  v.FillUniform(&rng, 0, 1);
  step.FillDouble({2});
  const auto x0 = x.ValuesDouble(), m0 = m.ValuesDouble(), v0 = v.ValuesDouble();
  std::vector<double> xw(300);
  for (int i = 0; i < 300; ++i) xw[i] = GoldenStep(x0[i], m0[i], v0[i], 0, x0[i], 2, h).x;
  ASSERT_EQ(Run(x.get(), m.get(), v.get(), nullptr, x.get(), step.get(), h), ACLNN_SUCCESS)
      << RecentError();
  ExpectNear(x, xw, "varRef");
}

TEST_F(ApplyAdamWTest, BitwiseForAnyThreadCount) {
  Hyper h;
  h.amsgrad = true;
  const std::vector<int64_t> dims = {7, 1000};
  std::vector<std::vector<uint8_t>> first;
  for (int threads : {1, 2, 5}) {
    cpu::SetNumThreads(threads);
    std::mt19937 rng(9);
    DeviceTensor x(dims, ACL_BF16), m(dims, ACL_BF16), v(dims, ACL_BF16), w(dims, ACL_BF16),
        g(dims, ACL_BF16), step({1}, ACL_INT64);
    for (DeviceTensor* t : {&x, &m, &g}) t->FillUniform(&rng, -1, 1);
    for (DeviceTensor* t : {&v, &w}) t->FillUniform(&rng, 0, 1);
    step.FillDouble({5});
    ASSERT_EQ(Run(x.get(), m.get(), v.get(), w.get(), g.get(), step.get(), h), ACLNN_SUCCESS);
    std::vector<std::vector<uint8_t>> bytes = {x.Bytes(), m.Bytes(), v.Bytes(), w.Bytes()};
    if (first.empty()) first = bytes;
    EXPECT_EQ(bytes, first) << threads << " threads";
  }
}

TEST_F(ApplyAdamWTest, BitwiseForEverySimdTarget) {
  // 2048 + 13 elements: a whole block of vectors and a tail of single lanes.
  Hyper h;
  h.amsgrad = true;
  h.maximize = true;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    std::vector<std::vector<uint8_t>> first;
    for (const std::string& isa : cpu::AvailableIsas()) {
      SCOPED_TRACE(isa + " " + DTypeName(dt));
      ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
      std::mt19937 rng(4);
      DeviceTensor x({2061}, dt), m({2061}, dt), v({2061}, dt), w({2061}, dt), g({2061}, dt),
          step({1}, ACL_INT64);
      for (DeviceTensor* t : {&x, &m, &g}) t->FillUniform(&rng, -1, 1);
      for (DeviceTensor* t : {&v, &w}) t->FillUniform(&rng, 0, 1e-3f);
      step.FillDouble({2});
      ASSERT_EQ(Run(x.get(), m.get(), v.get(), w.get(), g.get(), step.get(), h), ACLNN_SUCCESS);
      std::vector<std::vector<uint8_t>> bytes = {x.Bytes(), m.Bytes(), v.Bytes(), w.Bytes()};
      if (first.empty()) first = bytes;
      EXPECT_EQ(bytes, first);
    }
  }
  cpu::SetPlanningIsaCap("");
}

TEST_F(ApplyAdamWTest, WithoutAmsgradMaxGradNormIsUntouched) {
  Hyper h;
  DeviceTensor x({50}, ACL_FLOAT), m({50}, ACL_FLOAT), v({50}, ACL_FLOAT), w({50}, ACL_FLOAT),
      g({50}, ACL_FLOAT), step({1}, ACL_INT64);
  step.FillDouble({1});
  w.Reset();
  ASSERT_EQ(Run(x.get(), m.get(), v.get(), w.get(), g.get(), step.get(), h), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_TRUE(w.Untouched());
}

TEST_F(ApplyAdamWTest, EmptyTensors) {
  Hyper h;
  h.amsgrad = true;
  DeviceTensor x({0, 3}, ACL_FLOAT), m({0, 3}, ACL_FLOAT), v({0, 3}, ACL_FLOAT),
      w({0, 3}, ACL_FLOAT), g({0, 3}, ACL_FLOAT), step({1}, ACL_INT64);
  step.FillDouble({1});
  EXPECT_EQ(Run(x.get(), m.get(), v.get(), w.get(), g.get(), step.get(), h), ACLNN_SUCCESS)
      << RecentError();
}

TEST_F(ApplyAdamWTest, NonPositiveStepFailsAtLaunch) {
  Hyper h;
  DeviceTensor x({8}, ACL_FLOAT), m({8}, ACL_FLOAT), v({8}, ACL_FLOAT), g({8}, ACL_FLOAT),
      step({1}, ACL_INT64), stepf({1}, ACL_FLOAT);
  x.Fill(std::vector<float>(8, 1.0f));
  for (double bad : {0.0, -2.0}) {
    step.FillDouble({bad});
    // Phase 1 cannot see the value; the failed launch surfaces at the synchronisation.
    const aclnnStatus s = Run(x.get(), m.get(), v.get(), nullptr, g.get(), step.get(), h);
    EXPECT_EQ(s, ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_NE(RecentError().find("step"), std::string::npos) << RecentError();
  }
  stepf.FillDouble({NAN});
  EXPECT_EQ(Run(x.get(), m.get(), v.get(), nullptr, g.get(), stepf.get(), h),
            ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_EQ(x.Values(), std::vector<float>(8, 1.0f));
}

TEST_F(ApplyAdamWTest, ErrorsNameTheParameter) {
  Hyper h;
  DeviceTensor x({4, 5}, ACL_FLOAT), m({4, 5}, ACL_FLOAT), v({4, 5}, ACL_FLOAT),
      w({4, 5}, ACL_FLOAT), g({4, 5}, ACL_FLOAT), step({1}, ACL_INT64);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto p1 = [&](aclTensor* a, aclTensor* b, aclTensor* c, aclTensor* d, const aclTensor* e,
                const aclTensor* f,
                const Hyper& hh) { return Phase1(a, b, c, d, e, f, hh, &ws, &ex); };
  ExpectMessage(p1(nullptr, m.get(), v.get(), nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_NULLPTR, {"varRef"});
  ExpectMessage(p1(x.get(), nullptr, v.get(), nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_NULLPTR, {"mRef"});
  ExpectMessage(p1(x.get(), m.get(), nullptr, nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_NULLPTR, {"vRef"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), nullptr, nullptr, step.get(), h),
                ACLNN_ERR_PARAM_NULLPTR, {"grad"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), nullptr, g.get(), nullptr, h),
                ACLNN_ERR_PARAM_NULLPTR, {"step"});
  Hyper ams = h;
  ams.amsgrad = true;
  ExpectMessage(p1(x.get(), m.get(), v.get(), nullptr, g.get(), step.get(), ams),
                ACLNN_ERR_PARAM_NULLPTR, {"maxGradNormOptionalRef", "amsgrad"});
  ExpectMessage(
      aclnnApplyAdamWV2GetWorkspaceSize(x.get(), m.get(), v.get(), nullptr, g.get(), step.get(),
                                        0.1f, 0.9f, 0.999f, 0, 1e-8f, false, false, nullptr, &ex),
      ACLNN_ERR_PARAM_NULLPTR, {"workspaceSize"});

  DeviceTensor xi({4, 5}, ACL_INT32), md({4, 5}, ACL_DOUBLE), gi({4, 5}, ACL_INT8),
      wi({4, 5}, ACL_INT64), si({1}, ACL_INT32);
  ExpectMessage(p1(xi.get(), m.get(), v.get(), nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"varRef", "INT32"});
  ExpectMessage(p1(x.get(), md.get(), v.get(), nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"mRef", "DOUBLE"});
  ExpectMessage(p1(x.get(), m.get(), md.get(), nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"vRef", "DOUBLE"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), wi.get(), g.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"maxGradNormOptionalRef", "INT64"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), nullptr, gi.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"grad", "INT8"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), nullptr, g.get(), si.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"step", "INT32"});

  DeviceTensor t54({5, 4}, ACL_FLOAT), s2({2}, ACL_INT64);
  ExpectMessage(p1(x.get(), t54.get(), v.get(), nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"mRef shape", "[5, 4]", "[4, 5]"});
  ExpectMessage(p1(x.get(), m.get(), t54.get(), nullptr, g.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"vRef shape"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), t54.get(), g.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"maxGradNormOptionalRef shape"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), nullptr, t54.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"grad shape"});
  ExpectMessage(p1(x.get(), m.get(), v.get(), nullptr, g.get(), s2.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"step", "1 element", "[2]"});
  const std::vector<int64_t> nine(9, 1);
  DeviceTensor b1(nine, ACL_FLOAT), b2(nine, ACL_FLOAT), b3(nine, ACL_FLOAT), b4(nine, ACL_FLOAT);
  ExpectMessage(p1(b1.get(), b2.get(), b3.get(), nullptr, b4.get(), step.get(), h),
                ACLNN_ERR_PARAM_INVALID, {"varRef rank"});
}

}  // namespace
}  // namespace openaclnn::test
