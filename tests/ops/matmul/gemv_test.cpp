// cpu::GemvRowMajor, the matrix-vector kernel of one-row products, against an independent
// reference of the accumulation order gemv.h documents: row-major B sums each output's products
// in order of p; a transposed B keeps 16 (FLOAT) or 32 (BFLOAT16) partial sums, partial i taking
// p = i, i + P, ... in order, added pairwise at the end. The kernel must match it bit for bit on
// every SIMD target, for reductions shorter and longer than P and with a tail, and write nothing
// past the n outputs.
#include "kernels/cpu/gemv.h"

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

float Bf16ToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f = 0.0f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t FloatToBf16Truncated(float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof f);
  return static_cast<uint16_t>(bits >> 16);
}

// A product rounded to fp32 and then added: kept apart so that the compiler cannot contract them
// into one fused multiply-add (the unit tests do not build with -ffp-contract=off).
float AddProduct(float sum, float a, float b) {
  volatile float product = a * b;
  return sum + product;
}

// The documented order for one output j.
float Reference(bool bf16, bool trans_b, int64_t k, const std::vector<float>& x,
                const std::vector<float>& b, int64_t ldb, int64_t j) {
  const auto at = [&](int64_t p) { return trans_b ? b[j * ldb + p] : b[p * ldb + j]; };
  if (!trans_b) {
    float sum = 0.0f;
    for (int64_t p = 0; p < k; ++p) sum = AddProduct(sum, x[p], at(p));
    return sum;
  }
  const int64_t partials = bf16 ? 32 : 16;
  std::vector<float> partial(static_cast<size_t>(partials), 0.0f);
  for (int64_t p = 0; p < k; ++p) {
    float& s = partial[static_cast<size_t>(p % partials)];
    // BFLOAT16 products are exact in fp32: a fused multiply-add gives the same bits as the
    // rounded product plus the add.
    s = bf16 ? std::fma(x[p], at(p), s) : AddProduct(s, x[p], at(p));
  }
  for (int64_t half = partials / 2; half >= 1; half /= 2) {
    for (int64_t i = 0; i < half; ++i) partial[i] = partial[i] + partial[i + half];
  }
  return partial[0];
}

TEST(GemvTest, EveryOutputFollowsTheDocumentedOrderOnEveryTarget) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int64_t ks[] = {1, 15, 16, 31, 32, 33, 100, 1024};
  const int64_t ns[] = {1, 3, 4, 5, 70};
  int targets_run = 0;
  for (const bool bf16 : {false, true}) {
    for (const bool trans_b : {false, true}) {
      for (const int64_t k : ks) {
        for (const int64_t n : ns) {
          const int64_t ldb = (trans_b ? k : n) + 3;
          const int64_t b_count = (trans_b ? n : k) * ldb;
          std::vector<float> x(static_cast<size_t>(k)), b(static_cast<size_t>(b_count));
          std::vector<uint16_t> x16(x.size()), b16(b.size());
          for (size_t i = 0; i < x.size(); ++i) {
            x16[i] = FloatToBf16Truncated(u(rng));
            x[i] = bf16 ? Bf16ToFloat(x16[i]) : u(rng);
          }
          for (size_t i = 0; i < b.size(); ++i) {
            b16[i] = FloatToBf16Truncated(u(rng));
            b[i] = bf16 ? Bf16ToFloat(b16[i]) : u(rng);
          }
          std::vector<float> y0(static_cast<size_t>(n + 2));
          for (float& v : y0) v = u(rng);
          const void* xp = bf16 ? static_cast<const void*>(x16.data()) : x.data();
          const void* bp = bf16 ? static_cast<const void*>(b16.data()) : b.data();
          for (const bool accumulate : {false, true}) {
            const float alpha = accumulate ? 0.5f : 1.0f;  // powers of two: exact scaling
            std::vector<float> want = y0;
            for (int64_t j = 0; j < n; ++j) {
              const float v = alpha * Reference(bf16, trans_b, k, x, b, ldb, j);
              want[j] = accumulate ? want[j] + v : v;
            }
            const std::string name = std::string(bf16 ? "BFLOAT16" : "FLOAT") +
                                     (trans_b ? " B^T" : " B") + " k " + std::to_string(k) + " n " +
                                     std::to_string(n) + (accumulate ? " +y" : "");
            for (const std::string& isa : AvailableIsas()) {
              ASSERT_TRUE(SetPlanningIsaCap(isa));
              std::vector<float> y = y0;
              GemvRowMajor(PlanningTarget(), bf16 ? ElemType::kBFloat16 : ElemType::kFloat32,
                           trans_b, n, k, alpha, xp, bp, ldb, accumulate, y.data());
              ASSERT_EQ(std::memcmp(y.data(), want.data(), sizeof(float) * y.size()), 0)
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

}  // namespace
}  // namespace openaclnn::cpu
