// Results of the five operators against the float64 golden model: every 1-D/N-D case of
// torch.matmul, broadcast batches, random strided and transposed views, all dtypes, empty
// tensors, self's broadcast, beta/alpha, the inplace forms, and no write outside the output view.
#include <cmath>
#include <limits>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "backend/cpu/isa.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/small_gemm.h"
#include "kernels/cpu/tile_gemm.h"
#include "matmul_test_util.h"

namespace openaclnn::test::matmul {
namespace {

struct Shapes {
  std::vector<int64_t> a, b;
};

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

CallResult CallMatmul(const DeviceTensor& a, const DeviceTensor& b, const DeviceTensor& out,
                      int8_t cube, aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnMatmulGetWorkspaceSize(a.get(), b.get(), out.get(), cube, ws, ex);
      },
      aclnnMatmul, stream);
}

CallResult CallBatchMatMul(const DeviceTensor& a, const DeviceTensor& b, const DeviceTensor& out,
                           aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnBatchMatMulGetWorkspaceSize(a.get(), b.get(), out.get(), 0, ws, ex);
      },
      aclnnBatchMatMul, stream);
}

// Where gemm_plan.cpp blocks B once (BFLOAT16 on AMX, FLOAT on AVX-512), the workspace holds the
// blocked B, unless a BFLOAT16 one is small enough for each thread to lay out its own copy
// (cpu::kMaxPerThreadBlockedBBytes): then it books none for it.
void ExpectBlockedB(uint64_t workspace, aclDataType dtype, int64_t k, int64_t n,
                    const std::string& what) {
  const bool bf16 = dtype == ACL_BF16;
  const bool blocked =
      bf16 ? cpu::HasAmxBf16() && cpu::PlanningTarget().native_bf16 : cpu::HasBrgemmFloat();
  if (!blocked) return;
  const uint64_t bytes =
      (bf16 ? sizeof(uint16_t) : sizeof(float)) *
      cpu::BlockedBElements(bf16 ? cpu::GemmElement::kBf16 : cpu::GemmElement::kFloat, k, n);
  if (bf16 && bytes <= static_cast<uint64_t>(cpu::kMaxPerThreadBlockedBBytes)) {
    EXPECT_LT(workspace, bytes) << what << ": a per-thread blocked B booked in the workspace";
  } else {
    EXPECT_GE(workspace, bytes) << what << ": B not blocked";
  }
}

// out = bias + x @ w (m x k by k x n) through aclnnAddmm with beta = alpha = 1, against the float64
// golden; returns the call's workspace size.
uint64_t ExpectBiasPlusProduct(const DeviceTensor& bias, const DeviceTensor& x,
                               const DeviceTensor& w, const DeviceTensor& out, int64_t m, int64_t k,
                               int64_t n, const std::string& what, aclrtStream stream) {
  Scalar one(1.0f);
  CallResult r = CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnAddmmGetWorkspaceSize(bias.get(), x.get(), w.get(), one.get(), one.get(),
                                          out.get(), 0, ws, ex);
      },
      aclnnAddmm, stream);
  EXPECT_EQ(r.phase1, 0) << what << ": " << r.message;
  EXPECT_EQ(r.phase2, 0) << what << ": " << r.message;
  if (r.phase1 != 0 || r.phase2 != 0) return r.workspace;
  ExpectMatches(out,
                AddScaled(MatmulGolden(Values(x), {m, k}, Values(w), {k, n}), {m, n}, Values(bias),
                          {n}, 1.0, 1.0),
                what);
  return r.workspace;
}

TEST_F(MatmulTest, MatmulShapesLayoutsAndDtypes) {
  const Shapes cases[] = {
      {{7}, {7}},                             // dot
      {{5}, {5, 3}},                          // vector @ matrix
      {{4, 5}, {5}},                          // matrix @ vector
      {{3, 4}, {4, 6}},                       // matrix
      {{2, 3, 4}, {4, 6}},                    // batch @ matrix (folded into rows)
      {{3, 4}, {2, 4, 6}},                    // matrix @ batch
      {{2, 1, 3, 4}, {5, 4, 6}},              // broadcast batch dims both ways
      {{6}, {2, 6, 3}},                       // vector @ batch
      {{2, 3, 6}, {6}},                       // batch @ vector
      {{1, 3, 5}, {4, 5, 2}},                 // batch 1 broadcast
      {{2, 2, 1, 1, 3, 4}, {2, 1, 2, 4, 3}},  // 6-D with 5-D
      {{1, 9}, {9, 1}},                       // 1 x 1 result
      {{40, 70}, {70, 33}},                   // a few hundred products per element
  };
  std::mt19937 rng(5);
  for (const Shapes& s : cases) {
    for (aclDataType dt : kDtypes) {
      for (int trial = 0; trial < 3; ++trial) {
        const TensorLayout la = RandomLayout(static_cast<int>(s.a.size()), &rng);
        const TensorLayout lb = RandomLayout(static_cast<int>(s.b.size()), &rng);
        const std::vector<int64_t> od = MatmulShape(s.a, s.b);
        const TensorLayout lo = trial == 2 ? RandomLayout(static_cast<int>(od.size()), &rng)
                                           : TensorLayout::Contiguous();
        DeviceTensor a(s.a, dt, la), b(s.b, dt, lb), out(od, dt, lo.WithNanCanary());
        a.FillUniform(&rng, -1.0f, 1.0f);
        b.FillUniform(&rng, -1.0f, 1.0f);
        const std::string what = "a" + DimsString(s.a) + " " + la.name + " b" + DimsString(s.b) +
                                 " " + lb.name + " out " + lo.name + " " + DTypeName(dt);
        CallResult r = CallMatmul(a, b, out, 0, stream_);
        ASSERT_EQ(r.phase1, 0) << what << ": " << r.message;
        ASSERT_EQ(r.phase2, 0) << what << ": " << r.message;
        ExpectMatches(out, MatmulGolden(Values(a), s.a, Values(b), s.b), what);
      }
    }
  }
}

TEST_F(MatmulTest, MixedDtypesAndOutputCasts) {
  // FLOAT16 with FLOAT computes in FLOAT; out may be any of the three dtypes.
  std::mt19937 rng(6);
  const std::pair<aclDataType, aclDataType> inputs[] = {
      {ACL_FLOAT16, ACL_FLOAT}, {ACL_FLOAT, ACL_FLOAT16}, {ACL_BF16, ACL_BF16}};
  for (const auto& [da, db] : inputs) {
    for (aclDataType dout : kDtypes) {
      DeviceTensor a({6, 20}, da), b({20, 9}, db, Transposed(2)), out({6, 9}, dout);
      a.FillUniform(&rng, -1.0f, 1.0f);
      b.FillUniform(&rng, -1.0f, 1.0f);
      CallResult r = CallMatmul(a, b, out, 0, stream_);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      ExpectMatches(out, MatmulGolden(Values(a), {6, 20}, Values(b), {20, 9}),
                    std::string(DTypeName(da)) + "@" + DTypeName(db) + "->" + DTypeName(dout));
    }
  }
}

TEST_F(MatmulTest, EmptyTensors) {
  // k == 0 gives zeros; m == 0 or a batch of 0 writes nothing.
  for (aclDataType dt : kDtypes) {
    DeviceTensor a({3, 0}, dt), b({0, 4}, dt), out({3, 4}, dt, TensorLayout().WithNanCanary());
    CallResult r = CallMatmul(a, b, out, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(out, std::vector<double>(12, 0.0), "k == 0");
    DeviceTensor a0({0, 5}, dt), b0({5, 4}, dt), out0({0, 4}, dt);
    r = CallMatmul(a0, b0, out0, 0, stream_);
    EXPECT_EQ(r.phase1, 0) << r.message;
    EXPECT_EQ(r.phase2, 0) << r.message;
    EXPECT_TRUE(out0.Untouched());
    DeviceTensor ab({2, 0, 3, 5}, dt), bb({5, 4}, dt), outb({2, 0, 3, 4}, dt);
    r = CallMatmul(ab, bb, outb, 0, stream_);
    EXPECT_EQ(r.phase1, 0) << r.message;
    EXPECT_EQ(r.phase2, 0) << r.message;
    EXPECT_TRUE(outb.Untouched());
    DeviceTensor d1({0}, dt), d2({0}, dt), dot({}, dt, TensorLayout().WithNanCanary());
    r = CallMatmul(d1, d2, dot, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(dot, {0.0}, "empty dot");
  }
}

TEST_F(MatmulTest, TransposedFloatViewsNeedNoWorkspace) {
  // Row-padded views and a transposed A are read in place: FLOAT operands book no workspace at
  // all, whatever out's dtype (16-bit tiles round from a per-thread tile). A small transposed B
  // (weight.t(), strides (1, rows)) is read by the small-product kernel where it runs (it copies
  // its tile itself); elsewhere gemm_plan.cpp copies B into its plain layout once per call, which
  // books exactly that copy (dnnl_sgemm runs faster on it).
  const bool small_kernel = cpu::SmallGemmRuns(cpu::PlanningTarget());
  std::mt19937 rng(7);
  for (int variant = 0; variant < 8; ++variant) {
    const TensorLayout la = variant & 1 ? Transposed(2) : TensorLayout::PaddedRows(1, 3);
    const TensorLayout lb = variant & 2 ? Transposed(2) : TensorLayout::Contiguous();
    const aclDataType dout = variant & 4 ? ACL_BF16 : ACL_FLOAT;
    DeviceTensor a({33, 17}, ACL_FLOAT, la), b({17, 29}, ACL_FLOAT, lb);
    DeviceTensor out({33, 29}, dout, TensorLayout::PaddedRows(1, 5).WithNanCanary());
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    CallResult r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnMmGetWorkspaceSize(a.get(), b.get(), out.get(), 0, ws, ex);
        },
        aclnnMm, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    const uint64_t copy_bytes = 17 * 29 * sizeof(float);
    if ((variant & 2) && !small_kernel) {
      EXPECT_GE(r.workspace, copy_bytes) << la.name << " x " << lb.name;
      EXPECT_LE(r.workspace, copy_bytes + 256) << la.name << " x " << lb.name;
    } else {
      EXPECT_EQ(r.workspace, 0u) << la.name << " x " << lb.name;
    }
    ExpectMatches(out, MatmulGolden(Values(a), {33, 17}, Values(b), {17, 29}), la.name);
  }
}

TEST_F(MatmulTest, MmAndBatchMatMul) {
  std::mt19937 rng(8);
  for (aclDataType dt : kDtypes) {
    DeviceTensor a({12, 7}, dt, TensorLayout::Scrambled(2)), b({7, 10}, dt, Transposed(2));
    DeviceTensor out({12, 10}, dt, TensorLayout::Padded(2).WithNanCanary());
    a.FillUniform(&rng, -2.0f, 2.0f);
    b.FillUniform(&rng, -2.0f, 2.0f);
    CallResult r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnMmGetWorkspaceSize(a.get(), b.get(), out.get(), 0, ws, ex);
        },
        aclnnMm, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(out, MatmulGolden(Values(a), {12, 7}, Values(b), {7, 10}), "mm");

    // BatchMatMul, including a batch of 1 on either side.
    const Shapes cases[] = {{{4, 5, 6}, {4, 6, 3}}, {{1, 5, 6}, {4, 6, 3}}, {{4, 5, 6}, {1, 6, 3}}};
    for (const Shapes& s : cases) {
      DeviceTensor x(s.a, dt, RandomLayout(3, &rng)), y(s.b, dt, RandomLayout(3, &rng));
      const std::vector<int64_t> od = MatmulShape(s.a, s.b);
      DeviceTensor o(od, dt, TensorLayout().WithNanCanary());
      x.FillUniform(&rng, -1.0f, 1.0f);
      y.FillUniform(&rng, -1.0f, 1.0f);
      r = CallBatchMatMul(x, y, o, stream_);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      ExpectMatches(o, MatmulGolden(Values(x), s.a, Values(y), s.b), "bmm " + DimsString(s.a));
    }
  }
}

TEST_F(MatmulTest, TransposedBCopiesMatchTheGolden) {
  // FLOAT B views read transposed that gemm_plan.cpp copies into their plain layout (A has padded
  // rows, so the product is not one for the matmul primitive, which reads B in place): a long
  // reduction over several batches (copy chunks cross batch edges: 600 rows of 40, chunks of
  // 1638 rows) and small per-head matrices (copied by the plan where the small-product kernel
  // does not run, by that kernel per tile where it does); B broadcast over the batch too.
  const bool small_kernel = cpu::SmallGemmRuns(cpu::PlanningTarget());
  std::mt19937 rng(21);
  const Shapes cases[] = {
      {{3, 20, 600}, {3, 600, 40}}, {{8, 16, 64}, {8, 64, 24}}, {{4, 33, 520}, {1, 520, 17}}};
  for (const Shapes& s : cases) {
    DeviceTensor x(s.a, ACL_FLOAT, TensorLayout::Padded(3)), y(s.b, ACL_FLOAT, Transposed(3));
    DeviceTensor o(MatmulShape(s.a, s.b), ACL_FLOAT, TensorLayout().WithNanCanary());
    x.FillUniform(&rng, -1.0f, 1.0f);
    y.FillUniform(&rng, -1.0f, 1.0f);
    CallResult r = CallBatchMatMul(x, y, o, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    const uint64_t b_bytes = sizeof(float) * static_cast<uint64_t>(s.b[0] * s.b[1] * s.b[2]);
    if (small_kernel && cpu::SmallGemmPays(s.a[1], s.b[2], s.a[2])) {
      EXPECT_EQ(r.workspace, 0u) << "B was copied by the plan for " << DimsString(s.b);
    } else {
      EXPECT_GE(r.workspace, b_bytes) << "B was not copied for " << DimsString(s.b);
    }
    ExpectMatches(o, MatmulGolden(Values(x), s.a, Values(y), s.b), "bmm " + DimsString(s.b));
  }
}

TEST_F(MatmulTest, HeadViewsAndWideOutputsMatchGolden) {
  // Products whose tiles oneDNN's matmul primitive would not read as dense matrices (gemm_plan.cpp
  // packs such BFLOAT16 operands, per tile where a tile reads a whole matrix, and writes such
  // tiles through a dense scratch tile): attention's head views (batch i of a [batch, rows, cols]
  // view at offset i * cols with rows batch * cols apart) as A, as B read plainly or transposed,
  // and as out; a B broadcast over the batch; Addmm with a padded out, BFLOAT16 wider than one
  // column tile and FLOAT in full-width tiles.
  std::mt19937 rng(31);
  const int64_t h = 6, m = 48, k = 40, n = 56;
  auto head_view = [&](int64_t cols) {
    return TensorLayout::Explicit({cols, h * cols, 1}).WithNanCanary();
  };
  struct Case {
    const char* what;
    std::vector<int64_t> b_dims;
    TensorLayout b_layout;
  };
  const Case cases[] = {
      {"B a head view", {h, k, n}, head_view(n)},
      // k^T of attention scores: element (i, p, j) of the [h, k, n] view at i * k + j * h * k + p.
      {"B a transposed head view", {h, k, n}, TensorLayout::Explicit({k, 1, h * k})},
      {"B broadcast, rows apart", {1, k, n}, TensorLayout::Explicit({0, n + 9, 1}, 3)},
  };
  for (const Case& c : cases) {
    DeviceTensor x({h, m, k}, ACL_BF16, head_view(k)), y(c.b_dims, ACL_BF16, c.b_layout);
    DeviceTensor o({h, m, n}, ACL_BF16, head_view(n));
    x.FillUniform(&rng, -1.0f, 1.0f);
    y.FillUniform(&rng, -1.0f, 1.0f);
    CallResult r = CallBatchMatMul(x, y, o, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(o, MatmulGolden(Values(x), {h, m, k}, Values(y), c.b_dims), c.what);
  }
  // bias + x @ w.t() written to a padded out with 1100 columns (two full column tiles and a
  // narrower last one), and FLOAT with 700 (full-width tiles); FLOAT through the matmul primitive
  // too where oneDNN runs it on brgemm (AVX-512).
  struct Wide {
    aclDataType operands, out;
    int64_t n;
  };
  const Wide wide[] = {{ACL_BF16, ACL_BF16, 1100},
                       {ACL_BF16, ACL_FLOAT, 1100},
                       {ACL_FLOAT, ACL_FLOAT, 700},
                       {ACL_FLOAT, ACL_FLOAT, 1100}};
  for (const Wide& c : wide) {
    const int64_t cols = c.n;
    DeviceTensor bias({cols}, ACL_FLOAT), x({70, 96}, c.operands);
    DeviceTensor w({96, cols}, c.operands, Transposed(2));
    DeviceTensor out({70, cols}, c.out, TensorLayout::Padded(5).WithNanCanary());
    bias.FillUniform(&rng, -1.0f, 1.0f);
    x.FillUniform(&rng, -1.0f, 1.0f);
    w.FillUniform(&rng, -1.0f, 1.0f);
    ExpectBiasPlusProduct(bias, x, w, out, 70, 96, cols,
                          std::string("wide addmm ") + DTypeName(c.operands) + " out " +
                              DTypeName(c.out) + " n " + std::to_string(cols),
                          stream_);
  }
}

TEST_F(MatmulTest, WeightsSharedByRowTilesMatchGolden) {
  // Products whose B several row tiles share, which gemm_plan.cpp lays out once in the blocked form
  // of cpu::PackBlockedB (BFLOAT16 on AMX, FLOAT on AVX-512; elsewhere they take the usual path,
  // checked the same way): weights under Addmm's bias, wider than one column tile (BFLOAT16 then
  // runs in full-width row tiles of 160 or 136 rows, the last one shorter), transposed with an
  // even row stride (BFLOAT16 pairs moved in registers) into a padded out, or plain into a dense
  // out, BFLOAT16 blocked by each thread or (k = 512) once into the workspace; a weight broadcast
  // over a batch with an odd reduction (zero padding in the last depth step) read plainly and
  // transposed with an odd row stride (BFLOAT16 pairs moved one by one).
  std::mt19937 rng(41);
  for (const aclDataType dtype : {ACL_BF16, ACL_FLOAT}) {
    const bool bf16 = dtype == ACL_BF16;
    const std::string name = DTypeName(dtype);
    struct Weight {
      int64_t m, k, n;
      bool transposed;
    };
    for (const Weight& c : {Weight{300, 96, 1100, true}, Weight{600, 64, 2100, false},
                            Weight{260, 512, 1100, true}}) {
      const std::string what = name + " addmm, " + (c.transposed ? "transposed" : "plain") +
                               " weight, n " + std::to_string(c.n);
      DeviceTensor bias({c.n}, dtype), x({c.m, c.k}, dtype);
      DeviceTensor w({c.k, c.n}, dtype, c.transposed ? Transposed(2) : TensorLayout());
      DeviceTensor out({c.m, c.n}, dtype,
                       (c.transposed ? TensorLayout::Padded(3) : TensorLayout()).WithNanCanary());
      bias.FillUniform(&rng, -1.0f, 1.0f);
      x.FillUniform(&rng, -1.0f, 1.0f);
      w.FillUniform(&rng, -1.0f, 1.0f);
      const uint64_t workspace =
          ExpectBiasPlusProduct(bias, x, w, out, c.m, c.k, c.n, what, stream_);
      // (A plain FLOAT weight this wide stays on sgemm.)
      if (bf16 || c.transposed) ExpectBlockedB(workspace, dtype, c.k, c.n, what);
    }
    for (const bool transposed : {false, true}) {
      const int64_t k = 71, n = 130;
      DeviceTensor x({2, 600, k}, dtype),
          w({k, n}, dtype, transposed ? Transposed(2) : TensorLayout());
      DeviceTensor out({2, 600, n}, dtype, TensorLayout().WithNanCanary());
      x.FillUniform(&rng, -1.0f, 1.0f);
      w.FillUniform(&rng, -1.0f, 1.0f);
      CallResult r = CallMatmul(x, w, out, 0, stream_);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      ExpectBlockedB(r.workspace, dtype, k, n, name + " broadcast weight");
      ExpectMatches(out, MatmulGolden(Values(x), {2, 600, k}, Values(w), {k, n}),
                    name + (transposed ? " broadcast weight, transposed" : " broadcast weight"));
    }
  }
}

TEST_F(MatmulTest, Bf16LongReductionsMatchGolden) {
  // BFLOAT16 products with a reduction longer than 2048 (an MLP's down projection) whose weight
  // gemm_plan.cpp blocks once run their tiles on cpu::BlockedGemmBf16 where the CPU has AMX
  // (elsewhere the usual path, checked the same way): Addmm's bias, a transposed weight, a depth
  // off the 32 step and the 256 chunk, a last column block of 8, 2100 rows in 224-row tiles and a
  // last one of 84, out padded with canaries.
  const int64_t m = 2100, k = 2100, n = 72;
  std::mt19937 rng(47);
  DeviceTensor bias({n}, ACL_BF16), x({m, k}, ACL_BF16), w({k, n}, ACL_BF16, Transposed(2));
  DeviceTensor out({m, n}, ACL_BF16, TensorLayout::Padded(3).WithNanCanary());
  bias.FillUniform(&rng, -1.0f, 1.0f);
  x.FillUniform(&rng, -1.0f, 1.0f);
  w.FillUniform(&rng, -1.0f, 1.0f);
  const uint64_t workspace =
      ExpectBiasPlusProduct(bias, x, w, out, m, k, n, "BFLOAT16 addmm, k 2100", stream_);
  ExpectBlockedB(workspace, ACL_BF16, k, n, "BFLOAT16 addmm, k 2100");
}

// x^T dy (m x k x n, dtype) with x^T a transposed view, against the float64 golden; returns the
// workspace the call asked for (0 where it failed).
uint64_t TransposedXProductMatchesGolden(aclDataType dtype, int64_t m, int64_t k, int64_t n,
                                         uint32_t seed, aclrtStream stream) {
  std::mt19937 rng(seed);
  DeviceTensor x({m, k}, dtype, Transposed(2)), dy({k, n}, dtype);
  DeviceTensor out({m, n}, dtype, TensorLayout().WithNanCanary());
  x.FillUniform(&rng, -1.0f, 1.0f);
  dy.FillUniform(&rng, -1.0f, 1.0f);
  CallResult r = CallMatmul(x, dy, out, 0, stream);
  EXPECT_EQ(r.phase1, 0) << r.message;
  EXPECT_EQ(r.phase2, 0) << r.message;
  if (r.phase1 != 0 || r.phase2 != 0) return 0;
  ExpectMatches(out, MatmulGolden(Values(x), {m, k}, Values(dy), {k, n}),
                std::string(DTypeName(dtype)) + " x^T dy");
  return r.workspace;
}

TEST_F(MatmulTest, Bf16TransposedXOfWeightGradientsMatchesGolden) {
  // x^T dy in BFLOAT16 with tiles of 128 rows: on AMX the tiles run on cpu::BlockedGemmBf16, which
  // reads x^T in place (its columns laid out as tile registers) with dy blocked once, so the
  // workspace holds the blocked dy and no copy of x^T; elsewhere x^T is copied, checked the same
  // way. 1000 rows (a last tile of 104), a reduction of 300 (two depth chunks, the second off the
  // 32 step), a last column block of 2.
  const int64_t m = 1000, k = 300, n = 130;
  const uint64_t workspace = TransposedXProductMatchesGolden(ACL_BF16, m, k, n, 53, stream_);
  if (cpu::TileGemmRuns() && cpu::PlanningTarget().native_bf16) {
    const uint64_t blocked =
        sizeof(uint16_t) * cpu::BlockedBElements(cpu::GemmElement::kBf16, k, n);
    ExpectBlockedB(workspace, ACL_BF16, k, n, "x^T dy");
    EXPECT_LT(workspace, blocked + sizeof(uint16_t) * m * k) << "x^T copied";
  }
}

TEST_F(MatmulTest, FloatTransposedXOfWeightGradientsMatchesGolden) {
  // x^T dy, FLOAT: where the full-width row tiles are tall enough, gemm_plan.cpp copies x^T
  // row-major and runs the tiles on oneDNN's brgemm kernels with dy blocked once (elsewhere
  // dnnl_sgemm reads x^T in place; checked the same way). 2000 rows in 256-row tiles and a last
  // one of 208, a depth off the blocked form's step of 16, a last column block of 2 columns.
  const int64_t m = 2000, k = 200, n = 130;
  const uint64_t workspace = TransposedXProductMatchesGolden(ACL_FLOAT, m, k, n, 43, stream_);
  if (cpu::HasBrgemmFloat()) {
    EXPECT_GE(workspace,
              sizeof(float) * (m * k + cpu::BlockedBElements(cpu::GemmElement::kFloat, k, n)))
        << "x^T not copied or dy not blocked";
  }
}

TEST_F(MatmulTest, AddmmBroadcastScalarsAndInplace) {
  std::mt19937 rng(9);
  const std::vector<int64_t> self_shapes[] = {{5, 8}, {8}, {1, 8}, {5, 1}, {1, 1}, {1}, {}};
  const float betas[] = {1.0f, 0.5f, 0.0f}, alphas[] = {1.0f, -2.0f};
  for (aclDataType dt : kDtypes) {
    for (const auto& sd : self_shapes) {
      for (float beta : betas) {
        for (float alpha : alphas) {
          DeviceTensor self(sd, dt, RandomLayout(static_cast<int>(sd.size()), &rng));
          DeviceTensor m1({5, 11}, dt, RandomLayout(2, &rng)), m2({11, 8}, dt, Transposed(2));
          DeviceTensor out({5, 8}, dt, TensorLayout().WithNanCanary());
          self.FillUniform(&rng, -1.0f, 1.0f);
          m1.FillUniform(&rng, -1.0f, 1.0f);
          m2.FillUniform(&rng, -1.0f, 1.0f);
          Scalar b(beta), a(alpha);
          CallResult r = CallApi(
              [&](uint64_t* ws, aclOpExecutor** ex) {
                return aclnnAddmmGetWorkspaceSize(self.get(), m1.get(), m2.get(), b.get(), a.get(),
                                                  out.get(), 0, ws, ex);
              },
              aclnnAddmm, stream_);
          ASSERT_EQ(r.phase1, 0) << r.message;
          ASSERT_EQ(r.phase2, 0) << r.message;
          const std::vector<double> golden =
              AddScaled(MatmulGolden(Values(m1), {5, 11}, Values(m2), {11, 8}), {5, 8},
                        Values(self), sd, beta, alpha);
          ExpectMatches(out, golden,
                        "addmm self" + DimsString(sd) + " beta " + std::to_string(beta) +
                            " alpha " + std::to_string(alpha) + " " + DTypeName(dt));
        }
      }
    }
    // Inplace, with a strided selfRef.
    DeviceTensor self({6, 9}, dt, TensorLayout::Padded(3).WithOffset(4));
    DeviceTensor m1({6, 4}, dt), m2({4, 9}, dt, Transposed(2));
    self.FillUniform(&rng, -1.0f, 1.0f);
    m1.FillUniform(&rng, -1.0f, 1.0f);
    m2.FillUniform(&rng, -1.0f, 1.0f);
    const std::vector<double> golden =
        AddScaled(MatmulGolden(Values(m1), {6, 4}, Values(m2), {4, 9}), {6, 9}, Values(self),
                  {6, 9}, 0.75, 1.5);
    Scalar b(0.75f), a(1.5f);
    CallResult r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnInplaceAddmmGetWorkspaceSize(self.get(), m1.get(), m2.get(), b.get(), a.get(),
                                                   0, ws, ex);
        },
        aclnnInplaceAddmm, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(self, golden, std::string("inplace addmm ") + DTypeName(dt));
  }
}

TEST_F(MatmulTest, AddmmEmptyReduceAndIgnoredSelf) {
  // k == 0: out = beta * self. beta == 0: self is ignored, NaN and infinity included.
  for (aclDataType dt : kDtypes) {
    DeviceTensor self({3, 4}, dt), m1({3, 0}, dt), m2({0, 4}, dt);
    DeviceTensor out({3, 4}, dt, TensorLayout().WithNanCanary());
    std::vector<float> sv(12);
    for (int i = 0; i < 12; ++i) sv[i] = static_cast<float>(i) - 5.0f;
    self.Fill(sv);
    Scalar b(2.0f), a(3.0f);
    CallResult r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnAddmmGetWorkspaceSize(self.get(), m1.get(), m2.get(), b.get(), a.get(),
                                            out.get(), 0, ws, ex);
        },
        aclnnAddmm, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    std::vector<double> golden(12);
    for (int i = 0; i < 12; ++i) golden[i] = 2.0 * sv[i];
    ExpectMatches(out, golden, "k == 0");

    DeviceTensor nan_self({2, 2}, dt), x({2, 3}, dt), y({3, 2}, dt);
    DeviceTensor out2({2, 2}, dt, TensorLayout().WithNanCanary());
    nan_self.Fill({std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                   1.0f, 2.0f});
    x.Fill({1, 2, 3, 4, 5, 6});
    y.Fill({1, 0, 0, 1, 1, 1});
    Scalar zero(0.0f), one(1.0f);
    r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnAddmmGetWorkspaceSize(nan_self.get(), x.get(), y.get(), zero.get(), one.get(),
                                            out2.get(), 0, ws, ex);
        },
        aclnnAddmm, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(out2, {4, 5, 10, 11}, "beta == 0");
  }
}

TEST_F(MatmulTest, BaddbmmAndInplace) {
  std::mt19937 rng(10);
  const std::vector<int64_t> self_shapes[] = {{3, 4, 5}, {4, 5}, {5}, {3, 1, 5}, {1, 4, 1}, {}};
  for (aclDataType dt : kDtypes) {
    for (const auto& sd : self_shapes) {
      DeviceTensor self(sd, dt, RandomLayout(static_cast<int>(sd.size()), &rng));
      DeviceTensor b1({3, 4, 6}, dt, RandomLayout(3, &rng)), b2({3, 6, 5}, dt, Transposed(3));
      DeviceTensor out({3, 4, 5}, dt, TensorLayout().WithNanCanary());
      self.FillUniform(&rng, -1.0f, 1.0f);
      b1.FillUniform(&rng, -1.0f, 1.0f);
      b2.FillUniform(&rng, -1.0f, 1.0f);
      Scalar b(-0.5f), a(2.0f);
      CallResult r = CallApi(
          [&](uint64_t* ws, aclOpExecutor** ex) {
            return aclnnBaddbmmGetWorkspaceSize(self.get(), b1.get(), b2.get(), b.get(), a.get(),
                                                out.get(), 0, ws, ex);
          },
          aclnnBaddbmm, stream_);
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      ExpectMatches(out,
                    AddScaled(MatmulGolden(Values(b1), {3, 4, 6}, Values(b2), {3, 6, 5}), {3, 4, 5},
                              Values(self), sd, -0.5, 2.0),
                    "baddbmm self" + DimsString(sd) + " " + DTypeName(dt));
    }
    DeviceTensor self({2, 3, 4}, dt, TensorLayout::Scrambled(3));
    DeviceTensor b1({2, 3, 5}, dt), b2({2, 5, 4}, dt);
    self.FillUniform(&rng, -1.0f, 1.0f);
    b1.FillUniform(&rng, -1.0f, 1.0f);
    b2.FillUniform(&rng, -1.0f, 1.0f);
    const std::vector<double> golden =
        AddScaled(MatmulGolden(Values(b1), {2, 3, 5}, Values(b2), {2, 5, 4}), {2, 3, 4},
                  Values(self), {2, 3, 4}, 1.0, 1.0);
    Scalar one(1.0f);
    CallResult r = CallApi(
        [&](uint64_t* ws, aclOpExecutor** ex) {
          return aclnnInplaceBaddbmmGetWorkspaceSize(self.get(), b1.get(), b2.get(), one.get(),
                                                     one.get(), 0, ws, ex);
        },
        aclnnInplaceBaddbmm, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(self, golden, std::string("inplace baddbmm ") + DTypeName(dt));
  }
}

TEST_F(MatmulTest, LargeTiledProblemsMatchGolden) {
  // Several tiles in both output dims, long reductions, packed and direct operands.
  std::mt19937 rng(12);
  for (aclDataType dt : kDtypes) {
    DeviceTensor a({300, 260}, dt, Transposed(2)), b({260, 700}, dt);
    DeviceTensor out({300, 700}, dt, TensorLayout().WithNanCanary());
    a.FillUniform(&rng, -1.0f, 1.0f);
    b.FillUniform(&rng, -1.0f, 1.0f);
    CallResult r = CallMatmul(a, b, out, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(out, MatmulGolden(Values(a), {300, 260}, Values(b), {260, 700}),
                  std::string("large ") + DTypeName(dt));
    // A small output with a long reduction (a weight gradient x^T dy): cut into eight uneven
    // tiles (200 x 190 -> 64 x 96 steps) rather than one.
    DeviceTensor x({200, 1500}, dt, Transposed(2)), dy({1500, 190}, dt);
    DeviceTensor grad({200, 190}, dt, TensorLayout().WithNanCanary());
    x.FillUniform(&rng, -1.0f, 1.0f);
    dy.FillUniform(&rng, -1.0f, 1.0f);
    r = CallMatmul(x, dy, grad, 0, stream_);
    ASSERT_EQ(r.phase1, 0) << r.message;
    ASSERT_EQ(r.phase2, 0) << r.message;
    ExpectMatches(grad, MatmulGolden(Values(x), {200, 1500}, Values(dy), {1500, 190}),
                  std::string("long reduction ") + DTypeName(dt));
  }
}

}  // namespace
}  // namespace openaclnn::test::matmul
