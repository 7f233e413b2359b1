// openaclnn's packed fp32 GEMM kernel (kernels/cpu/sgemm_kernel.h) on every target this CPU runs
// that has fused multiply-add: values against a float64 reference for every transpose combination,
// ragged edges, depth-block boundaries, padded strides, alpha and beta (beta == 0 never reads C);
// the documented bit-for-bit promises: the same bits for any tiling over shared packed panels, and
// the same bits on every such target.
#include "kernels/cpu/sgemm_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "kernels/cpu/gemm.h"

namespace openaclnn::cpu {
namespace {

struct Case {
  int64_t m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
};

struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;
  Operands(const Case& t, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    // Stored rows padded by a few elements, so strides differ from the logical widths.
    lda = (t.trans_a ? t.m : t.k) + 3;
    ldb = (t.trans_b ? t.k : t.n) + 5;
    ldc = t.n + 7;
    a.resize(static_cast<size_t>((t.trans_a ? t.k : t.m) * lda));
    b.resize(static_cast<size_t>((t.trans_b ? t.n : t.k) * ldb));
    c.resize(static_cast<size_t>(t.m * ldc));
    for (float& v : a) v = u(rng);
    for (float& v : b) v = u(rng);
    for (float& v : c) v = u(rng);
  }
  float A(const Case& t, int64_t i, int64_t p) const {
    return t.trans_a ? a[p * lda + i] : a[i * lda + p];
  }
  float B(const Case& t, int64_t p, int64_t j) const {
    return t.trans_b ? b[j * ldb + p] : b[p * ldb + j];
  }
};

std::vector<std::string> FmaIsas() {
  std::vector<std::string> out;
  for (const std::string& name : AvailableIsas()) {
    SetPlanningIsaCap(name);
    if (HasPackedSgemm(PlanningTarget())) out.push_back(name);
  }
  SetPlanningIsaCap("");
  return out;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const int64_t shapes[][3] = {{1, 1, 1},     {5, 3, 7},       {14, 32, 256}, {15, 33, 257},
                               {37, 70, 600}, {130, 129, 513}, {29, 17, 1}};
  for (const auto& s : shapes) {
    for (int flags = 0; flags < 4; ++flags) {
      cases.push_back({s[0], s[1], s[2], (flags & 1) != 0, (flags & 2) != 0, 1.0f, 0.0f});
    }
    cases.push_back({s[0], s[1], s[2], false, true, 0.5f, 1.0f});
    cases.push_back({s[0], s[1], s[2], true, false, -1.5f, -2.0f});
  }
  return cases;
}

class SgemmKernelTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(SetPlanningIsaCap(GetParam()));
    target_ = PlanningTarget();
    ASSERT_TRUE(HasPackedSgemm(target_)) << GetParam();
  }
  void TearDown() override { SetPlanningIsaCap(""); }
  KernelTarget target_;
};

TEST_P(SgemmKernelTest, MatchesFloat64Reference) {
  uint32_t seed = 1;
  for (const Case& t : Cases()) {
    Operands o(t, seed++);
    std::vector<float> c = o.c;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (t.beta == 0.0f) {
      // beta == 0: C is never read, so NaN there must not reach the result.
      for (int64_t i = 0; i < t.m; ++i) std::fill(&c[i * o.ldc], &c[i * o.ldc] + t.n, nan);
    }
    PackedSgemm(target_, t.trans_a, t.trans_b, t.m, t.n, t.k, t.alpha, o.a.data(), o.lda,
                o.b.data(), o.ldb, t.beta, c.data(), o.ldc);
    const std::string what = std::to_string(t.m) + "x" + std::to_string(t.n) + "x" +
                             std::to_string(t.k) + (t.trans_a ? " At" : "") +
                             (t.trans_b ? " Bt" : "");
    for (int64_t i = 0; i < t.m; ++i) {
      for (int64_t j = 0; j < o.ldc; ++j) {
        const float got = c[i * o.ldc + j];
        if (j >= t.n) {
          // Padding between rows is left as it was.
          ASSERT_EQ(FloatBits(got), FloatBits(o.c[i * o.ldc + j])) << what;
          continue;
        }
        double sum = 0.0, magnitude = 0.0;
        for (int64_t p = 0; p < t.k; ++p) {
          const double prod = static_cast<double>(o.A(t, i, p)) * o.B(t, p, j);
          sum += prod;
          magnitude += std::fabs(prod);
        }
        const double c0 = t.beta == 0.0f ? 0.0 : o.c[i * o.ldc + j];
        const double want = t.alpha * sum + t.beta * c0;
        const double bound = 2.0 * (t.k + 2) * std::ldexp(1.0, -24) *
                                 (std::fabs(t.alpha) * magnitude + std::fabs(t.beta * c0)) +
                             1e-30;
        ASSERT_NEAR(got, want, bound) << what << " at (" << i << ", " << j << ")";
      }
    }
  }
}

TEST_P(SgemmKernelTest, AnyTilingOfSharedPanelsGivesTheSameBits) {
  const SgemmPanelShape shape = PackedSgemmPanelShape(target_);
  for (const Case& t : {Case{100, 150, 600, false, true, 1.0f, 0.0f},
                        Case{61, 97, 300, true, false, 0.75f, 1.0f}}) {
    Operands o(t, 99);
    std::vector<float> packed_a(static_cast<size_t>(PackedSgemmASize(target_, t.m, t.k)));
    std::vector<float> packed_b(static_cast<size_t>(PackedSgemmBSize(target_, t.k, t.n)));
    const int64_t a_panels = (t.m + shape.rows - 1) / shape.rows;
    const int64_t b_panels = (t.n + shape.width - 1) / shape.width;
    // Packed in two tasks each, as the plans split them.
    PackSgemmA(target_, t.trans_a, o.a.data(), o.lda, t.m, t.k, 0, a_panels / 2, packed_a.data());
    PackSgemmA(target_, t.trans_a, o.a.data(), o.lda, t.m, t.k, a_panels / 2, a_panels,
               packed_a.data());
    PackSgemmB(target_, t.trans_b, o.b.data(), o.ldb, t.k, t.n, 0, b_panels / 2, packed_b.data());
    PackSgemmB(target_, t.trans_b, o.b.data(), o.ldb, t.k, t.n, b_panels / 2, b_panels,
               packed_b.data());

    std::vector<float> whole = o.c;
    PackedSgemm(target_, t.trans_a, t.trans_b, t.m, t.n, t.k, t.alpha, o.a.data(), o.lda,
                o.b.data(), o.ldb, t.beta, whole.data(), o.ldc);
    for (int64_t row_panels : {int64_t{1}, int64_t{2}, a_panels}) {
      for (int64_t col_panels : {int64_t{1}, b_panels}) {
        std::vector<float> tiled = o.c;
        const int64_t rs = row_panels * shape.rows, cs = col_panels * shape.width;
        for (int64_t i0 = 0; i0 < t.m; i0 += rs) {
          for (int64_t j0 = 0; j0 < t.n; j0 += cs) {
            SgemmOnPanels(target_, std::min(rs, t.m - i0), std::min(cs, t.n - j0), t.k,
                          packed_a.data(), t.m, i0, packed_b.data(), t.n, j0, t.alpha, t.beta,
                          tiled.data() + i0 * o.ldc + j0, o.ldc);
          }
        }
        ASSERT_EQ(0, std::memcmp(tiled.data(), whole.data(), whole.size() * sizeof(float)))
            << "tiles of " << rs << " x " << cs;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, SgemmKernelTest, ::testing::ValuesIn(FmaIsas()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SgemmKernelTest);

TEST(SgemmKernelTargets, EveryFmaTargetGivesTheSameBits) {
  const std::vector<std::string> isas = FmaIsas();
  if (isas.size() < 2) GTEST_SKIP() << "fewer than two targets with fused multiply-add here";
  const Case t{45, 77, 700, false, true, 1.0f, 1.0f};
  Operands o(t, 5);
  std::vector<float> first;
  for (const std::string& isa : isas) {
    ASSERT_TRUE(SetPlanningIsaCap(isa));
    std::vector<float> c = o.c;
    PackedSgemm(PlanningTarget(), t.trans_a, t.trans_b, t.m, t.n, t.k, t.alpha, o.a.data(), o.lda,
                o.b.data(), o.ldb, t.beta, c.data(), o.ldc);
    if (first.empty()) {
      first = c;
    } else {
      EXPECT_EQ(0, std::memcmp(first.data(), c.data(), c.size() * sizeof(float)))
          << isa << " differs from " << isas[0];
    }
  }
  SetPlanningIsaCap("");
}

}  // namespace
}  // namespace openaclnn::cpu
