// cpu::SmallGemm, the kernel of small FLOAT matmul tiles, against an independent reference: every
// output is the chain of fused multiply-adds over p in order (std::fma here), then scaled and
// added, so the kernel must match it bit for bit on every SIMD target (any vector width), with
// edges in every dim and every operand layout, and write nothing outside its m x n window.
#include "kernels/cpu/small_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/isa.h"

namespace openaclnn::cpu {
namespace {

struct Problem {
  int64_t m, n, k;
};

// Storage and steps of an operand view: plain rows (padded), transposed (a .t() view), or with
// both steps above one.
struct View {
  std::vector<float> data;
  int64_t row_step = 0, col_step = 0;
  float At(int64_t i, int64_t j) const { return data[i * row_step + j * col_step]; }
};

View MakeView(int64_t rows, int64_t cols, int layout, std::mt19937* rng) {
  View v;
  if (layout == 0) {
    v.row_step = cols + 3;
    v.col_step = 1;
  } else if (layout == 1) {
    v.row_step = 1;
    v.col_step = rows + 2;
  } else {
    v.row_step = 2 * cols + 5;
    v.col_step = 2;
  }
  v.data.resize(static_cast<size_t>(rows * v.row_step + cols * v.col_step + 1));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : v.data) x = u(*rng);
  return v;
}

TEST(SmallGemmTest, EveryOutputIsItsFmaChainOnEveryTarget) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const Problem problems[] = {{64, 64, 64}, {1, 1, 1},    {7, 13, 5},  {13, 37, 9},
                              {6, 16, 3},   {12, 64, 64}, {5, 80, 17}, {128, 128, 128},
                              {3, 100, 0},  {64, 64, 256}};
  int targets_run = 0;
  for (const Problem& pr : problems) {
    for (int a_layout = 0; a_layout < 3; ++a_layout) {
      for (int b_layout = 0; b_layout < 3; ++b_layout) {
        const View a = MakeView(pr.m, pr.k, a_layout, &rng);
        const View b = MakeView(pr.k, pr.n, b_layout, &rng);
        const int64_t ldc = pr.n + 4;
        std::vector<float> c0(static_cast<size_t>(pr.m * ldc + 1));
        for (float& x : c0) x = u(rng);
        for (const bool accumulate : {false, true}) {
          for (const float alpha : {1.0f, 0.5f}) {
            std::vector<float> want = c0;
            for (int64_t i = 0; i < pr.m; ++i) {
              for (int64_t j = 0; j < pr.n; ++j) {
                float sum = 0.0f;
                for (int64_t p = 0; p < pr.k; ++p) sum = std::fma(a.At(i, p), b.At(p, j), sum);
                const float scaled = alpha * sum;  // exact: alpha is a power of two
                want[i * ldc + j] = accumulate ? want[i * ldc + j] + scaled : scaled;
              }
            }
            const std::string name = "m " + std::to_string(pr.m) + " n " + std::to_string(pr.n) +
                                     " k " + std::to_string(pr.k) + " A layout " +
                                     std::to_string(a_layout) + " B layout " +
                                     std::to_string(b_layout) + (accumulate ? " +C" : "") +
                                     " alpha " + std::to_string(alpha);
            for (const std::string& isa : AvailableIsas()) {
              ASSERT_TRUE(SetPlanningIsaCap(isa));
              const KernelTarget target = PlanningTarget();
              std::vector<float> c = c0;
              SmallGemm(target, pr.m, pr.n, pr.k, alpha, {a.data.data(), a.row_step, a.col_step},
                        {b.data.data(), b.row_step, b.col_step}, accumulate, c.data(), ldc);
              ASSERT_EQ(std::memcmp(c.data(), want.data(), sizeof(float) * c.size()), 0)
                  << name << " on " << isa;
              ++targets_run;
            }
            ASSERT_TRUE(SetPlanningIsaCap(""));
          }
        }
      }
    }
  }
  EXPECT_GT(targets_run, 0);
}

TEST(SmallGemmTest, RunsWithFusedMultiplyAddAndPaysOnlyForSmallTiles) {
  // The plans choose the kernel only where it runs register-blocked (x86 from AVX2, Arm NEON; not
  // SSE4 and the scalar targets, which lack fused multiply-add, nor SVE, whose vectors have no
  // fixed size to keep in arrays of registers) and for tiles of at most 128 x 128 with reductions
  // of at most 256 (bench_gemm_providers).
  for (const std::string& isa : AvailableIsas()) {
    ASSERT_TRUE(SetPlanningIsaCap(isa));
    const bool blocked = isa == "avx512_bf16" || isa == "avx512" || isa == "avx2" || isa == "neon";
    EXPECT_EQ(SmallGemmRuns(PlanningTarget()), blocked) << isa;
  }
  ASSERT_TRUE(SetPlanningIsaCap(""));
  EXPECT_TRUE(SmallGemmPays(64, 64, 64));
  EXPECT_TRUE(SmallGemmPays(128, 128, 256));
  EXPECT_FALSE(SmallGemmPays(256, 64, 64));
  EXPECT_FALSE(SmallGemmPays(64, 64, 512));
}

}  // namespace
}  // namespace openaclnn::cpu
