// aclnnRmsNormGrad: error codes and messages, crafted exact values, empty tensors, random strided
// problems against the float64 golden (fast path and the forced reference), and bitwise
// determinism over thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/thread_pool.h"
#include "ops/rms_norm/rn_test_util.h"

namespace openaclnn::rn_test {
namespace {

class RmsNormGradTest : public test::RuntimeTest {
 protected:
  void ExpectPhase1Error(aclnnStatus code, const std::vector<std::string>& words,
                         const aclTensor* dy, const aclTensor* x, const aclTensor* r,
                         const aclTensor* g, const aclTensor* dx, const aclTensor* dg) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    EXPECT_EQ(aclnnRmsNormGradGetWorkspaceSize(dy, x, r, g, dx, dg, &ws, &ex), code);
    const std::string message = RecentError();
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    }
  }
};

TEST_F(RmsNormGradTest, ErrorsNameTheParameter) {
  DeviceTensor dy({2, 3, 4}, ACL_FLOAT), x({2, 3, 4}, ACL_FLOAT), r({2, 3}, ACL_FLOAT),
      g({4}, ACL_FLOAT), dx({2, 3, 4}, ACL_FLOAT), dg({4}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"dy"}, nullptr, x.get(), r.get(), g.get(), dx.get(),
                    dg.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"x"}, dy.get(), nullptr, r.get(), g.get(), dx.get(),
                    dg.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"rstd"}, dy.get(), x.get(), nullptr, g.get(),
                    dx.get(), dg.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"gamma"}, dy.get(), x.get(), r.get(), nullptr,
                    dx.get(), dg.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"dxOut"}, dy.get(), x.get(), r.get(), g.get(),
                    nullptr, dg.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"dgammaOut"}, dy.get(), x.get(), r.get(), g.get(),
                    dx.get(), nullptr);
  DeviceTensor dyh({2, 3, 4}, ACL_FLOAT16);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"dy", "FLOAT16"}, dyh.get(), x.get(), r.get(),
                    g.get(), dx.get(), dg.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"dxOut", "FLOAT16"}, dy.get(), x.get(), r.get(),
                    g.get(), dyh.get(), dg.get());
  DeviceTensor dgh({4}, ACL_FLOAT16);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"dgammaOut", "FLOAT16"}, dy.get(), x.get(), r.get(),
                    g.get(), dx.get(), dgh.get());
  DeviceTensor rb({2, 3}, ACL_BF16);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"rstd", "BFLOAT16"}, dy.get(), x.get(), rb.get(),
                    g.get(), dx.get(), dg.get());
  DeviceTensor r2({3, 2}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"rstd shape", "[2, 3]"}, dy.get(), x.get(), r2.get(),
                    g.get(), dx.get(), dg.get());
  DeviceTensor g3({3}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"gamma", "[3]"}, dy.get(), x.get(), r.get(), g3.get(),
                    dx.get(), dg.get());
  DeviceTensor dg5({5}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"dgammaOut shape"}, dy.get(), x.get(), r.get(),
                    g.get(), dx.get(), dg5.get());
  DeviceTensor dy2({2, 4, 3}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"dy shape"}, dy2.get(), x.get(), r.get(), g.get(),
                    dx.get(), dg.get());
}

TEST_F(RmsNormGradTest, CraftedExactValues) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    // x = 2s, rstd 0.5, gamma 1, dy = e0: mean(dy*g*x) = 0.5, dx = 0.5 * (dy - 0.25).
    DeviceTensor dy({1, 4}, dt), x({1, 4}, dt), r({1, 1}, ACL_FLOAT), g({4}, dt), dx({1, 4}, dt),
        dg({4}, ACL_FLOAT);
    dy.Fill({1, 0, 0, 0});
    x.Fill({2, 2, 2, 2});
    r.Fill({0.5f});
    g.Fill({1, 1, 1, 1});
    ASSERT_EQ(RunRmsNormGrad(dy.get(), x.get(), r.get(), g.get(), dx.get(), dg.get()),
              ACLNN_SUCCESS)
        << RecentError();
    EXPECT_EQ(dx.Values(), (std::vector<float>{0.375f, -0.125f, -0.125f, -0.125f}));
    EXPECT_EQ(dg.Values(), (std::vector<float>{1, 0, 0, 0}));
  }
}

TEST_F(RmsNormGradTest, EmptyTensors) {
  // M == 0: dgamma is zero, dx empty.
  DeviceTensor dy({0, 8}, ACL_FLOAT), x({0, 8}, ACL_FLOAT), r({0}, ACL_FLOAT), g({8}, ACL_FLOAT),
      dx({0, 8}, ACL_FLOAT), dg({8}, ACL_FLOAT);
  ASSERT_EQ(RunRmsNormGrad(dy.get(), x.get(), r.get(), g.get(), dx.get(), dg.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(dg.Values(), std::vector<float>(8, 0.0f));
  // N == 0: nothing to write.
  DeviceTensor dy0({3, 0}, ACL_FLOAT), x0({3, 0}, ACL_FLOAT), r0({3}, ACL_FLOAT),
      g0({0}, ACL_FLOAT), dx0({3, 0}, ACL_FLOAT), dg0({0}, ACL_FLOAT);
  ASSERT_EQ(RunRmsNormGrad(dy0.get(), x0.get(), r0.get(), g0.get(), dx0.get(), dg0.get()),
            ACLNN_SUCCESS)
      << RecentError();
  EXPECT_TRUE(dx0.Untouched());
  EXPECT_TRUE(dg0.Untouched());
}

TensorLayout PickLayout(int pick, int rank) {
  std::vector<int> reversed;
  for (int d = rank - 1; d >= 0; --d) reversed.push_back(d);
  switch (pick) {
    case 1:
      return TensorLayout::Padded(2);
    case 2:
      return TensorLayout::Offset(3);
    case 3:
      return TensorLayout::Permuted(reversed);
    case 4:
      return TensorLayout::Strided(2, 1);
    case 5:
      return TensorLayout::Scrambled(rank);
    default:
      return TensorLayout::Contiguous();
  }
}

struct DtypeCombo {
  aclDataType x, gamma;
};
constexpr DtypeCombo kCombos[] = {{ACL_FLOAT, ACL_FLOAT},
                                  {ACL_FLOAT16, ACL_FLOAT16},
                                  {ACL_BF16, ACL_BF16},
                                  {ACL_FLOAT16, ACL_FLOAT},
                                  {ACL_BF16, ACL_FLOAT}};

// Checks dx and dgamma of an [m, n] problem against the golden, with tolerances scaled by the
// magnitudes of the terms (dx and dgamma cancel).
void ExpectMatchesGolden(const std::vector<double>& dyv, const std::vector<double>& xv,
                         const std::vector<double>& rv, const std::vector<double>& gv, int64_t m,
                         int64_t n, aclDataType dt, const DeviceTensor& dx, const DeviceTensor& dg,
                         const std::string& what) {
  std::vector<double> dxref, dgref;
  GoldenBackward(dyv, xv, rv, gv, m, n, &dxref, &dgref);
  std::vector<double> dg_scale(static_cast<size_t>(n), 0.0);
  const std::vector<double> dxout = dx.ValuesDouble(), dgout = dg.ValuesDouble();
  for (int64_t r = 0; r < m; ++r) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::fabs(dyv[r * n + i] * gv[i] * xv[r * n + i]);
    const double mean_abs = s / static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(r * n + i);
      const double scale =
          rv[r] * (std::fabs(dyv[k] * gv[i]) + std::fabs(xv[k]) * rv[r] * rv[r] * mean_abs);
      ASSERT_NEAR(dxout[k], dxref[k], Tolerance(dt, dxref[k], scale) * 3 + 1e-4 * scale)
          << what << " dx element " << k;
      dg_scale[i] += std::fabs(dyv[k] * xv[k] * rv[r]);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_NEAR(dgout[i], dgref[i], 1e-5 * dg_scale[i] + 1e-6) << what << " dgamma " << i;
  }
}

void CheckRandom(std::mt19937* rng, int iter) {
  std::uniform_int_distribution<int> rank_d(1, 4), dim_d(1, 9), lay(0, 5), combo(0, 4);
  const int rank = rank_d(*rng);
  std::vector<int64_t> shape;
  for (int d = 0; d < rank; ++d) shape.push_back(dim_d(*rng));
  const int grank = std::uniform_int_distribution<int>(1, rank)(*rng);
  const int begin = rank - grank;
  std::vector<int64_t> gshape(shape.begin() + begin, shape.end());
  std::vector<int64_t> rshape(shape.begin(), shape.begin() + begin);
  if ((*rng)() % 2 == 0) rshape.resize(shape.size(), 1);
  const DtypeCombo c = kCombos[combo(*rng)];
  DeviceTensor dy(shape, c.x, PickLayout(lay(*rng), rank));
  DeviceTensor x(shape, c.x, PickLayout(lay(*rng), rank));
  DeviceTensor r(rshape, ACL_FLOAT,
                 PickLayout(lay(*rng) % 3, static_cast<int>(std::max<size_t>(rshape.size(), 1))));
  DeviceTensor g(gshape, c.gamma, PickLayout(lay(*rng), grank));
  DeviceTensor dx(shape, c.x, PickLayout(lay(*rng), rank));
  DeviceTensor dg(gshape, ACL_FLOAT, PickLayout(lay(*rng) % 3, grank));
  const std::vector<double> dyv = dy.FillUniform(rng, -1.0f, 1.0f);
  const std::vector<double> xv = x.FillUniform(rng, -2.0f, 2.0f);
  const std::vector<double> rv = r.FillUniform(rng, 0.3f, 2.0f);
  const std::vector<double> gv = g.FillUniform(rng, 0.5f, 1.5f);
  int64_t m = 1, n = 1;
  for (int d = 0; d < begin; ++d) m *= shape[d];
  for (int64_t d : gshape) n *= d;
  ASSERT_EQ(RunRmsNormGrad(dy.get(), x.get(), r.get(), g.get(), dx.get(), dg.get()), ACLNN_SUCCESS)
      << RecentError();
  ExpectMatchesGolden(dyv, xv, rv, gv, m, n, c.x, dx, dg, "iter " + std::to_string(iter));
  EXPECT_EQ(dx.DamagedCanaries(), 0);
  EXPECT_EQ(dg.DamagedCanaries(), 0);
}

TEST_F(RmsNormGradTest, RandomStridedAgainstGolden) {
  std::mt19937 rng(4321);
  for (int iter = 0; iter < 300; ++iter) CheckRandom(&rng, iter);
}

TEST_F(RmsNormGradTest, RandomStridedForcedReference) {
  setenv("OPENACLNN_FORCE_IMPL", "rms_norm_grad=reference", 1);
  std::mt19937 rng(77);
  for (int iter = 0; iter < 100; ++iter) CheckRandom(&rng, iter);
  unsetenv("OPENACLNN_FORCE_IMPL");
}

TEST_F(RmsNormGradTest, LongRowsAndManyRows) {
  std::mt19937 rng(8);
  for (auto shape : {std::vector<int64_t>{2, int64_t{1} << 20}, std::vector<int64_t>{4096, 96}}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      DeviceTensor dy(shape, dt), x(shape, dt), r({shape[0]}, ACL_FLOAT), g({shape[1]}, dt),
          dx(shape, dt), dg({shape[1]}, ACL_FLOAT);
      const std::vector<double> dyv = dy.FillUniform(&rng, -1.0f, 1.0f);
      const std::vector<double> xv = x.FillUniform(&rng, -1.0f, 1.0f);
      const std::vector<double> rv = r.FillUniform(&rng, 0.5f, 2.0f);
      const std::vector<double> gv = g.FillUniform(&rng, 0.5f, 1.5f);
      ASSERT_EQ(RunRmsNormGrad(dy.get(), x.get(), r.get(), g.get(), dx.get(), dg.get()),
                ACLNN_SUCCESS);
      ExpectMatchesGolden(dyv, xv, rv, gv, shape[0], shape[1], dt, dx, dg, "long");
    }
  }
}

TEST_F(RmsNormGradTest, BitwiseSameForAnyThreadCount) {
  std::mt19937 rng(6);
  const std::vector<int64_t> shape = {3000, 700};
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    DeviceTensor dy(shape, dt), x(shape, dt), r({3000}, ACL_FLOAT), g({700}, dt);
    dy.FillUniform(&rng, -1.0f, 1.0f);
    x.FillUniform(&rng, -3.0f, 3.0f);
    r.FillUniform(&rng, 0.3f, 2.0f);
    g.FillUniform(&rng, 0.5f, 1.5f);
    std::vector<uint8_t> first_dx, first_dg;
    for (int threads : {1, 2, 3, 4, 7, 16}) {
      cpu::SetNumThreads(threads);
      DeviceTensor dx(shape, dt), dg({700}, ACL_FLOAT);
      ASSERT_EQ(RunRmsNormGrad(dy.get(), x.get(), r.get(), g.get(), dx.get(), dg.get()),
                ACLNN_SUCCESS);
      if (first_dx.empty()) {
        first_dx = dx.Bytes();
        first_dg = dg.Bytes();
      } else {
        EXPECT_EQ(dx.Bytes(), first_dx) << threads << " threads";
        EXPECT_EQ(dg.Bytes(), first_dg) << threads << " threads";
      }
    }
    cpu::SetNumThreads(0);
  }
}

}  // namespace
}  // namespace openaclnn::rn_test
