// Numerics of the matmul family: cubeMathType on crafted values with exact results, random
// problems of every operator against the float64 golden model with the emulation's rounding,
// bitwise equality for 1 and N threads, negative and zero input strides, an output whose
// elements alias, empty dims, and scalars of other dtypes.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "matmul_test_util.h"
#include "util/precision.h"

namespace openaclnn::test::matmul {
namespace {

// HFLOAT32: 11 stored mantissa bits, rounded half away from zero (written independently of the
// library from frexp/ldexp).
double RoundHf32(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  int e = 0;
  std::frexp(x, &e);
  return std::ldexp(std::round(std::ldexp(x, 12 - e)), e - 12);
}

// FLOAT16: 11 significant bits, ties to even, subnormals below 2^-14, infinity above 65504.
double RoundHalf(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  int e = 0;
  std::frexp(x, &e);
  const int p = std::max(e, -13);
  const double q = std::ldexp(std::nearbyint(std::ldexp(x, 11 - p)), p - 11);
  if (std::fabs(q) > 65504.0) return std::copysign(std::numeric_limits<double>::infinity(), q);
  return q;
}

CallResult MatmulCall(const DeviceTensor& a, const DeviceTensor& b, const DeviceTensor& out,
                      int8_t cube, aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnMatmulGetWorkspaceSize(a.get(), b.get(), out.get(), cube, ws, ex);
      },
      aclnnMatmul, stream);
}

CallResult AddmmCall(const DeviceTensor& self, const DeviceTensor& a, const DeviceTensor& b,
                     const Scalar& beta, const Scalar& alpha, const DeviceTensor& out, int8_t cube,
                     aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnAddmmGetWorkspaceSize(self.get(), a.get(), b.get(), beta.get(), alpha.get(),
                                          out.get(), cube, ws, ex);
      },
      aclnnAddmm, stream);
}

CallResult BaddbmmCall(const DeviceTensor& self, const DeviceTensor& a, const DeviceTensor& b,
                       const Scalar& beta, const Scalar& alpha, const DeviceTensor& out,
                       int8_t cube, aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnBaddbmmGetWorkspaceSize(self.get(), a.get(), b.get(), beta.get(), alpha.get(),
                                            out.get(), cube, ws, ex);
      },
      aclnnBaddbmm, stream);
}

// out = a @ b for crafted 1 x k and k x 1 (or 1-D) operands: the single result value.
float CraftedDot(aclDataType da, const std::vector<float>& av, const std::vector<int64_t>& a_dims,
                 aclDataType db, const std::vector<float>& bv, const std::vector<int64_t>& b_dims,
                 aclDataType dout, int8_t cube, aclrtStream stream) {
  DeviceTensor a(a_dims, da), b(b_dims, db);
  a.Fill(av);
  b.Fill(bv);
  const std::vector<int64_t> od = MatmulShape(a_dims, b_dims);
  DeviceTensor out(od, dout, TensorLayout().WithNanCanary());
  const CallResult r = MatmulCall(a, b, out, cube, stream);
  EXPECT_EQ(r.phase1, 0) << r.message;
  EXPECT_EQ(r.phase2, 0) << r.message;
  EXPECT_EQ(out.DamagedCanaries(), 0);
  return out.Get(0);
}

void CheckCraftedCubeMathTypes(aclrtStream stream_) {
  const float tiny = 1.0f + std::ldexp(1.0f, -20);  // lost by HF32 and FLOAT16
  const float hf32 = 1.0f + std::ldexp(1.0f, -11);  // kept by HF32, a FLOAT16 tie (to 1)
  const std::vector<int64_t> row = {1, 2}, col = {2, 1};
  for (int8_t cube : {int8_t{0}, int8_t{4}}) {
    EXPECT_EQ(
        CraftedDot(ACL_FLOAT, {tiny, 0}, row, ACL_FLOAT, {1, 1}, col, ACL_FLOAT, cube, stream_),
        tiny)
        << "KEEP_DTYPE / USE_FP32_ADD keep FLOAT inputs, cube " << int{cube};
    EXPECT_EQ(
        CraftedDot(ACL_FLOAT, {1024, 1025}, row, ACL_FLOAT, {1, 1}, col, ACL_FLOAT, cube, stream_),
        2049.0f);
  }
  for (int8_t cube : {int8_t{1}, int8_t{3}}) {
    EXPECT_EQ(
        CraftedDot(ACL_FLOAT, {tiny, 0}, row, ACL_FLOAT, {1, 1}, col, ACL_FLOAT, cube, stream_),
        1.0f)
        << "HF32 drops 2^-20, cube " << int{cube};
    EXPECT_EQ(
        CraftedDot(ACL_FLOAT, {hf32, 0}, row, ACL_FLOAT, {1, 1}, col, ACL_FLOAT, cube, stream_),
        hf32)
        << "HF32 keeps 11 mantissa bits, cube " << int{cube};
    // FLOAT16 @ FLOAT promotes to FLOAT: the FLOAT operand is rounded.
    EXPECT_EQ(
        CraftedDot(ACL_FLOAT16, {1, 0}, row, ACL_FLOAT, {tiny, 1}, col, ACL_FLOAT, cube, stream_),
        1.0f);
    // FLOAT16 and BFLOAT16 compute types: HF32 does not apply (and changes nothing anyway);
    // 1-D @ 1-D ignores cubeMathType.
    EXPECT_EQ(
        CraftedDot(ACL_FLOAT, {tiny, 0}, {2}, ACL_FLOAT, {1, 1}, {2}, ACL_FLOAT, cube, stream_),
        tiny);
  }
  // USE_FP16: inputs and the result rounded to FLOAT16, then cast to out.
  EXPECT_EQ(CraftedDot(ACL_FLOAT, {hf32, 0}, row, ACL_FLOAT, {1, 1}, col, ACL_FLOAT, 2, stream_),
            1.0f);
  EXPECT_EQ(CraftedDot(ACL_FLOAT, {1024, 1025}, row, ACL_FLOAT, {1, 1}, col, ACL_FLOAT, 2, stream_),
            2048.0f)
      << "the sum 2049 rounds to FLOAT16 (tie to even)";
  EXPECT_EQ(
      CraftedDot(ACL_FLOAT, {60000, 60000}, row, ACL_FLOAT, {1, 1}, col, ACL_FLOAT, 2, stream_),
      std::numeric_limits<float>::infinity())
      << "120000 overflows FLOAT16";
  EXPECT_EQ(CraftedDot(ACL_FLOAT, {tiny, 0}, {2}, ACL_FLOAT, {1, 1}, {2}, ACL_FLOAT, 2, stream_),
            tiny)
      << "a 1-D dot ignores USE_FP16";
  // USE_FP16 does not apply to BFLOAT16 (131072 would overflow FLOAT16).
  EXPECT_EQ(CraftedDot(ACL_BF16, {131072, 0}, row, ACL_BF16, {1, 1}, col, ACL_BF16, 2, stream_),
            131072.0f);
  // Under USE_FP16 self is rounded to FLOAT16 too; under HF32 it is not.
  for (int8_t cube : {int8_t{1}, int8_t{2}}) {
    DeviceTensor self({1, 1}, ACL_FLOAT), a({1, 2}, ACL_FLOAT), b({2, 1}, ACL_FLOAT);
    DeviceTensor out({1, 1}, ACL_FLOAT, TensorLayout().WithNanCanary());
    self.Fill({tiny});
    a.Fill({0, 0});
    b.Fill({1, 1});
    Scalar one(1.0f);
    const CallResult r = AddmmCall(self, a, b, one, one, out, cube, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    EXPECT_EQ(out.Get(0), cube == 2 ? 1.0f : tiny) << int{cube};
  }
}

TEST_F(MatmulTest, CubeMathTypeRandomAgainstGolden) {
  std::mt19937 rng(21);
  const std::vector<int64_t> ad = {2, 1, 17, 40}, bd = {3, 40, 23};
  const std::vector<int64_t> od = MatmulShape(ad, bd);
  for (int8_t cube = 0; cube <= 4; ++cube) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      // BFLOAT16 pairs only with itself; FLOAT16 @ FLOAT computes in FLOAT.
      DeviceTensor a(ad, dt, RandomLayout(4, &rng));
      DeviceTensor b(bd, dt == ACL_BF16 ? ACL_BF16 : ACL_FLOAT,
                     dt == ACL_BF16 ? Transposed(3) : RandomLayout(3, &rng));
      const aclDataType dout = cube == 2 ? ACL_FLOAT : dt;
      DeviceTensor out(od, dout, TensorLayout::Padded(1).WithNanCanary());
      a.FillUniform(&rng, -2.0f, 2.0f);
      b.FillUniform(&rng, -2.0f, 2.0f);
      const bool float_compute = dt != ACL_BF16;  // FLOAT16 @ FLOAT promotes to FLOAT
      std::function<double(double)> round;
      if ((cube == 1 || cube == 3) && float_compute) round = RoundHf32;
      if (cube == 2 && float_compute) round = RoundHalf;
      const CallResult r = MatmulCall(a, b, out, cube, stream_);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      const std::string what = "cube " + std::to_string(cube) + " " + DTypeName(dt);
      const std::vector<double> golden = MatmulGolden(Values(a), ad, Values(b), bd, round);
      if (cube == 2 && float_compute) {
        // The result went through FLOAT16: FLOAT16's tolerance, and every value a FLOAT16 one.
        const std::vector<float> actual = out.Values();
        const std::string failure = CheckMixedTolerance(ACL_FLOAT16, actual.data(), golden.data(),
                                                        static_cast<int64_t>(golden.size()), what);
        EXPECT_TRUE(failure.empty()) << failure;
        for (float v : actual) ASSERT_EQ(RoundHalf(v), v) << what;
        EXPECT_EQ(out.DamagedCanaries(), 0);
      } else {
        ExpectMatches(out, golden, what);
      }
    }
  }
}

void CheckRandomProblems(aclrtStream stream_, int trials) {
  // Random ranks 1..4, extents 0..6 with broadcast 1s, random layouts and dtypes.
  std::mt19937 rng(22);
  auto extent = [&](bool allow_zero) {
    const int v = static_cast<int>(rng() % 8);
    return static_cast<int64_t>(v == 7 ? (allow_zero ? 0 : 1) : v == 6 ? 1 : v + 1);
  };
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (int trial = 0; trial < trials; ++trial) {
    const int ra = 1 + static_cast<int>(rng() % 4), rb = 1 + static_cast<int>(rng() % 4);
    const int64_t k = extent(true);
    std::vector<int64_t> ad, bd;
    const int batch_rank = std::max(ra, rb) - 2;
    std::vector<int64_t> batch;
    batch.reserve(static_cast<size_t>(std::max(batch_rank, 0)));
    for (int d = 0; d < batch_rank; ++d) batch.push_back(extent(true));
    for (int d = 0; d < ra - 2; ++d) {
      ad.push_back(rng() % 3 == 0 ? 1 : batch[batch_rank - (ra - 2) + d]);
    }
    if (ra >= 2) ad.push_back(extent(true));
    ad.push_back(k);
    for (int d = 0; d < rb - 2; ++d) {
      bd.push_back(rng() % 3 == 0 ? 1 : batch[batch_rank - (rb - 2) + d]);
    }
    bd.push_back(k);
    if (rb >= 2) bd.push_back(extent(true));
    const aclDataType dt = dtypes[rng() % 3];
    const std::vector<int64_t> od = MatmulShape(ad, bd);
    DeviceTensor a(ad, dt, RandomLayout(ra, &rng)), b(bd, dt, RandomLayout(rb, &rng));
    DeviceTensor out(od, dt, RandomLayout(static_cast<int>(od.size()), &rng).WithNanCanary());
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    const std::string what = "trial " + std::to_string(trial) + " " + DimsString(ad) + " @ " +
                             DimsString(bd) + " " + DTypeName(dt);
    const CallResult r = MatmulCall(a, b, out, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << what << ": " << r.message;
    ASSERT_EQ(r.phase2, 0) << what << ": " << r.message;
    ExpectMatches(out, MatmulGolden(Values(a), ad, Values(b), bd), what);
  }
}

TEST_F(MatmulTest, CubeMathTypeOnCraftedValues) { CheckCraftedCubeMathTypes(stream_); }

TEST_F(MatmulTest, RandomProblemsOfEveryShapeKind) { CheckRandomProblems(stream_, 150); }

// The float64 reference plan (the list's last implementation) passes the same checks.
TEST_F(MatmulTest, ReferenceImplementationPassesTheSameChecks) {
  setenv("OPENACLNN_FORCE_IMPL", "matmul=reference", 1);
  CheckCraftedCubeMathTypes(stream_);
  CheckRandomProblems(stream_, 60);
  unsetenv("OPENACLNN_FORCE_IMPL");
}

// The bytes of every output of a fixed set of problems (packed and direct operands, self, 16-bit
// outputs, several tiles) for the current thread count.
std::vector<std::vector<uint8_t>> RunDeterminismProblems(aclrtStream stream) {
  std::vector<std::vector<uint8_t>> results;
  std::mt19937 rng(23);
  {
    DeviceTensor a({3, 130, 300}, ACL_FLOAT), b({300, 520}, ACL_FLOAT, Transposed(2));
    DeviceTensor out({3, 130, 520}, ACL_FLOAT);
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    EXPECT_EQ(MatmulCall(a, b, out, 0, stream).phase2, 0);
    results.push_back(out.Bytes());
  }
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    DeviceTensor self({1, 270}, dt), a({4, 300, 70}, dt, TensorLayout::Scrambled(3));
    DeviceTensor b({4, 70, 270}, dt), out({4, 300, 270}, dt, TensorLayout::Padded(1));
    self.FillUniform(&rng, -1.0f, 1.0f);
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    // alpha 1: BFLOAT16 runs the BF16 GEMM where the CPU has native BF16 dot products.
    Scalar beta(0.5f), alpha(1.0f);
    EXPECT_EQ(BaddbmmCall(self, a, b, beta, alpha, out, 0, stream).phase2, 0);
    results.push_back(out.Bytes());
  }
  {
    DeviceTensor self({600}, ACL_FLOAT), a({600, 257}, ACL_FLOAT, TensorLayout::Strided(2));
    DeviceTensor b({257, 600}, ACL_FLOAT), out({600, 600}, ACL_FLOAT16);
    self.FillUniform(&rng, -1.0f, 1.0f);
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    Scalar one(1.0f);
    EXPECT_EQ(AddmmCall(self, a, b, one, one, out, 2, stream).phase2, 0);
    results.push_back(out.Bytes());
  }
  {
    // BFLOAT16 bias row + x @ w.t() into BFLOAT16, several tiles: where the CPU has native BF16
    // products the GEMM adds the bias and rounds into out itself.
    DeviceTensor self({600}, ACL_BF16), a({600, 257}, ACL_BF16);
    DeviceTensor b({257, 600}, ACL_BF16, Transposed(2)), out({600, 600}, ACL_BF16);
    self.FillUniform(&rng, -1.0f, 1.0f);
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    Scalar one(1.0f);
    EXPECT_EQ(AddmmCall(self, a, b, one, one, out, 0, stream).phase2, 0);
    results.push_back(out.Bytes());
  }
  return results;
}

TEST_F(MatmulTest, BitwiseEqualForOneAndManyThreads) {
  cpu::SetNumThreads(1);
  const auto one = RunDeterminismProblems(stream_);
  for (int threads : {2, 3, 8}) {
    cpu::SetNumThreads(threads);
    const auto many = RunDeterminismProblems(stream_);
    ASSERT_EQ(one.size(), many.size());
    for (size_t i = 0; i < one.size(); ++i) {
      EXPECT_TRUE(one[i] == many[i])
          << "problem " << i << " differs with " << threads << " threads";
    }
  }
}

TEST_F(MatmulTest, NegativeAndZeroInputStrides) {
  std::mt19937 rng(24);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    // a: rows reversed (negative row stride); b: an expanded column (stride 0 along n), and a
    // batch broadcast by a stride-0 dim.
    DeviceTensor a({5, 6}, dt, TensorLayout::Explicit({-6, 1}, 24));
    DeviceTensor b({6, 4}, dt, TensorLayout::Explicit({1, 0}));
    DeviceTensor out({5, 4}, dt, TensorLayout().WithNanCanary());
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    CallResult r = MatmulCall(a, b, out, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(out, MatmulGolden(Values(a), {5, 6}, Values(b), {6, 4}),
                  std::string("negative/zero strides ") + DTypeName(dt));

    DeviceTensor x({3, 4, 5}, dt, TensorLayout::Explicit({0, 5, 1}));
    DeviceTensor y({3, 5, 2}, dt, TensorLayout::Explicit({-10, 2, 1}, 20));
    DeviceTensor o({3, 4, 2}, dt, TensorLayout().WithNanCanary());
    x.FillUniform(&rng, -1.0f, 1.0f);
    y.FillUniform(&rng, -1.0f, 1.0f);
    r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnBatchMatMulGetWorkspaceSize(x.get(), y.get(), o.get(), 0, ws, ex);
        },
        aclnnBatchMatMul, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(o, MatmulGolden(Values(x), {3, 4, 5}, Values(y), {3, 5, 2}),
                  std::string("expanded batch ") + DTypeName(dt));
  }
}

TEST_F(MatmulTest, AliasedOutputElementsHoldTheLastWrite) {
  // out's rows alias (row stride 0): elements are written in row-major order, so every row holds
  // the last row's result, whatever the thread count.
  std::mt19937 rng(25);
  for (int threads : {1, 4}) {
    cpu::SetNumThreads(threads);
    DeviceTensor a({3, 7}, ACL_FLOAT), b({7, 5}, ACL_FLOAT);
    DeviceTensor out({3, 5}, ACL_FLOAT, TensorLayout::Explicit({0, 1}).WithNanCanary());
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    const CallResult r = MatmulCall(a, b, out, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    const std::vector<double> full = MatmulGolden(Values(a), {3, 7}, Values(b), {7, 5});
    std::vector<double> golden(15);
    for (int i = 0; i < 15; ++i) golden[i] = full[10 + i % 5];
    ExpectMatches(out, golden, "aliased rows, threads " + std::to_string(threads));
  }
}

TEST_F(MatmulTest, EmptyDimsOfTheAddForms) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    // k == 0 in a batch: out = beta * self, self broadcast.
    DeviceTensor self({3, 1}, dt), a({2, 3, 0}, dt), b({2, 0, 4}, dt);
    DeviceTensor out({2, 3, 4}, dt, TensorLayout::Padded(1).WithNanCanary());
    self.Fill({1, -2, 3});
    Scalar beta(0.5f), alpha(7.0f);
    CallResult r = BaddbmmCall(self, a, b, beta, alpha, out, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    std::vector<double> golden(24);
    for (int i = 0; i < 24; ++i) golden[i] = 0.5 * (i / 4 % 3 == 0 ? 1 : i / 4 % 3 == 1 ? -2 : 3);
    ExpectMatches(out, golden, std::string("baddbmm k == 0 ") + DTypeName(dt));

    // m == 0 and a batch of 0: nothing written.
    DeviceTensor s0({4}, dt), a0({0, 3}, dt), b0({3, 4}, dt), o0({0, 4}, dt);
    r = AddmmCall(s0, a0, b0, beta, alpha, o0, 0, stream_);
    EXPECT_EQ(r.phase1, 0) << r.message;
    EXPECT_EQ(r.phase2, 0) << r.message;
    EXPECT_TRUE(o0.Untouched());
    DeviceTensor s1({0, 3, 4}, dt), a1({0, 3, 2}, dt), b1({0, 2, 4}, dt);
    Scalar one(1.0f);
    r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnInplaceBaddbmmGetWorkspaceSize(s1.get(), a1.get(), b1.get(), one.get(),
                                                     one.get(), 0, ws, ex);
        },
        aclnnInplaceBaddbmm, stream_);
    EXPECT_EQ(r.phase1, 0) << r.message;
    EXPECT_EQ(r.phase2, 0) << r.message;
    EXPECT_TRUE(s1.Untouched());

    // Inplace with k == 0: selfRef scaled by beta.
    DeviceTensor s2({2, 2}, dt, Transposed(2)), a2({2, 0}, dt), b2({0, 2}, dt);
    s2.Fill({1, 2, 3, 4});
    r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnInplaceAddmmGetWorkspaceSize(s2.get(), a2.get(), b2.get(), beta.get(),
                                                   alpha.get(), 0, ws, ex);
        },
        aclnnInplaceAddmm, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(s2, {0.5, 1, 1.5, 2}, std::string("inplace addmm k == 0 ") + DTypeName(dt));
  }
}

TEST_F(MatmulTest, ScalarsOfOtherDtypes) {
  std::mt19937 rng(26);
  DeviceTensor self({4, 3}, ACL_FLOAT), a({4, 5}, ACL_FLOAT), b({5, 3}, ACL_FLOAT);
  DeviceTensor out({4, 3}, ACL_FLOAT, TensorLayout().WithNanCanary());
  self.FillUniform(&rng, -1.0f, 1.0f);
  a.FillUniform(&rng, -1.0f, 1.0f);
  b.FillUniform(&rng, -1.0f, 1.0f);
  const double beta_value = 0.25;
  const int32_t alpha_value = -3;
  Scalar beta(&beta_value, ACL_DOUBLE), alpha(&alpha_value, ACL_INT32);
  const CallResult r = AddmmCall(self, a, b, beta, alpha, out, 0, stream_);
  ASSERT_EQ(r.phase1, 0) << r.message;
  ASSERT_EQ(r.phase2, 0) << r.message;
  ExpectMatches(out,
                AddScaled(MatmulGolden(Values(a), {4, 5}, Values(b), {5, 3}), {4, 3}, Values(self),
                          {4, 3}, 0.25, -3.0),
                "double beta, int32 alpha");
}

// One-row products (a decode step's x @ W) run the matrix-vector kernel: both layouts of W
// (row-major [K, N] and a weight.t() view of [N, K]), K and N off the vector and row-block sizes,
// Addmm's bias and alpha; values against the golden model, and the same bits on every SIMD
// target and thread count.
// BFLOAT16 per-head products as attention makes them (head views of token rows, k^T and probs^T
// read transposed, small odd shapes, Baddbmm's self added) on every planning ISA, the AMX tile
// kernel where the CPU has one, against the float64 golden model, with the same bits for 1 and 3
// threads.
TEST_F(MatmulTest, Bf16PerHeadProductsMatchGolden) {
  struct Case {
    int64_t batch, m, n, k;
    bool head_views, a_transposed, b_transposed;
  };
  const Case cases[] = {
      {64, 64, 64, 64, true, false, true},   {64, 64, 64, 64, true, false, false},
      {64, 64, 64, 64, true, true, false},   {8, 64, 64, 64, false, false, true},
      {3, 37, 45, 70, false, true, true},    {3, 37, 45, 70, true, false, false},
      {2, 64, 64, 256, false, false, false}, {5, 2, 1, 1, false, true, false},
      {4, 33, 64, 96, true, true, true},     {2, 128, 64, 64, true, false, false}};
  std::mt19937 rng(41);
  for (const Case& c : cases) {
    // [batch, rows, cols] as a head view: item l at l * cols, rows batch * cols apart; stored
    // transposed: the view of a [batch, cols, rows] stack.
    auto layout = [&](int64_t rows, int64_t cols, bool transposed) {
      TensorLayout l;
      const int64_t r = transposed ? cols : rows, q = transposed ? rows : cols;
      l.strides = c.head_views ? std::vector<int64_t>{q, c.batch * q, 1}
                               : std::vector<int64_t>{r * q, q, 1};
      if (transposed) std::swap(l.strides[1], l.strides[2]);
      l.name = std::string(c.head_views ? "head view" : "stack") + (transposed ? " (t)" : "");
      return l;
    };
    DeviceTensor a({c.batch, c.m, c.k}, ACL_BF16, layout(c.m, c.k, c.a_transposed));
    DeviceTensor b({c.batch, c.k, c.n}, ACL_BF16, layout(c.k, c.n, c.b_transposed));
    DeviceTensor self({c.batch, c.m, c.n}, ACL_BF16);
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    self.FillUniform(&rng, -1.0f, 1.0f);
    const std::vector<int64_t> out_dims = {c.batch, c.m, c.n};
    const std::vector<double> product =
        MatmulGolden(Values(a), {c.batch, c.m, c.k}, Values(b), {c.batch, c.k, c.n});
    const std::vector<double> added =
        AddScaled(product, out_dims, Values(self), out_dims, 1.0, 1.0);
    const std::string name = std::to_string(c.batch) + " x " + std::to_string(c.m) + " x " +
                             std::to_string(c.n) + " x " + std::to_string(c.k) +
                             (c.head_views ? " head views" : "") + (c.a_transposed ? " A^T" : "") +
                             (c.b_transposed ? " B^T" : "");
    for (const std::string& isa : cpu::AvailableIsas()) {
      ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
      std::vector<std::vector<uint8_t>> results;
      for (int threads : {1, 3}) {
        cpu::SetNumThreads(threads);
        DeviceTensor out(out_dims, ACL_BF16, layout(c.m, c.n, false));
        DeviceTensor sum(out_dims, ACL_BF16);
        ASSERT_EQ(MatmulCall(a, b, out, 0, stream_).phase2, 0) << name;
        Scalar one(1.0f);
        ASSERT_EQ(BaddbmmCall(self, a, b, one, one, sum, 0, stream_).phase2, 0) << name;
        std::string where = name;
        where += " on ";
        where += isa;
        ExpectMatches(out, product, where);
        ExpectMatches(sum, added, "baddbmm " + where);
        std::vector<uint8_t> bytes = out.Bytes();
        const std::vector<uint8_t> more = sum.Bytes();
        bytes.insert(bytes.end(), more.begin(), more.end());
        results.push_back(bytes);
      }
      EXPECT_TRUE(results.front() == results.back()) << name << " " << isa;
    }
    cpu::SetNumThreads(0);
    ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
  }
}

// BFLOAT16 products 1024 columns wide with few rows (the weight gradient x^T dh) run in tiles of
// 512 columns: every tile's columns, with x^T read transposed or plain and with a bias row,
// against the float64 golden model, the same bits for 1 and 3 threads.
TEST_F(MatmulTest, Bf16WideProductsWithFewRowsMatchGolden) {
  std::mt19937 rng(43);
  const int64_t m = 256, n = 1024, k = 64;
  for (const bool a_transposed : {true, false}) {
    DeviceTensor a({m, k}, ACL_BF16, a_transposed ? Transposed(2) : TensorLayout());
    DeviceTensor b({k, n}, ACL_BF16);
    DeviceTensor bias({n}, ACL_BF16);
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    bias.FillUniform(&rng, -1.0f, 1.0f);
    const std::vector<double> product = MatmulGolden(Values(a), {m, k}, Values(b), {k, n});
    const std::vector<double> golden = AddScaled(product, {m, n}, Values(bias), {n}, 1.0, 1.0);
    const std::string name = a_transposed ? "x^T dh" : "x dh";
    std::vector<std::vector<uint8_t>> results;
    for (int threads : {1, 3}) {
      cpu::SetNumThreads(threads);
      DeviceTensor plain({m, n}, ACL_BF16, TensorLayout().WithNanCanary());
      DeviceTensor added({m, n}, ACL_BF16, TensorLayout().WithNanCanary());
      ASSERT_EQ(MatmulCall(a, b, plain, 0, stream_).phase2, 0) << name;
      Scalar one(1.0f);
      ASSERT_EQ(AddmmCall(bias, a, b, one, one, added, 0, stream_).phase2, 0) << name;
      ExpectMatches(plain, product, name);
      ExpectMatches(added, golden, name + " + bias");
      std::vector<uint8_t> bytes = plain.Bytes();
      const std::vector<uint8_t> more = added.Bytes();
      bytes.insert(bytes.end(), more.begin(), more.end());
      results.push_back(bytes);
    }
    EXPECT_TRUE(results.front() == results.back()) << name;
    cpu::SetNumThreads(0);
  }
}

TEST_F(MatmulTest, OneRowProductsMatchGoldenOnEveryTarget) {
  std::mt19937 rng(31);
  const int64_t sizes[][2] = {{37, 45}, {1024, 70}, {16, 3}, {5, 600}};  // {K, N}
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    for (const auto& kn : sizes) {
      const int64_t k = kn[0], n = kn[1];
      for (bool trans : {false, true}) {
        DeviceTensor x({1, k}, dt), w({k, n}, dt, trans ? Transposed(2) : TensorLayout());
        DeviceTensor bias({n}, dt);
        x.FillUniform(&rng, -1.0f, 1.0f);
        w.FillUniform(&rng, -1.0f, 1.0f);
        bias.FillUniform(&rng, -1.0f, 1.0f);
        // alpha 1 keeps BFLOAT16 on the BF16 GEMM's path; FLOAT also takes alpha 0.5.
        const float alpha_value = dt == ACL_FLOAT ? 0.5f : 1.0f;
        const std::vector<double> product = MatmulGolden(Values(x), {1, k}, Values(w), {k, n});
        const std::vector<double> golden =
            AddScaled(product, {1, n}, Values(bias), {n}, 1.0, alpha_value);
        const std::string name = std::string(DTypeName(dt)) + " K " + std::to_string(k) + " N " +
                                 std::to_string(n) + (trans ? " w.t()" : " w");
        std::vector<std::vector<uint8_t>> results;
        for (const std::string& isa : cpu::AvailableIsas()) {
          ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
          for (int threads : {1, 3}) {
            cpu::SetNumThreads(threads);
            DeviceTensor plain({1, n}, dt, TensorLayout().WithNanCanary());
            DeviceTensor added({1, n}, dt, TensorLayout().WithNanCanary());
            ASSERT_EQ(MatmulCall(x, w, plain, 0, stream_).phase2, 0);
            Scalar one(1.0f), alpha(alpha_value);
            ASSERT_EQ(AddmmCall(bias, x, w, one, alpha, added, 0, stream_).phase2, 0);
            ExpectMatches(plain, product, "one row " + name);
            ExpectMatches(added, golden, "one row + bias " + name);
            std::vector<uint8_t> bytes = plain.Bytes();
            const std::vector<uint8_t> more = added.Bytes();
            bytes.insert(bytes.end(), more.begin(), more.end());
            results.push_back(bytes);
            EXPECT_TRUE(results.front() == results.back()) << name << " " << isa << " " << threads;
          }
        }
        cpu::SetNumThreads(0);
        ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
      }
    }
  }
}

}  // namespace
}  // namespace openaclnn::test::matmul

namespace openaclnn::test::matmul {
namespace {

// Inputs that share memory with out (out = self, out = mat2, selfRef = mat1): every product is
// computed from the inputs as they were before the call, for the GEMM plan and the reference.
void CheckInputsSharingOut(aclrtStream stream) {
  std::mt19937 rng(27);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const std::string name = DTypeName(dt);
    {
      // Several tiles in each dim, so that tiles run while others still read.
      DeviceTensor a({300, 300}, dt), b({300, 300}, dt, Transposed(2));
      a.FillUniform(&rng, -1.0f, 1.0f);
      b.FillUniform(&rng, -1.0f, 1.0f);
      const std::vector<double> golden = MatmulGolden(Values(a), {300, 300}, Values(b), {300, 300});
      const CallResult r = CallApi(
          [&](uint64_t* ws, aclOpExecutor** ex) {
            return aclnnMmGetWorkspaceSize(a.get(), b.get(), a.get(), 0, ws, ex);
          },
          aclnnMm, stream);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      ExpectMatches(a, golden, "out = self " + name);
    }
    {
      DeviceTensor self({40, 40}, dt), a({40, 40}, dt), b({40, 40}, dt);
      self.FillUniform(&rng, -1.0f, 1.0f);
      a.FillUniform(&rng, -1.0f, 1.0f);
      b.FillUniform(&rng, -1.0f, 1.0f);
      const std::vector<double> golden =
          AddScaled(MatmulGolden(Values(a), {40, 40}, Values(b), {40, 40}), {40, 40}, Values(self),
                    {40, 40}, 0.5, 2.0);
      Scalar beta(0.5f), alpha(2.0f);
      const CallResult r = AddmmCall(self, a, b, beta, alpha, b, 0, stream);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      ExpectMatches(b, golden, "addmm out = mat2 " + name);
    }
    {
      DeviceTensor self({40, 40}, dt), b({40, 40}, dt);
      self.FillUniform(&rng, -1.0f, 1.0f);
      b.FillUniform(&rng, -1.0f, 1.0f);
      const std::vector<double> golden =
          AddScaled(MatmulGolden(Values(self), {40, 40}, Values(b), {40, 40}), {40, 40},
                    Values(self), {40, 40}, 1.0, 1.0);
      Scalar one(1.0f);
      const CallResult r = CallApi(
          [&](uint64_t* ws, aclOpExecutor** ex) {
            return aclnnInplaceAddmmGetWorkspaceSize(self.get(), self.get(), b.get(), one.get(),
                                                     one.get(), 0, ws, ex);
          },
          aclnnInplaceAddmm, stream);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      ExpectMatches(self, golden, "inplace addmm mat1 = selfRef " + name);
    }
  }
}

TEST_F(MatmulTest, InputsSharingOutMemory) {
  CheckInputsSharingOut(stream_);
  setenv("OPENACLNN_FORCE_IMPL", "matmul=reference", 1);
  CheckInputsSharingOut(stream_);
  unsetenv("OPENACLNN_FORCE_IMPL");
}

}  // namespace
}  // namespace openaclnn::test::matmul

namespace openaclnn::test::matmul {
namespace {

TEST_F(MatmulTest, OneRowProductsEveryLayout) {
  // M = 1 (a decode step) runs as the transposed product: every operand layout, several column
  // tiles, with and without self.
  std::mt19937 rng(28);
  const TensorLayout a_layouts[] = {TensorLayout::Contiguous(), TensorLayout::Strided(3, 2),
                                    Transposed(2)};
  const TensorLayout b_layouts[] = {Transposed(2), TensorLayout::Contiguous(),
                                    TensorLayout::PaddedRows(1, 7), TensorLayout::Scrambled(2)};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const TensorLayout& la : a_layouts) {
      for (const TensorLayout& lb : b_layouts) {
        for (float alpha : {1.0f, -0.5f}) {
          DeviceTensor self({1100}, dt), a({1, 300}, dt, la), b({300, 1100}, dt, lb);
          DeviceTensor out({1, 1100}, dt, TensorLayout::Offset(3).WithNanCanary());
          self.FillUniform(&rng, -1.0f, 1.0f);
          a.FillUniform(&rng, -1.0f, 1.0f);
          b.FillUniform(&rng, -1.0f, 1.0f);
          Scalar beta(0.25f), alpha_scalar(alpha);
          const CallResult r = AddmmCall(self, a, b, beta, alpha_scalar, out, 0, stream_);
          ASSERT_EQ(r.phase1, 0) << r.message;
          ASSERT_EQ(r.phase2, 0) << r.message;
          ExpectMatches(out,
                        AddScaled(MatmulGolden(Values(a), {1, 300}, Values(b), {300, 1100}),
                                  {1, 1100}, Values(self), {1100}, 0.25, alpha),
                        std::string("one row ") + DTypeName(dt) + " " + la.name + " x " + lb.name +
                            " alpha " + std::to_string(alpha));
        }
      }
    }
  }
}

}  // namespace
}  // namespace openaclnn::test::matmul
