// cpu::TileGemmBf16, the AMX kernel of small BFLOAT16 matmul tiles, and cpu::BlockedGemmBf16, the
// one of long reductions with a blocked B, against independent references: on crafted inputs whose
// products and sums are exact in fp32 it must give the exact result bit for bit (whatever its
// summation order), on random inputs the float64 sum within fp32 accumulation error, and in both
// cases write nothing outside its m x n window. Skipped where the CPU (or oneDNN's ISA cap) has no
// AMX-BF16.
#include "kernels/cpu/tile_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace openaclnn::cpu {
namespace {

uint16_t Bf16Of(float f) {  // f must be exactly representable
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<uint16_t>(u >> 16);
}

float FloatOf(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float f = 0;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Round to nearest even from float to bfloat16, written from the definition (finite values).
uint16_t RoundToBf16(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t low = u & 0xFFFFu;
  uint32_t high = u >> 16;
  if (low > 0x8000u || (low == 0x8000u && (high & 1u) != 0)) ++high;
  return static_cast<uint16_t>(high);
}

// Storage of an operand: rows `row_step` apart (plain, padded rows) or columns `col_step` apart
// (a transposed view, as attention's k^T and probs^T), elements from `draw`.
struct Operand {
  std::vector<uint16_t> data;
  StridedBf16 view;
  float At(int64_t i, int64_t j) const {
    return FloatOf(data[static_cast<size_t>(i * view.row_step + j * view.col_step)]);
  }
};

template <class Draw>
Operand MakeOperand(int64_t rows, int64_t cols, bool transposed, Draw draw) {
  Operand o;
  if (transposed) {
    o.view.row_step = 1;
    o.view.col_step = rows + 3;
  } else {
    o.view.row_step = cols + 5;
    o.view.col_step = 1;
  }
  o.data.resize(static_cast<size_t>(rows * o.view.row_step + cols * o.view.col_step));
  for (uint16_t& x : o.data) x = draw();
  o.view.data = o.data.data();
  return o;
}

struct Shape {
  int64_t m, n, k;
};

const Shape kShapes[] = {{64, 64, 64}, {2, 1, 1},     {5, 37, 70}, {33, 17, 31}, {64, 64, 256},
                         {16, 64, 32}, {31, 63, 255}, {2, 64, 1},  {64, 33, 96}, {48, 16, 33}};

// c16 (m rows ldc apart, then canaries) holds want(i, j) (exact in fp32) rounded once to bfloat16
// in its m x n window and the canary 0xABCD everywhere else.
template <class Want>
void ExpectBf16Window(const std::vector<uint16_t>& c16, int64_t m, int64_t n, int64_t ldc,
                      Want want, const std::string& name) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const uint16_t expected =
          j < n ? RoundToBf16(static_cast<float>(want(i, j))) : uint16_t{0xABCD};
      ASSERT_EQ(c16[static_cast<size_t>(i * ldc + j)], expected)
          << name << " BFLOAT16 out at " << i << ", " << j;
    }
  }
  for (size_t e = static_cast<size_t>(m * ldc); e < c16.size(); ++e) ASSERT_EQ(c16[e], 0xABCD);
}

class TileGemmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TileGemmRuns()) GTEST_SKIP() << "no AMX-BF16 tile unit on this CPU";
  }
};

// Small integers times powers of two: every product and partial sum is exact in fp32, so any
// summation order gives the float64 result.
TEST_F(TileGemmTest, ExactSumsComeOutExactInEveryLayout) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(-8, 8);
  auto draw = [&] { return Bf16Of(static_cast<float>(small(rng)) * 0.25f); };
  for (const Shape& s : kShapes) {
    ASSERT_TRUE(TileGemmPays(s.m, s.n, s.k, {nullptr, s.k + 5, 1}, {nullptr, s.n + 5, 1}));
    for (int layouts = 0; layouts < 4; ++layouts) {
      const bool a_transposed = (layouts & 1) != 0, b_transposed = (layouts & 2) != 0;
      const Operand a = MakeOperand(s.m, s.k, a_transposed, draw);
      const Operand b = MakeOperand(s.k, s.n, b_transposed, draw);
      const std::string name = "m " + std::to_string(s.m) + " n " + std::to_string(s.n) + " k " +
                               std::to_string(s.k) + (a_transposed ? " A^T" : " A") +
                               (b_transposed ? " B^T" : " B");
      std::vector<double> exact(static_cast<size_t>(s.m * s.n));
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < s.k; ++p) sum += double{a.At(i, p)} * b.At(p, j);
          exact[static_cast<size_t>(i * s.n + j)] = sum;
        }
      }
      // FLOAT out, plain and accumulated onto c's values (halves: exact too), then BFLOAT16 out;
      // the elements between the rows and after the last must keep their canaries.
      const int64_t ldc = s.n + 7;
      for (const bool accumulate : {false, true}) {
        std::vector<float> c(static_cast<size_t>(s.m * ldc + 9), -777.0f);
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) c[static_cast<size_t>(i * ldc + j)] = 0.5f * (i - j);
        }
        TileGemmBf16(s.m, s.n, s.k, a.view, b.view, accumulate, c.data(), ldc);
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            const float got = c[static_cast<size_t>(i * ldc + j)];
            if (j >= s.n) {
              ASSERT_EQ(got, -777.0f) << name << " wrote outside at " << i << ", " << j;
              continue;
            }
            const double want =
                exact[static_cast<size_t>(i * s.n + j)] + (accumulate ? 0.5 * (i - j) : 0.0);
            ASSERT_EQ(got, static_cast<float>(want))
                << name << (accumulate ? " +C" : "") << " at " << i << ", " << j;
          }
        }
        for (size_t e = static_cast<size_t>(s.m * ldc); e < c.size(); ++e) ASSERT_EQ(c[e], -777.0f);
      }
      std::vector<uint16_t> c16(static_cast<size_t>(s.m * ldc + 9), 0xABCD);
      TileGemmBf16To(s.m, s.n, s.k, a.view, b.view, c16.data(), ldc);
      ExpectBf16Window(
          c16, s.m, s.n, ldc,
          [&](int64_t i, int64_t j) { return exact[static_cast<size_t>(i * s.n + j)]; }, name);
    }
  }
}

// Sums below fp32's normal range (2^-130 = 2^-65 * 2^-65) come out as zero, FLOAT and BFLOAT16
// alike, as in oneDNN's AMX kernels: the tile unit flushes them (and TileGemmBf16To's rounding by
// VCVTNEPS2BF16, which would take them as zero too, relies on it); 2^-120 is kept.
TEST_F(TileGemmTest, SumsBelowTheNormalRangeAreZero) {
  const int64_t m = 32, n = 32, k = 32;
  for (const float scale : {0x1p-65f, 0x1p-60f}) {
    const Operand a = MakeOperand(m, k, false, [&] { return Bf16Of(scale); });
    // B's first row is `scale`, the rest zero: one nonzero term per output.
    std::vector<uint16_t> b(static_cast<size_t>(k * n), Bf16Of(0.0f));
    std::fill(b.begin(), b.begin() + n, Bf16Of(scale));
    const StridedBf16 b_view{b.data(), n, 1};
    const float want = scale == 0x1p-65f ? 0.0f : 0x1p-120f;
    std::vector<float> c(static_cast<size_t>(m * n), -1.0f);
    TileGemmBf16(m, n, k, a.view, b_view, false, c.data(), n);
    std::vector<uint16_t> c16(static_cast<size_t>(m * n), 0xABCD);
    TileGemmBf16To(m, n, k, a.view, b_view, c16.data(), n);
    for (int64_t e = 0; e < m * n; ++e) {
      ASSERT_EQ(c[static_cast<size_t>(e)], want) << "scale " << scale << " at " << e;
      ASSERT_EQ(c16[static_cast<size_t>(e)], RoundToBf16(want)) << "scale " << scale << " at " << e;
    }
  }
}

// Full-mantissa random values: each output within fp32 accumulation error of the float64 sum
// (k roundings of at most 2^-24 of the running sum of |products|, plus the 2^-9 of bfloat16
// for the rounded out).
TEST_F(TileGemmTest, RandomValuesWithinAccumulationError) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  auto draw = [&] { return RoundToBf16(u(rng)); };
  for (const Shape& s : kShapes) {
    for (int layouts = 0; layouts < 4; ++layouts) {
      const Operand a = MakeOperand(s.m, s.k, (layouts & 1) != 0, draw);
      const Operand b = MakeOperand(s.k, s.n, (layouts & 2) != 0, draw);
      std::vector<float> c(static_cast<size_t>(s.m * s.n));
      std::vector<uint16_t> c16(static_cast<size_t>(s.m * s.n));
      TileGemmBf16(s.m, s.n, s.k, a.view, b.view, false, c.data(), s.n);
      TileGemmBf16To(s.m, s.n, s.k, a.view, b.view, c16.data(), s.n);
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double sum = 0, magnitude = 0;
          for (int64_t p = 0; p < s.k; ++p) {
            const double product = double{a.At(i, p)} * b.At(p, j);
            sum += product;
            magnitude += std::fabs(product);
          }
          const double bound = static_cast<double>(s.k + 1) * magnitude * std::ldexp(1.0, -24);
          const size_t e = static_cast<size_t>(i * s.n + j);
          ASSERT_NEAR(c[e], sum, bound)
              << "m " << s.m << " n " << s.n << " k " << s.k << " at " << i << ", " << j;
          // The BFLOAT16 out is the FLOAT out rounded once.
          ASSERT_EQ(c16[e], RoundToBf16(c[e])) << "at " << i << ", " << j;
        }
      }
    }
  }
}

// B (k x n, element (p, j) from `value`) in PackBlockedB's bfloat16 form, written from its
// definition: column blocks of 64, each k rounded up to 32 rows, rows in interleaved pairs.
template <class Value>
std::vector<uint16_t> BlockedFromDefinition(int64_t k, int64_t n, Value value) {
  const int64_t depth = (k + 31) / 32 * 32, blocks = (n + 63) / 64;
  std::vector<uint16_t> blocked(static_cast<size_t>(blocks * depth * 64), 0);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < n; ++j) {
      blocked[static_cast<size_t>((j / 64) * depth * 64 + (p / 2) * 128 + (j % 64) * 2 + p % 2)] =
          value(p, j);
    }
  }
  return blocked;
}

// Reductions across several depth chunks and none, off the chunk and depth steps; rows across
// two groups of sums (1000 columns: 256 rows a group), rows and columns off the 32 x 32 blocks
// (and, for a column-major A, off its 16-row halves).
const Shape kBlockedShapes[] = {{33, 70, 2100}, {300, 1000, 64}, {5, 130, 300},
                                {64, 64, 32},   {40, 200, 4100}, {1, 1, 1}};

TEST_F(TileGemmTest, BlockedGemmExactInEveryOutputForm) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(-8, 8);
  auto draw = [&] { return Bf16Of(static_cast<float>(small(rng)) * 0.25f); };
  for (const Shape& s : kBlockedShapes) {
    const std::string name =
        "m " + std::to_string(s.m) + " n " + std::to_string(s.n) + " k " + std::to_string(s.k);
    // A with padded rows; B one column block wider, the product's columns from its second block.
    const int64_t lda = s.k + 3;
    std::vector<uint16_t> a(static_cast<size_t>(s.m * lda));
    for (uint16_t& x : a) x = draw();
    std::vector<uint16_t> b_values(static_cast<size_t>(s.k * (s.n + 64)));
    for (uint16_t& x : b_values) x = draw();
    const std::vector<uint16_t> blocked = BlockedFromDefinition(
        s.k, s.n + 64,
        [&](int64_t p, int64_t j) { return b_values[static_cast<size_t>(p * (s.n + 64) + j)]; });
    const uint16_t* b = blocked.data() + ((s.k + 31) / 32 * 32) * 64;
    std::vector<uint16_t> bias16(static_cast<size_t>(s.n));
    std::vector<float> bias32(static_cast<size_t>(s.n));
    for (int64_t j = 0; j < s.n; ++j) {
      bias16[static_cast<size_t>(j)] = draw();
      bias32[static_cast<size_t>(j)] = FloatOf(draw());
    }
    std::vector<double> exact(static_cast<size_t>(s.m * s.n));
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < s.k; ++p) {
          sum += double{FloatOf(a[static_cast<size_t>(i * lda + p)])} *
                 FloatOf(b_values[static_cast<size_t>(p * (s.n + 64) + 64 + j)]);
        }
        exact[static_cast<size_t>(i * s.n + j)] = sum;
      }
    }
    // The same A also stored column-major (a weight gradient's x^T), rows m + 3 apart.
    std::vector<uint16_t> a_columns(static_cast<size_t>((s.m + 3) * s.k));
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t p = 0; p < s.k; ++p) {
        a_columns[static_cast<size_t>(i + p * (s.m + 3))] = a[static_cast<size_t>(i * lda + p)];
      }
    }
    const int64_t ldc = s.n + 7;
    for (const bool trans_a : {false, true}) {
      const uint16_t* a_at = trans_a ? a_columns.data() : a.data();
      const int64_t a_ld = trans_a ? s.m + 3 : lda;
      const std::string what = name + (trans_a ? " A^T" : "");
      // FLOAT out: plain, plus a FLOAT bias row, accumulated onto c's values (with a BFLOAT16 bias
      // row); every other element keeps its canary.
      for (int form = 0; form < 3; ++form) {
        std::vector<float> c(static_cast<size_t>(s.m * ldc + 9), -777.0f);
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) c[static_cast<size_t>(i * ldc + j)] = 0.5f * (i - j);
        }
        GemmOutput out;
        out.c = c.data();
        out.ldc = ldc;
        if (form == 1) out.bias = bias32.data();
        if (form == 2) {
          out.bias = bias16.data();
          out.bias_type = GemmElement::kBf16;
          out.accumulate = true;
        }
        BlockedGemmBf16(s.m, s.n, s.k, a_at, a_ld, trans_a, b, out);
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            const float got = c[static_cast<size_t>(i * ldc + j)];
            if (j >= s.n) {
              ASSERT_EQ(got, -777.0f) << what << " form " << form << " wrote at " << i << ", " << j;
              continue;
            }
            double want = exact[static_cast<size_t>(i * s.n + j)];
            if (form == 1) want += bias32[static_cast<size_t>(j)];
            if (form == 2) want += FloatOf(bias16[static_cast<size_t>(j)]) + 0.5 * (i - j);
            ASSERT_EQ(got, static_cast<float>(want))
                << what << " form " << form << " at " << i << ", " << j;
          }
        }
        for (size_t e = static_cast<size_t>(s.m * ldc); e < c.size(); ++e) ASSERT_EQ(c[e], -777.0f);
      }
      // BFLOAT16 out with a BFLOAT16 bias: the exact sum plus the bias, rounded once.
      std::vector<uint16_t> c16(static_cast<size_t>(s.m * ldc + 9), 0xABCD);
      GemmOutput out;
      out.c = c16.data();
      out.ldc = ldc;
      out.c_type = GemmElement::kBf16;
      out.bias = bias16.data();
      out.bias_type = GemmElement::kBf16;
      BlockedGemmBf16(s.m, s.n, s.k, a_at, a_ld, trans_a, b, out);
      ExpectBf16Window(
          c16, s.m, s.n, ldc,
          [&](int64_t i, int64_t j) {
            return exact[static_cast<size_t>(i * s.n + j)] +
                   FloatOf(bias16[static_cast<size_t>(j)]);
          },
          what);
    }
  }
}

// Full-mantissa random values over a long reduction: within fp32 accumulation error of the
// float64 sum, and the BFLOAT16 out the FLOAT out rounded once.
TEST_F(TileGemmTest, BlockedGemmRandomValuesWithinAccumulationError) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const int64_t m = 45, n = 100, k = 2500;
  std::vector<uint16_t> a(static_cast<size_t>(m * k)), b_values(static_cast<size_t>(k * n));
  for (uint16_t& x : a) x = RoundToBf16(u(rng));
  for (uint16_t& x : b_values) x = RoundToBf16(u(rng));
  const std::vector<uint16_t> blocked = BlockedFromDefinition(
      k, n, [&](int64_t p, int64_t j) { return b_values[static_cast<size_t>(p * n + j)]; });
  std::vector<float> c(static_cast<size_t>(m * n));
  std::vector<uint16_t> c16(static_cast<size_t>(m * n));
  GemmOutput out;
  out.c = c.data();
  out.ldc = n;
  BlockedGemmBf16(m, n, k, a.data(), k, false, blocked.data(), out);
  out.c = c16.data();
  out.c_type = GemmElement::kBf16;
  BlockedGemmBf16(m, n, k, a.data(), k, false, blocked.data(), out);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double product = double{FloatOf(a[static_cast<size_t>(i * k + p)])} *
                               FloatOf(b_values[static_cast<size_t>(p * n + j)]);
        sum += product;
        magnitude += std::fabs(product);
      }
      const double bound = static_cast<double>(k + 1) * magnitude * std::ldexp(1.0, -24);
      const size_t e = static_cast<size_t>(i * n + j);
      ASSERT_NEAR(c[e], sum, bound) << "at " << i << ", " << j;
      ASSERT_EQ(c16[e], RoundToBf16(c[e])) << "at " << i << ", " << j;
    }
  }
}

}  // namespace
}  // namespace openaclnn::cpu
