// aclnnRmsNorm: error codes and messages, crafted exact values, empty tensors, random strided
// problems against the float64 golden (fast path and the forced reference), and bitwise
// determinism over thread counts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/thread_pool.h"
#include "ops/rms_norm/rn_test_util.h"

namespace openaclnn::rn_test {
namespace {

class RmsNormTest : public test::RuntimeTest {
 protected:
  void ExpectPhase1Error(aclnnStatus code, const std::vector<std::string>& words,
                         const aclTensor* x, const aclTensor* g, const aclTensor* y,
                         const aclTensor* r) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    EXPECT_EQ(aclnnRmsNormGetWorkspaceSize(x, g, 1e-6, y, r, &ws, &ex), code);
    const std::string message = RecentError();
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    }
  }
};

TEST_F(RmsNormTest, ErrorsNameTheParameter) {
  DeviceTensor x({2, 3, 4}, ACL_FLOAT), g({4}, ACL_FLOAT), y({2, 3, 4}, ACL_FLOAT),
      r({2, 3, 1}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"x"}, nullptr, g.get(), y.get(), r.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"gamma"}, x.get(), nullptr, y.get(), r.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"yOut"}, x.get(), g.get(), nullptr, r.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_NULLPTR, {"rstdOut"}, x.get(), g.get(), y.get(), nullptr);

  DeviceTensor xi({2, 3, 4}, ACL_INT32);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"x", "INT32"}, xi.get(), g.get(), y.get(), r.get());
  DeviceTensor xh({2, 3, 4}, ACL_FLOAT16), gb({4}, ACL_BF16), yh({2, 3, 4}, ACL_FLOAT16);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"gamma", "FLOAT16", "BFLOAT16"}, xh.get(), gb.get(),
                    yh.get(), r.get());
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"yOut", "FLOAT16"}, xh.get(), g.get(), y.get(),
                    r.get());
  DeviceTensor rh({2, 3, 1}, ACL_FLOAT16);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"rstdOut", "FLOAT16"}, x.get(), g.get(), y.get(),
                    rh.get());
  DeviceTensor g5({5}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"gamma", "[5]", "[2, 3, 4]"}, x.get(), g5.get(),
                    y.get(), r.get());
  DeviceTensor gbig({1, 2, 3, 4}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"gamma rank"}, x.get(), gbig.get(), y.get(), r.get());
  DeviceTensor y2({2, 4, 3}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"yOut shape"}, x.get(), g.get(), y2.get(), r.get());
  DeviceTensor r2({2, 1, 1}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"rstdOut shape", "[2, 3, 1]"}, x.get(), g.get(),
                    y.get(), r2.get());
  DeviceTensor x0({2, 0}, ACL_FLOAT), g0({0}, ACL_FLOAT), y0({2, 0}, ACL_FLOAT),
      r0({2, 1}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"gamma", "empty"}, x0.get(), g0.get(), y0.get(),
                    r0.get());
  DeviceTensor scalar({}, ACL_FLOAT);
  ExpectPhase1Error(ACLNN_ERR_PARAM_INVALID, {"x rank"}, scalar.get(), g.get(), y.get(), r.get());
}

TEST_F(RmsNormTest, CraftedExactValues) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    // Rows of 2s (mean square 4, rstd 0.5 with epsilon 0) and of 1s and -1s (rstd 1).
    DeviceTensor x({2, 4}, dt), g({4}, dt), y({2, 4}, dt), r({2}, ACL_FLOAT);
    x.Fill({2, 2, 2, 2, 1, -1, 1, -1});
    g.Fill({1, 2, 4, 0.5f});
    ASSERT_EQ(RunRmsNorm(x.get(), g.get(), 0.0, y.get(), r.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_EQ(r.Values(), (std::vector<float>{0.5f, 1.0f}));
    EXPECT_EQ(y.Values(), (std::vector<float>{1, 2, 4, 0.5f, 1, -2, 4, -0.5f}));
  }
}

TEST_F(RmsNormTest, EmptyX) {
  DeviceTensor x({0, 8}, ACL_FLOAT), g({8}, ACL_FLOAT), y({0, 8}, ACL_FLOAT), r({0, 1}, ACL_FLOAT);
  EXPECT_EQ(RunRmsNorm(x.get(), g.get(), 1e-6, y.get(), r.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_TRUE(y.Untouched());
  EXPECT_TRUE(r.Untouched());
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

// One random problem against the golden; returns false (with failures recorded) on a mismatch.
void CheckRandom(std::mt19937* rng, int iter) {
  std::uniform_int_distribution<int> rank_d(1, 4), dim_d(1, 9), lay(0, 5), combo(0, 4);
  const int rank = rank_d(*rng);
  std::vector<int64_t> shape;
  for (int d = 0; d < rank; ++d) shape.push_back(dim_d(*rng));
  const int grank = std::uniform_int_distribution<int>(1, rank)(*rng);
  const int begin = rank - grank;
  std::vector<int64_t> gshape(shape.begin() + begin, shape.end());
  std::vector<int64_t> lead(shape.begin(), shape.begin() + begin);
  std::vector<int64_t> rshape = lead;
  if ((*rng)() % 2 == 0) rshape.resize(shape.size(), 1);
  const DtypeCombo c = kCombos[combo(*rng)];
  DeviceTensor x(shape, c.x, PickLayout(lay(*rng), rank));
  DeviceTensor g(gshape, c.gamma, PickLayout(lay(*rng), grank));
  DeviceTensor y(shape, c.x, PickLayout(lay(*rng), rank));
  DeviceTensor r(rshape, ACL_FLOAT, PickLayout(lay(*rng) % 3, static_cast<int>(rshape.size())));
  const std::vector<double> xv = x.FillUniform(rng, -2.0f, 2.0f);
  const std::vector<double> gv = g.FillUniform(rng, 0.5f, 1.5f);
  const double eps = iter % 3 == 0 ? 1e-6 : 1e-2;
  int64_t m = 1, n = 1;
  for (int64_t d : lead) m *= d;
  for (int64_t d : gshape) n *= d;
  ASSERT_EQ(RunRmsNorm(x.get(), g.get(), eps, y.get(), r.get()), ACLNN_SUCCESS) << RecentError();
  std::vector<double> yref, rref;
  GoldenForward(xv, gv, m, n, eps, &yref, &rref);
  const std::vector<double> yout = y.ValuesDouble(), rout = r.ValuesDouble();
  for (int64_t i = 0; i < m; ++i) {
    ASSERT_NEAR(rout[i], rref[i], Tolerance(ACL_FLOAT, rref[i], 0) * 3) << "iter " << iter;
  }
  for (size_t i = 0; i < yout.size(); ++i) {
    ASSERT_NEAR(yout[i], yref[i], Tolerance(c.x, yref[i], 0) * 3)
        << "iter " << iter << " element " << i << " dtype " << c.x;
  }
  EXPECT_EQ(y.DamagedCanaries(), 0);
  EXPECT_EQ(r.DamagedCanaries(), 0);
}

TEST_F(RmsNormTest, RandomStridedAgainstGolden) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 300; ++iter) CheckRandom(&rng, iter);
}

TEST_F(RmsNormTest, RandomStridedForcedReference) {
  setenv("OPENACLNN_FORCE_IMPL", "rms_norm=reference", 1);
  std::mt19937 rng(99);
  for (int iter = 0; iter < 100; ++iter) CheckRandom(&rng, iter);
  unsetenv("OPENACLNN_FORCE_IMPL");
}

TEST_F(RmsNormTest, LongRowsAndManyRows) {
  std::mt19937 rng(7);
  for (auto shape : {std::vector<int64_t>{2, int64_t{1} << 20}, std::vector<int64_t>{4096, 96}}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      DeviceTensor x(shape, dt), g({shape[1]}, dt), y(shape, dt), r({shape[0], 1}, ACL_FLOAT);
      const std::vector<double> xv = x.FillUniform(&rng, -1.0f, 1.0f);
      const std::vector<double> gv = g.FillUniform(&rng, 0.5f, 1.5f);
      ASSERT_EQ(RunRmsNorm(x.get(), g.get(), 1e-6, y.get(), r.get()), ACLNN_SUCCESS);
      std::vector<double> yref, rref;
      GoldenForward(xv, gv, shape[0], shape[1], 1e-6, &yref, &rref);
      const std::vector<double> yout = y.ValuesDouble(), rout = r.ValuesDouble();
      for (int64_t i = 0; i < shape[0]; ++i) ASSERT_NEAR(rout[i], rref[i], 1e-4 * rref[i]);
      for (size_t i = 0; i < yout.size(); ++i) {
        ASSERT_NEAR(yout[i], yref[i], Tolerance(dt, yref[i], 0) * 10) << i;
      }
    }
  }
}

TEST_F(RmsNormTest, BitwiseSameForAnyThreadCount) {
  std::mt19937 rng(5);
  const std::vector<int64_t> shape = {3000, 700};
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    DeviceTensor x(shape, dt), g({700}, ACL_FLOAT);
    x.FillUniform(&rng, -3.0f, 3.0f);
    g.FillUniform(&rng, 0.5f, 1.5f);
    std::vector<uint8_t> first_y, first_r;
    for (int threads : {1, 2, 3, 4, 7, 16}) {
      cpu::SetNumThreads(threads);
      DeviceTensor y(shape, dt), r({3000, 1}, ACL_FLOAT);
      ASSERT_EQ(RunRmsNorm(x.get(), g.get(), 1e-6, y.get(), r.get()), ACLNN_SUCCESS);
      if (first_y.empty()) {
        first_y = y.Bytes();
        first_r = r.Bytes();
      } else {
        EXPECT_EQ(y.Bytes(), first_y) << threads << " threads";
        EXPECT_EQ(r.Bytes(), first_r) << threads << " threads";
      }
    }
    cpu::SetNumThreads(0);
  }
}

}  // namespace
}  // namespace openaclnn::rn_test
